// Table tests of the restore branch of the membership planner (docs/design/membership.md, "The restore branch"):
// every step of each lock phase (Restoring 2.1-2.7, Completed 2.8-2.9, Abandoned 2.10-2.11), every crash point
// between two of its steps, and that Growing and a cleared lock hand over to steps 3-16. Through planMembership, so
// the branch's place in the numbered algorithm is tested too.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { planMembership } from '../../../controller/etcdcluster/plan.js';
import { planRestoreLock } from '../../../controller/etcdcluster/plan-restore.js';
import type { Action, PlanInput } from '../../../controller/etcdcluster/types.js';
import { cluster, etcd, member, pod, pvc, RESTORE_TOKEN, restoreLock, steady } from './fixtures.js';

interface Case {
  readonly given: string;
  readonly input: PlanInput;
  readonly expect: Partial<Record<string, unknown>> & { kind: Action['kind'] };
}

type Lock = NonNullable<PlanInput['cluster']['restore']>;

/** A size-3 cluster that lost demo-1 and demo-2 with their data (demo-0 runs alone, no quorum), locked by `lock`. */
function locked(lock: Lock, overrides: Partial<PlanInput> = {}): PlanInput {
  const before = steady(3);
  return {
    ...before,
    cluster: { ...before.cluster, restore: lock },
    pods: [pod(0, { ready: false })],
    pvcs: [pvc(0, { token: 'old-token' })],
    etcd: etcd(
      [member(0, { healthy: false }), member(1, { healthy: false }), member(2, { healthy: false })],
      {
        quorum: false,
      },
    ),
    ...overrides,
  };
}

const restoring = restoreLock('Restoring');
const retained = (index: number, by = 'r1', overrides = {}) =>
  pvc(index, { retained: true, retainedBy: by, ...overrides });
/** Old member data retained, old Pods gone: the moment the seed is made. */
const stopped = (overrides: Partial<PlanInput> = {}) =>
  locked(restoring, {
    pods: [],
    pvcs: [retained(0, 'r1', { token: 'old-token' })],
    etcd: undefined,
    ...overrides,
  });
const seedPvc = pvc(3, { token: RESTORE_TOKEN });
const seedPod = pod(3, { token: RESTORE_TOKEN, initialState: 'new', running: false, ready: false });

const survivorLock = restoreLock('Restoring', { source: { member: { name: 'demo-0', id: '1000' } } });
/** A survivor restore: demo-0 runs (the source), its PVC retained, demo-1 and demo-2 gone. */
const survivorRuns = (overrides: Partial<PlanInput> = {}) =>
  locked(survivorLock, {
    pods: [pod(0, { ready: false })],
    pvcs: [retained(0, 'r1', { token: 'old-token' })],
    ...overrides,
  });

