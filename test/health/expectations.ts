// What Argo CD, kstatus and Flux must make of each object in each stage of the recorded e2e scenarios
// (docs/design/conventions.md, "Conditions and health"; patterns: test/health/recorded.ts). A stage begins when the
// test, having observed the state before, is about to act; so a stage may open with objects still in the previous
// state (the controller has not seen the change yet), and the patterns say so explicitly ("Healthy*" first).
// Where the test waits for an outcome the pattern requires it ("+"); where a state may be too short for the
// controller to write it, it allows it ("*"). Verdicts: Argo CD Healthy, Progressing, Degraded, Suspended;
// kstatus and Flux Current, InProgress, Failed, Terminating.
import type { Reader, ScenarioExpectations } from './recorded.js';

/** Argo CD's pattern, kstatus's, and Flux's (kstatus's unless it differs). */
const read = (argo: string, kstatus: string, flux = kstatus): Record<Reader, string> => ({
  argo,
  kstatus,
  flux,
});

/** A new cluster: not done before the controller's first status, then Progressing until Ready (the test moves on
 *  once Ready=True, which may come with a last step still in progress: the seed's MarkExisting). */
const creating = read('Progressing+ Healthy*', 'InProgress+ Current*');
/** Nothing happens: Healthy throughout (the controller rewrites members' details only). */
const steady = read('Healthy*', 'Current*');
/** A change the controller carries out by itself: Healthy until it sees it, Progressing until done, Healthy (unless
 *  the test moved on at Ready=True while a last step, such as a removed member's Pod terminating, was in flight). */
const converging = read('Healthy* Progressing+ Healthy*', 'Current* InProgress+ Current*');
/** The same where the test waits until nothing is in progress any more. */
const converged = read('Healthy* Progressing+ Healthy+', 'Current* InProgress+ Current+');
/** A member lost and replaced by the controller: never Degraded (MemberDead comes with Progressing), at least one
 *  Progressing (a restarted member may look healthy for a moment before it fails again). */
const memberBack = read(
  '(Healthy|Progressing)* Progressing (Healthy|Progressing)*',
  '(Current|InProgress)* InProgress (Current|InProgress)*',
);
/** A member killed from outside, perhaps back before any pass saw it: never Degraded. */
const memberRestarts = read('(Healthy|Progressing)*', '(Current|InProgress)*');
/** A fault nothing repairs (quorum lost, a refused spec): Degraded / Failed once the controller has seen it. */
const faulting = read('Healthy* Progressing* Degraded+', 'Current* InProgress* Failed+');
/** A restore that is refused: Progressing until the controller decides, then Degraded / Failed for good. */
const restoreRefused = read('Progressing* Degraded+', 'InProgress* Failed+');

