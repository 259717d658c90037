// The EtcdRestore planner, table by table: every refusal, the lock, each step of docs/design/restore.md and the
// resumption after a crash between two steps (the observed state of that moment gives the next step).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { planRestore } from '../../../controller/etcdrestore/plan.js';
import type {
  MemberPodView,
  MemberPvcView,
  RestoreAction,
  RestorePlanInput,
  TargetView,
} from '../../../controller/etcdrestore/types.js';

const uid = 'aaaaaaaa-1111-2222-3333-444444444444';
const token = 'main-aaaaaaaa-abc123';
const lock = { name: 'r1', uid, token, phase: 'Restoring' as const };

const cluster = (over: Partial<TargetView> = {}): TargetView => ({
  name: 'main',
  uid: 'cccccccc-0000',
  deleting: false,
  paused: false,
  version: '3.6.16',
  size: 3,
  ephemeral: false,
  whenScaled: 'Retain',
  knownMembers: ['main-0', 'main-1', 'main-2'],
  ...over,
});
const pod = (n: number, over: Partial<MemberPodView> = {}): MemberPodView => ({
  name: `main-${n}`,
  member: `main-${n}`,
  terminating: false,
  ready: false,
  ...over,
});
const pvc = (n: number, over: Partial<MemberPvcView> = {}): MemberPvcView => ({
  name: `main-${n}-data`,
  member: `main-${n}`,
  terminating: false,
  ...over,
});
const oldPods = [pod(0, { ready: true, token: 'old-token' }), pod(1), pod(2)];
const oldPvcs = [pvc(0, { token: 'old-token' }), pvc(1), pvc(2)];
const retained = oldPvcs.map((p) => ({ ...p, retainedBy: 'r1' }));
const lostQuorum = { quorum: false, members: 3, healthyVoters: 1, learners: 0 };

function input(
  over: Partial<RestorePlanInput> & { phase?: RestorePlanInput['restore']['phase'] } = {},
): RestorePlanInput {
  const { phase, ...rest } = over;
  return {
    restore: {
      name: 'r1',
      uid,
      phase: phase ?? 'Pending',
      clusterName: 'main',
      allowHealthyCluster: false,
      ...(phase && phase !== 'Pending' && phase !== 'Verifying' ? { backupKey: 'ns/main/b.db' } : {}),
    },
    cluster: cluster(),
    pods: oldPods,
    pvcs: oldPvcs,
    etcd: lostQuorum,
    nonce: 'abc123',
    ...rest,
  };
}

function check(name: string, given: RestorePlanInput, expected: Partial<RestoreAction>): void {
  it(name, () => {
    const action = planRestore(given);
    for (const [field, value] of Object.entries(expected)) {
      assert.deepEqual(
        (action as Record<string, unknown>)[field],
        value,
        `${field} of ${JSON.stringify(action)}`,
      );
    }
  });
}

describe('planRestore: refusals before any change', () => {
  check('fails when the cluster does not exist', input({ cluster: undefined }), {
    kind: 'Refuse',
    reason: 'ClusterNotFound',
  });
  check('fails when the cluster is being deleted', input({ cluster: cluster({ deleting: true }) }), {
    kind: 'Refuse',
    reason: 'ClusterDeleting',
  });
  check('fails when the cluster is paused', input({ cluster: cluster({ paused: true }) }), {
    kind: 'Refuse',
    reason: 'ClusterPaused',
  });
  check(
    'fails when the backup source names both a key and a prefix',
    input({
      restore: { ...input().restore, sourceProblem: 'spec.backup: give key or latestUnderPrefix, not both' },
    }),
    { kind: 'Refuse', reason: 'InvalidBackupSource' },
  );
  check(
    'fails when the credentials Secret is missing',
    input({ credentialsProblem: 'Secret s3 not found' }),
    {
      kind: 'Refuse',
      reason: 'InvalidBackupSource',
    },
  );
  check(
    'fails when the cluster has quorum and allowHealthyCluster is not set',
    input({ etcd: { quorum: true, members: 3, healthyVoters: 3, learners: 0 } }),
    { kind: 'Refuse', reason: 'ClusterHealthy' },
  );
  check(
    'fails when a cluster turned healthy while the restore was verifying',
    input({ phase: 'Restoring', etcd: { quorum: true, members: 3, healthyVoters: 2, learners: 0 } }),
    { kind: 'Refuse', reason: 'ClusterHealthy' },
  );
  check(
    'GIVEN allowHealthyCluster WHEN the cluster has quorum THEN it starts verifying',
    input({
      restore: { ...input().restore, allowHealthyCluster: true },
      etcd: { quorum: true, members: 3, healthyVoters: 3, learners: 0 },
    }),
    { kind: 'StartVerifying' },
  );
});