const cases: Case[] = [
  // Restoring: 2.1-2.7
  // A survivor restore (source.member): the survivor's Pod runs until the seed serves.
  {
    given: "a survivor restore: the survivor's PVC is retained first",
    input: locked(survivorLock),
    expect: { kind: 'RetainPVC', pvc: 'demo-0-data' },
  },
  {
    given: 'a survivor restore: its PVC retained, its Pod running → the seed PVC, the survivor not stopped',
    input: survivorRuns(),
    expect: { kind: 'CreatePVC', member: 'demo-3', token: RESTORE_TOKEN },
  },
  {
    given: 'a survivor restore: the seed starting → wait, the survivor still runs',
    input: survivorRuns({ pods: [pod(0, { ready: false }), seedPod], pvcs: [retained(0), seedPvc] }),
    expect: { kind: 'Wait', reason: 'SeedStarting' },
  },
  {
    given: "a survivor restore: the seed serves → the survivor's Pod is stopped (its PVC stays retained)",
    input: survivorRuns({
      pods: [pod(0, { ready: false }), { ...seedPod, running: true, ready: true }],
      pvcs: [retained(0), seedPvc],
    }),
    expect: { kind: 'DeletePod', pod: 'demo-0' },
  },
  {
    given: "a survivor restore: the survivor's Pod terminating → wait",
    input: survivorRuns({
      pods: [pod(0, { terminating: true }), { ...seedPod, running: true, ready: true }],
      pvcs: [retained(0), seedPvc],
    }),
    expect: { kind: 'Wait', reason: 'StoppingMembers' },
  },
  {
    given: "a survivor restore: the survivor's Pod gone → ReleaseToPlanner",
    input: survivorRuns({ pods: [{ ...seedPod, running: true, ready: true }], pvcs: [retained(0), seedPvc] }),
    expect: { kind: 'ReleaseToPlanner', member: 'demo-3' },
  },
  {
    given: 'a lock without a source (taken by an older controller)',
    input: locked(restoreLock('Restoring', { source: undefined })),
    expect: { kind: 'Wait', reason: 'RestoreSourceMissing' },
  },
  {
    given: 'a lock without a token',
    input: locked(restoreLock('Restoring', { token: undefined })),
    expect: { kind: 'Wait', reason: 'RestoreSourceMissing' },
  },
  {
    given: 'the lock just taken',
    input: locked(restoring),
    expect: { kind: 'RetainPVC', member: 'demo-0', pvc: 'demo-0-data', restore: 'r1' },
  },
  {
    given: 'a healthy cluster restored with allowHealthyCluster (etcd answers with quorum)',
    input: locked(restoring, { ...steady(3), cluster: { ...steady(3).cluster, restore: restoring } }),
    expect: { kind: 'RetainPVC', pvc: 'demo-0-data' },
  },
  {
    given: 'one PVC retained, the next one not yet',
    input: locked(restoring, { pods: [pod(0), pod(1)], pvcs: [retained(0), pvc(1)] }),
    expect: { kind: 'RetainPVC', pvc: 'demo-1-data' },
  },
  {
    given: 'PVCs retained by an earlier restore and one being deleted',
    input: locked(restoring, { pvcs: [retained(5, 'r0'), pvc(6, { terminating: true }), pvc(0)] }),
    expect: { kind: 'RetainPVC', pvc: 'demo-0-data' },
  },
  {
    given: 'a PVC of an earlier incarnation of the cluster (whenDeleted: Retain)',
    input: locked(restoring, { pvcs: [retained(0), pvc(7, { clusterUid: 'old-uid' })] }),
    expect: { kind: 'RetainPVC', pvc: 'demo-7-data' },
  },
  {
    given: 'every old PVC retained, the old Pod still running',
    input: locked(restoring, { pvcs: [retained(0)] }),
    expect: { kind: 'DeletePod', member: 'demo-0', pod: 'demo-0' },
  },
  {
    given: 'the old Pod terminating',
    input: locked(restoring, { pvcs: [retained(0)], pods: [pod(0, { terminating: true })] }),
    expect: { kind: 'Wait', reason: 'StoppingMembers' },
  },
  {
    given: 'an old Pod on a dead node, deleted and Terminating (lost): it holds nothing up',
    input: locked(restoring, {
      pvcs: [retained(0)],
      pods: [pod(0, { terminating: true, lost: 'its node node-1 has not been Ready for 3m' })],
    }),
    expect: { kind: 'CreatePVC', member: 'demo-3', token: RESTORE_TOKEN },
  },
  {
    given: 'an old Pod on a dead node, not deleted yet (lost, not terminating)',
    input: locked(restoring, {
      pvcs: [retained(0)],
      pods: [pod(0, { running: false, ready: false, lost: 'its node node-1 has not been Ready for 3m' })],
    }),
    expect: { kind: 'DeletePod', pod: 'demo-0' },
  },
  {
    given: 'the old members stopped',
    input: stopped(),
    expect: { kind: 'CreatePVC', member: 'demo-3', token: RESTORE_TOKEN },
  },
  {
    given: 'the old members stopped, a wiped member (no PVC, no Pod) named in status.members',
    input: stopped({
      cluster: { ...stopped().cluster, knownMembers: ['demo-0', 'demo-1', 'demo-2', 'demo-3'] },
    }),
    expect: { kind: 'CreatePVC', member: 'demo-4' },
  },
  {
    given: 'the seed PVC made',
    input: stopped({ pvcs: [retained(0), seedPvc] }),
    expect: {
      kind: 'CreatePod',
      member: 'demo-3',
      reason: 'seed',
      state: 'new',
      initialCluster: ['demo-3'],
      token: RESTORE_TOKEN,
    },
  },
  {
    given: 'the seed PVC terminating (deleted by someone)',
    input: stopped({ pvcs: [retained(0), { ...seedPvc, terminating: true }] }),
    expect: { kind: 'Wait', reason: 'PVCTerminating' },
  },
  {
    given: 'ephemeral storage, the old members stopped',
    input: stopped({
      cluster: { ...stopped().cluster, storage: { size: '1Gi', ephemeral: true } },
      pvcs: [],
    }),
    expect: { kind: 'CreatePod', member: 'demo-3', reason: 'seed', token: RESTORE_TOKEN },
  },
  {
    given: 'the seed Pod restoring',
    input: stopped({ pvcs: [retained(0), seedPvc], pods: [seedPod] }),
    expect: { kind: 'Wait', reason: 'SeedStarting' },
  },
  {
    given: "the seed's restore fetch failing",
    input: stopped({
      pvcs: [retained(0), seedPvc],
      pods: [
        {
          ...seedPod,
          restoreFailure: 'exit code 4 (S3Unavailable) after 2 restart(s)',
          restoreFailureTransient: true,
        },
      ],
    }),
    expect: { kind: 'Wait', reason: 'SeedRestoreFailing', degraded: true, stalled: undefined },
  },
  {
    given: "the seed's restore fetch failing with a fault only the user clears (ChecksumMismatch)",
    input: stopped({
      pvcs: [retained(0), seedPvc],
      pods: [
        { ...seedPod, restoreFailure: 'exit code 5 (ChecksumMismatch: sha256 differs) after 2 restart(s)' },
      ],
    }),
    expect: { kind: 'Wait', reason: 'SeedRestoreFailing', degraded: true, stalled: true },
  },
  {
    given: 'the seed Pod lost (its node died before it served)',
    input: stopped({
      pvcs: [retained(0), seedPvc],
      pods: [{ ...seedPod, lost: 'its node node-2 has not been Ready for 2m10s' }],
    }),
    expect: { kind: 'Wait', reason: 'SeedLost', degraded: true, stalled: true },
  },
  {
    given: 'the seed Ready',
    input: stopped({
      pvcs: [retained(0), seedPvc],
      pods: [{ ...seedPod, running: true, ready: true }],
      etcd: etcd([member(3)]),
    }),
    expect: { kind: 'ReleaseToPlanner', member: 'demo-3', restore: 'r1' },
  },
  // Restoring: what comes before the branch, and what it goes before
  {
    given: 'a paused cluster while the restore holds it',
    input: locked(restoring, { cluster: { ...locked(restoring).cluster, paused: true } }),
    expect: { kind: 'Paused' },
  },
  {
    given: 'a cluster being deleted while the restore holds it',
    input: locked(restoring, { cluster: { ...locked(restoring).cluster, deleting: true } }),
    expect: { kind: 'Wait', reason: 'ClusterDeleting' },
  },
  {
    given: 'a spec the planner refuses (even size) while the restore holds it',
    input: locked(restoring, { cluster: { ...locked(restoring).cluster, size: 4 } }),
    expect: { kind: 'RetainPVC', pvc: 'demo-0-data' },
  },
  // Growing: steps 3-16, with the retained PVCs nobody's
  {
    given: 'the lock Growing with the seed healthy',
    input: stopped({
      cluster: { ...stopped().cluster, restore: restoreLock('Growing'), whenScaled: 'Delete' },
      pvcs: [retained(0), retained(1), seedPvc],
      pods: [{ ...seedPod, running: true, ready: true, initialState: 'existing' }],
      etcd: etcd([member(3)]),
    }),
    expect: { kind: 'AddLearner', member: 'demo-2' },
  },
  // Completed: 2.8-2.9
  {
    given: 'the restore Completed, whenScaled Delete',
    input: steady(3, {
      cluster: { ...steady(3).cluster, restore: restoreLock('Completed'), whenScaled: 'Delete' },
      pvcs: [...steady(3).pvcs, retained(5, 'r0'), retained(4), retained(3)],
    }),
    expect: { kind: 'DeleteRetainedPVC', pvc: 'demo-3-data', restore: 'r1' },
  },
  {
    given: 'the restore Completed, whenScaled Delete, its retained PVCs deleting',
    input: steady(3, {
      cluster: { ...steady(3).cluster, restore: restoreLock('Completed'), whenScaled: 'Delete' },
      pvcs: [...steady(3).pvcs, retained(5, 'r0'), retained(3, 'r1', { terminating: true })],
    }),
    expect: { kind: 'ClearRestoreLock', restore: 'r1', outcome: 'Completed', retained: [] },
  },
  {
    given: 'the restore Completed, whenScaled Retain',
    input: steady(3, {
      cluster: { ...steady(3).cluster, restore: restoreLock('Completed') },
      pvcs: [...steady(3).pvcs, retained(4), retained(3)],
    }),
    expect: { kind: 'ClearRestoreLock', outcome: 'Completed', retained: ['demo-3-data', 'demo-4-data'] },
  },
  {
    given: 'the restore Completed while the cluster is being deleted',
    input: steady(3, {
      cluster: { ...steady(3).cluster, restore: restoreLock('Completed'), deleting: true },
    }),
    expect: { kind: 'Wait', reason: 'ClusterDeleting' },
  },
  // Abandoned: 2.10-2.11
  {
    given: 'the restore deleted after it retained PVCs',
    input: locked(restoreLock('Abandoned'), {
      cluster: { ...locked(restoring).cluster, restore: restoreLock('Abandoned'), whenScaled: 'Delete' },
      pods: [seedPod],
      pvcs: [retained(1), retained(0, 'r1', { abandonedBy: 'r1' }), retained(5, 'r0'), seedPvc],
    }),
    expect: { kind: 'MarkAbandonedPVC', pvc: 'demo-1-data', restore: 'r1' },
  },
  {
    given: 'every PVC the deleted restore retained marked',
    input: locked(restoreLock('Abandoned'), {
      pods: [seedPod],
      pvcs: [retained(1, 'r1', { abandonedBy: 'r1' }), retained(0, 'r1', { abandonedBy: 'r1' }), seedPvc],
    }),
    expect: { kind: 'ClearRestoreLock', outcome: 'Abandoned', retained: ['demo-0-data', 'demo-1-data'] },
  },
  {
    given: 'the restore deleted before it retained anything',
    input: locked(restoreLock('Abandoned')),
    expect: { kind: 'ClearRestoreLock', outcome: 'Abandoned', retained: [] },
  },
];