export const expectations: Readonly<Record<string, ScenarioExpectations>> = {
  // test/e2e/cluster-scale.test.ts: size 1 → 3, a member Pod deleted, a member's data lost, a refused spec, a pause
  // with quorum held and a member Pod deleted meanwhile, scale to 1.
  'scale-up': {
    creating: { EtcdCluster: creating },
    'scaling-up': { EtcdCluster: converging },
    'member-pod-deleted': { EtcdCluster: converging },
    'member-data-lost': { EtcdCluster: converging },
    'spec-refused': { EtcdCluster: faulting },
    'spec-reverted': {
      EtcdCluster: read('Degraded* Progressing* Healthy+', 'Failed* InProgress* Current+'),
    },
    // spec.paused: Suspended at once; kstatus and Flux by the conditions (Ready while every member is).
    pausing: { EtcdCluster: read('Healthy* Suspended+', 'Current* InProgress* Current+') },
    // Paused with quorum held and a member Pod gone: still Suspended; Ready=False is InProgress for kstatus, and
    // Degraded MemberDown (nothing restarts it) Failed for Flux once the Pod is gone.
    'paused-member-down': {
      EtcdCluster: read('Suspended+', 'Current* InProgress+', 'Current* InProgress* Failed+'),
    },
    unpausing: {
      EtcdCluster: read(
        'Suspended* Progressing+ Healthy+',
        'InProgress+ Current+',
        'Failed* InProgress+ Current+',
      ),
    },
    'scaling-in': { EtcdCluster: converging },
  },
  // test/e2e/cluster-sizes.test.ts: size 3, 3 → 5 → 3 → 1 → 3, a member SIGKILLed three times, a member's and the
  // seed's data lost (each replaced), two of three members lost with their data (quorum lost), then paused.
  'member-loss': {
    creating: { EtcdCluster: creating },
    'scaling-up': { EtcdCluster: converging },
    'scaling-in': { EtcdCluster: converging },
    'member-killed': { EtcdCluster: memberRestarts },
    'member-data-lost': { EtcdCluster: memberBack },
    'seed-data-lost': { EtcdCluster: memberBack },
    'quorum-lost': { EtcdCluster: faulting },
    // Paused while quorum is lost: Degraded for Argo CD, not Suspended; Failed for kstatus and Flux once the
    // controller saw the pause (InProgress only while the new generation is not observed yet).
    'paused-quorum-lost': { EtcdCluster: read('Degraded+', 'Failed* InProgress* Failed+') },
  },
  // test/e2e/cluster-node-loss.test.ts: size 3; the leader's node dies (not Ready, then past
  // spec.failureDetection.nodeNotReady: the member is lost, removed and replaced on a new node); the node comes back.
  'node-loss': {
    creating: { EtcdCluster: creating },
    steady: { EtcdCluster: steady },
    // Within the bound MembersNotReady, then MemberLost with ReplacingMember: Progressing throughout, never Degraded.
    'node-lost': { EtcdCluster: converging },
    'node-back': { EtcdCluster: memberRestarts },
  },
  // test/e2e/cluster-rolling.test.ts: size 3 on etcd 3.4, a two-minor jump admission could not judge refused by
  // the controller and reverted, rolled to 3.5, to 3.6 (the controller killed after its
  // steps), to new resources; a bad flag stops the roll at its first member (RollingUpdateFailed), the fix rolls back.
  'rolling-update': {
    creating: { EtcdCluster: creating },
    steady: { EtcdCluster: steady },
    // Two minors at once, admitted because the status had lost its currentVersion (each admitted change reads
    // Progressing until observed), then refused by the controller; the revert clears it.
    'version-refused': { EtcdCluster: read('Progressing* Degraded+', 'InProgress* Failed+') },
    'version-reverted': {
      EtcdCluster: read('Degraded* Progressing* Healthy+', 'Failed* InProgress* Current+'),
    },
    rolling: { EtcdCluster: converged },
    'roll-failing': {
      EtcdCluster: read('Healthy* Progressing+ Degraded+', 'Current* InProgress+ Failed+'),
    },
    'roll-fixed': { EtcdCluster: read('Degraded* Progressing+ Healthy+', 'Failed* InProgress+ Current+') },
  },
  // test/e2e/restore-inplace.test.ts: a 3-member cluster backed up, restores refused while it is healthy, a
  // majority lost with its data, restores refused for bad backups, then a good restore (a second one waits, then
  // is refused as the cluster is healthy again) whose backup is deleted before its seed starts and put back later.
  restore: {
    creating: { EtcdCluster: creating },
    'backing-up': { EtcdCluster: steady },
    'restores-refused': { EtcdCluster: steady, EtcdRestore: restoreRefused },
    'quorum-lost': { EtcdCluster: faulting },
    'restores-failing': { EtcdCluster: read('Degraded*', 'Failed*'), EtcdRestore: restoreRefused },
    // The cluster: quorum lost until the lock is taken, then Progressing while its members stop and the seed waits
    // for a node (every node cordoned).
    restoring: {
      EtcdCluster: read('Degraded* Progressing+', 'Failed* InProgress+'),
      'EtcdRestore/good': read('Progressing+', 'InProgress+'),
      'EtcdRestore/second': read('Progressing+', 'InProgress+'),
    },
    // The seed's restore fails BackupNotFound on every retry: a fault only the user clears, for the restore and the
    // cluster alike (the second restore still waits, perhaps without a write).
    'seed-failing': {
      EtcdCluster: read('Progressing* Degraded+', 'InProgress* Failed+'),
      'EtcdRestore/good': read('Progressing* Degraded+', 'InProgress* Failed+'),
      'EtcdRestore/second': read('Progressing*', 'InProgress*'),
    },
    // The backup is back: Progressing through the seed's next retry and the growth, Healthy once Ready (also through
    // the lock's bookkeeping after completion: retained PVCs, clearing status.restore).
    'seed-retrying': {
      EtcdCluster: read('Degraded* Progressing+ Healthy+', 'Failed* InProgress+ Current+'),
      'EtcdRestore/good': read('Degraded* Progressing+ Healthy+', 'Failed* InProgress+ Current+'),
      'EtcdRestore/second': read('Progressing* Degraded+', 'InProgress* Failed+'),
    },
  },
};