describe('planRestore: one restore per cluster', () => {
  const other = { name: 'r0', uid: 'bbbbbbbb-other', token: 't0', phase: 'Restoring' as const };
  for (const phase of ['Pending', 'Verifying', 'Restoring'] as const) {
    check(
      `GIVEN another restore holds the lock WHEN this one is ${phase} THEN it waits, naming the holder`,
      input({ phase, cluster: cluster({ lock: other }), etcd: undefined }),
      { kind: 'Wait', reason: 'WaitingForRestore' },
    );
  }
  check(
    'GIVEN another restore holds the lock while the cluster grows (quorum) THEN it still waits',
    input({
      cluster: cluster({ lock: { ...other, phase: 'Growing' } }),
      etcd: { quorum: true, members: 2, healthyVoters: 2, learners: 0 },
    }),
    { kind: 'Wait', reason: 'WaitingForRestore' },
  );
});

describe('planRestore: the steps in order', () => {
  check('1. Pending → StartVerifying', input(), { kind: 'StartVerifying' });
  check('2. Verifying → Verify (download and check)', input({ phase: 'Verifying' }), { kind: 'Verify' });
  check('3. Restoring without a lock → TakeLock with a fresh token', input({ phase: 'Restoring' }), {
    kind: 'TakeLock',
    token: 'main-aaaaaaaa-abc123',
  });
  check(
    '4a. lock taken → label the first old PVC retained',
    input({ phase: 'Restoring', cluster: cluster({ lock }) }),
    { kind: 'RetainPVC', pvc: 'main-0-data' },
  );
  check(
    '4a. one PVC retained → the next one',
    input({ phase: 'Restoring', cluster: cluster({ lock }), pvcs: [retained[0]!, oldPvcs[1]!, oldPvcs[2]!] }),
    { kind: 'RetainPVC', pvc: 'main-1-data' },
  );
  check(
    '4b. every PVC retained → delete the old member Pods',
    input({ phase: 'Restoring', cluster: cluster({ lock }), pvcs: retained }),
    { kind: 'DeletePod', pod: 'main-0' },
  );
  check(
    '4b. an old Pod still terminating → wait for it',
    input({
      phase: 'Restoring',
      cluster: cluster({ lock }),
      pvcs: retained,
      pods: [pod(2, { terminating: true })],
    }),
    { kind: 'Wait', reason: 'StoppingMembers' },
  );
  check(
    '5a. old Pods gone → a seed PVC under a name never used (not a retained PVC, not a known member)',
    input({ phase: 'Restoring', cluster: cluster({ lock }), pvcs: retained, pods: [], etcd: undefined }),
    { kind: 'CreateSeedPVC', member: 'main-3', token },
  );
  check(
    '5a. a wiped member (no PVC) keeps its name out of reach through status.members',
    input({
      phase: 'Restoring',
      cluster: cluster({ lock, knownMembers: ['main-0', 'main-1', 'main-2', 'main-3'] }),
      pvcs: retained.slice(0, 1),
      pods: [],
      etcd: undefined,
    }),
    { kind: 'CreateSeedPVC', member: 'main-4' },
  );
  const seedPvc = pvc(3, { token });
  check(
    '5b. seed PVC exists → the seed Pod with the verified key',
    input({
      phase: 'Restoring',
      cluster: cluster({ lock }),
      pvcs: [...retained, seedPvc],
      pods: [],
      etcd: undefined,
    }),
    { kind: 'CreateSeedPod', member: 'main-3', token, backupKey: 'ns/main/b.db' },
  );
  check(
    '5b. ephemeral storage → the seed Pod without a PVC',
    input({
      phase: 'Restoring',
      cluster: cluster({ lock, ephemeral: true }),
      pvcs: [],
      pods: [],
      etcd: undefined,
    }),
    { kind: 'CreateSeedPod', member: 'main-3' },
  );
  const seedPod = pod(3, { token });
  check(
    '5c. seed Pod restoring → wait',
    input({
      phase: 'Restoring',
      cluster: cluster({ lock }),
      pvcs: [...retained, seedPvc],
      pods: [seedPod],
      etcd: undefined,
    }),
    { kind: 'Wait', reason: 'SeedStarting' },
  );
  check(
    '5c. the seed init container fails → wait, degraded, naming the failure (never deletes retained PVCs)',
    input({
      phase: 'Restoring',
      cluster: cluster({ lock }),
      pvcs: [...retained, seedPvc],
      pods: [{ ...seedPod, initFailure: 'exit code 4: S3 unreachable' }],
      etcd: undefined,
    }),
    { kind: 'Wait', reason: 'SeedRestoreFailing', degraded: true },
  );
  check(
    '6. seed ready → release the planner (lock phase Growing)',
    input({
      phase: 'Restoring',
      cluster: cluster({ lock }),
      pvcs: [...retained, seedPvc],
      pods: [{ ...seedPod, ready: true }],
      etcd: { quorum: true, members: 1, healthyVoters: 1, learners: 0 },
    }),
    { kind: 'ReleaseToPlanner' },
  );
  const growing = cluster({ lock: { ...lock, phase: 'Growing' } });
  check(
    '7. growing with a learner → wait',
    input({
      phase: 'Restoring',
      cluster: growing,
      etcd: { quorum: true, members: 2, healthyVoters: 1, learners: 1 },
    }),
    { kind: 'Wait', reason: 'Growing' },
  );
  check(
    '7. Ready at the declared size → Complete',
    input({
      phase: 'Restoring',
      cluster: growing,
      etcd: { quorum: true, members: 3, healthyVoters: 3, learners: 0 },
    }),
    { kind: 'Complete' },
  );
  check(
    '8. Completed with the lock still held → ReleaseLock',
    input({ phase: 'Completed', cluster: growing }),
    {
      kind: 'ReleaseLock',
    },
  );
  check(
    '9. Completed, whenScaled Delete → delete our retained PVCs one by one',
    input({ phase: 'Completed', cluster: cluster({ whenScaled: 'Delete' }), pvcs: [...retained, seedPvc] }),
    { kind: 'DeleteRetainedPVC', pvc: 'main-0-data' },
  );
  check(
    '9. Completed, whenScaled Retain → the retained PVCs stay; done',
    input({ phase: 'Completed', cluster: cluster(), pvcs: retained }),
    { kind: 'Done' },
  );
  check(
    '9. Completed, whenScaled Delete → PVCs retained by another restore are not ours to delete',
    input({
      phase: 'Completed',
      cluster: cluster({ whenScaled: 'Delete' }),
      pvcs: retained.map((p) => ({ ...p, retainedBy: 'r0' })),
    }),
    { kind: 'Done' },
  );
  check('Failed is terminal', input({ phase: 'Failed', cluster: undefined }), { kind: 'Done' });
});