/** Each crash point of the branch: the state the step left, and what the next pass does. */
const crashes: Case[] = [
  {
    given: 'a crash after TakeLock (nothing touched yet)',
    input: locked(restoring, { pods: [pod(0), pod(1, { running: false })], pvcs: [pvc(0), pvc(1)] }),
    expect: { kind: 'RetainPVC', pvc: 'demo-0-data' },
  },
  {
    given: 'a crash after the last RetainPVC',
    input: locked(restoring, {
      pods: [pod(0), pod(1, { running: false })],
      pvcs: [retained(0), retained(1)],
    }),
    expect: { kind: 'DeletePod', pod: 'demo-0' },
  },
  {
    given: 'a crash after DeletePod (the Pod gone, another left)',
    input: locked(restoring, { pods: [pod(1, { running: false })], pvcs: [retained(0), retained(1)] }),
    expect: { kind: 'DeletePod', pod: 'demo-1' },
  },
  {
    given: 'a crash after the seed CreatePVC: the Pod goes on that PVC (no second seed)',
    input: stopped({ pvcs: [retained(0), seedPvc] }),
    expect: { kind: 'CreatePod', member: 'demo-3', token: RESTORE_TOKEN },
  },
  {
    given: 'a crash after the seed CreatePod',
    input: stopped({ pvcs: [retained(0), seedPvc], pods: [seedPod] }),
    expect: { kind: 'Wait', reason: 'SeedStarting' },
  },
  {
    given: 'a crash after ReleaseToPlanner (the lock says Growing)',
    input: stopped({
      cluster: { ...stopped().cluster, restore: restoreLock('Growing') },
      pvcs: [retained(0), seedPvc],
      pods: [{ ...seedPod, running: true, ready: true }],
      etcd: etcd([member(3)]),
    }),
    expect: { kind: 'MarkExisting', member: 'demo-3' },
  },
  {
    given: 'a crash after DeleteRetainedPVC (that PVC deleting, another left)',
    input: steady(3, {
      cluster: { ...steady(3).cluster, restore: restoreLock('Completed'), whenScaled: 'Delete' },
      pvcs: [...steady(3).pvcs, retained(3, 'r1', { terminating: true }), retained(4)],
    }),
    expect: { kind: 'DeleteRetainedPVC', pvc: 'demo-4-data' },
  },
  {
    given: 'a crash after MarkAbandonedPVC (one marked, one left)',
    input: locked(restoreLock('Abandoned'), {
      pvcs: [retained(0, 'r1', { abandonedBy: 'r1' }), retained(1)],
    }),
    expect: { kind: 'MarkAbandonedPVC', pvc: 'demo-1-data' },
  },
  {
    given:
      'a crash after ClearRestoreLock, whenScaled Delete: the retained PVCs are nobody’s (never deleted)',
    input: steady(3, {
      cluster: cluster({ size: 3, whenScaled: 'Delete', knownMembers: ['demo-0', 'demo-1', 'demo-2'] }),
      pvcs: [...steady(3).pvcs, retained(3), retained(4)],
    }),
    expect: { kind: 'Steady' },
  },
];

function table(title: string, rows: readonly Case[]): void {
  describe(title, () => {
    for (const { given, input, expect } of rows) {
      it(`GIVEN ${given} THEN ${expect.kind}`, () => {
        // WHEN
        const action = planMembership(input) as unknown as Record<string, unknown>;
        // THEN
        for (const [key, value] of Object.entries(expect)) {
          assert.deepEqual(action[key], value, `${key} of ${JSON.stringify(action)}`);
        }
      });
    }
  });
}

table('planMembership: the restore branch, step by step', cases);
table('planMembership: the restore branch resumes after a crash between two steps', crashes);

describe('planRestoreLock', () => {
  it('GIVEN no lock THEN nothing (steps 3-16 decide)', () => {
    assert.equal(planRestoreLock(steady(3)), undefined);
  });
  it('GIVEN the lock Growing THEN nothing (steps 3-16 grow the seed)', () => {
    const growing = steady(1);
    assert.equal(
      planRestoreLock({ ...growing, cluster: { ...growing.cluster, restore: restoreLock('Growing') } }),
      undefined,
    );
  });
});