describe('planRestore: resumption after a crash between steps', () => {
  check(
    'GIVEN the lock was written but the restore status was not THEN the lock (ours by uid) wins: retain PVCs',
    input({ phase: 'Restoring', cluster: cluster({ lock }), etcd: lostQuorum }),
    { kind: 'RetainPVC' },
  );
  check(
    'GIVEN a crash while verifying THEN it verifies again (nothing was changed)',
    input({ phase: 'Verifying' }),
    { kind: 'Verify' },
  );
  check(
    'GIVEN Restoring recorded without a backup key THEN it verifies again before taking the lock',
    input({ phase: 'Restoring', restore: { ...input().restore, phase: 'Restoring' } }),
    { kind: 'Verify' },
  );
  check(
    'GIVEN the seed PVC was created but not the Pod THEN the Pod is created on that PVC (no second seed)',
    input({
      phase: 'Restoring',
      cluster: cluster({ lock }),
      pvcs: [...retained, pvc(3, { token })],
      pods: [],
      etcd: undefined,
    }),
    { kind: 'CreateSeedPod', member: 'main-3' },
  );
  check(
    'GIVEN the seed PVC exists WHEN the seed Pod was deleted by someone THEN it is recreated on the same PVC',
    input({
      phase: 'Restoring',
      cluster: cluster({ lock }),
      pvcs: [...retained, pvc(3, { token })],
      pods: [],
      etcd: undefined,
    }),
    { kind: 'CreateSeedPod', member: 'main-3', token },
  );
  check(
    'GIVEN the lock moved to Growing but Completed was not recorded THEN the cluster being Ready completes it',
    input({
      phase: 'Restoring',
      cluster: cluster({ lock: { ...lock, phase: 'Growing' } }),
      pods: [pod(3, { token, ready: true }), pod(4, { ready: true }), pod(5, { ready: true })],
      etcd: { quorum: true, members: 3, healthyVoters: 3, learners: 0 },
    }),
    { kind: 'Complete' },
  );
  check(
    'GIVEN the lock was released THEN a Completed restore is done (a new restore may take the cluster)',
    input({
      phase: 'Completed',
      cluster: cluster(),
      etcd: { quorum: true, members: 3, healthyVoters: 3, learners: 0 },
    }),
    { kind: 'Done' },
  );
});

describe('planRestore: the lock of a deleted restore (orphaned lock)', () => {
  const gone = { name: 'r0', uid: 'bbbbbbbb-gone', token: 't0', phase: 'Restoring' as const };
  const retainedByGone = oldPvcs.map((p) => ({ ...p, retainedBy: 'r0' }));
  check(
    'GIVEN the holder still exists THEN this restore waits (never releases a live restore’s lock)',
    input({ cluster: cluster({ lock: gone }), pvcs: retainedByGone, etcd: undefined }),
    { kind: 'Wait', reason: 'WaitingForRestore' },
  );
  check(
    'GIVEN the holder was deleted after retaining PVCs THEN the first one is marked abandoned',
    input({ cluster: cluster({ lock: gone }), pvcs: retainedByGone, etcd: undefined, lockHolderGone: true }),
    { kind: 'MarkAbandonedPVC', pvc: 'main-0-data', holder: 'r0' },
  );
  check(
    'GIVEN every PVC it retained is marked THEN the lock is released, naming them (sorted)',
    input({
      phase: 'Verifying',
      cluster: cluster({ lock: gone }),
      pvcs: [...retainedByGone].reverse().map((p) => ({ ...p, abandonedBy: 'r0' })),
      etcd: undefined,
      lockHolderGone: true,
    }),
    { kind: 'ReleaseOrphanedLock', holder: 'r0', retained: ['main-0-data', 'main-1-data', 'main-2-data'] },
  );
  check(
    'GIVEN the holder was deleted before it retained anything THEN the lock is released at once, naming no PVC',
    input({ cluster: cluster({ lock: gone }), etcd: undefined, lockHolderGone: true }),
    { kind: 'ReleaseOrphanedLock', holder: 'r0', phase: 'Restoring', retained: [] },
  );
  check(
    'GIVEN PVCs retained by another restore THEN they are not marked for the deleted one',
    input({
      cluster: cluster({ lock: { ...gone, phase: 'Growing' } }),
      pvcs: oldPvcs.map((p) => ({ ...p, retainedBy: 'older' })),
      lockHolderGone: true,
    }),
    { kind: 'ReleaseOrphanedLock', phase: 'Growing', retained: [] },
  );
  check(
    'GIVEN a restore deleted and created again under the same name (new uid) THEN the old lock is released',
    input({
      phase: 'Restoring',
      cluster: cluster({ lock: { ...gone, name: 'r1' } }),
      etcd: undefined,
      lockHolderGone: true,
    }),
    { kind: 'ReleaseOrphanedLock', holder: 'r1' },
  );
  check(
    'GIVEN our own lock THEN lockHolderGone never matters (the lock is ours by uid)',
    input({ phase: 'Restoring', cluster: cluster({ lock }), lockHolderGone: true }),
    { kind: 'RetainPVC' },
  );
});
