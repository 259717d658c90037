// The EtcdRestore planner, table by table: every refusal, the lock, each step of docs/design/restore.md and the
// resumption after a crash between two steps (the observed state of that moment gives the next step). After the
// lock it only reports what the membership planner does (test/unit/etcdcluster/plan-restore.test.ts): no action of
// this planner writes a Pod or PVC (its action type has none).
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
const backup = {
  bucket: 'backups',
  key: 'ns/main/b.db',
  endpoint: 'http://minio.example:9000',
  region: 'eu-1',
  forcePathStyle: true,
  credentialsSecretName: 's3',
};
const source = { backup };
const lock = { name: 'r1', uid, token, source, phase: 'Restoring' as const };

const cluster = (over: Partial<TargetView> = {}): TargetView => ({
  name: 'main',
  uid: 'cccccccc-0000',
  deleting: false,
  paused: false,
  size: 3,
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
      backup,
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
  check(
    '3. Restoring without a lock → TakeLock with a fresh token and spec.backup at the verified key as the source',
    input({ phase: 'Restoring' }),
    { kind: 'TakeLock', token: 'main-aaaaaaaa-abc123', source: { backup } },
  );
  check(
    '3. a restore of the newest backup under a prefix → the source names the verified key, never the prefix',
    input({
      phase: 'Restoring',
      restore: {
        ...input({ phase: 'Restoring' }).restore,
        backup: { bucket: 'backups', latestUnderPrefix: 'ns/main/', credentialsSecretName: 's3' },
        backupKey: 'ns/main/c.db',
      },
    }),
    {
      kind: 'TakeLock',
      source: { backup: { bucket: 'backups', key: 'ns/main/c.db', credentialsSecretName: 's3' } },
    },
  );
  check(
    '4. lock taken → reports that the membership controller retains the old PVCs and stops the old Pods',
    input({ phase: 'Restoring', cluster: cluster({ lock }) }),
    {
      kind: 'Wait',
      reason: 'StoppingMembers',
      message: 'the membership controller retains 3 old PVC(s) and stops 3 old member Pod(s)',
    },
  );
  check(
    '4. every PVC retained, an old Pod terminating → still stopping',
    input({
      phase: 'Restoring',
      cluster: cluster({ lock }),
      pvcs: retained,
      pods: [pod(2, { terminating: true })],
    }),
    { kind: 'Wait', reason: 'StoppingMembers' },
  );
  check(
    '5. old Pods gone, no seed yet → Seeding',
    input({ phase: 'Restoring', cluster: cluster({ lock }), pvcs: retained, pods: [], etcd: undefined }),
    {
      kind: 'Wait',
      reason: 'Seeding',
      message: 'the membership controller creates the seed that restores s3://backups/ns/main/b.db',
    },
  );
  const seedPvc = pvc(3, { token });
  const seedPod = pod(3, { token });
  check(
    '5. seed Pod restoring → SeedStarting',
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
    '5. the seed init container fails with a reason a retry may clear → SeedRestoreFailing, degraded, not stalled',
    input({
      phase: 'Restoring',
      cluster: cluster({ lock }),
      pvcs: [...retained, seedPvc],
      pods: [{ ...seedPod, initFailure: 'exit code 4 (S3Unavailable)', initFailureTransient: true }],
      etcd: undefined,
    }),
    { kind: 'Wait', reason: 'SeedRestoreFailing', degraded: true, stalled: undefined },
  );
  check(
    '5. the seed init container fails with a reason only the user clears → SeedRestoreFailing, degraded, stalled',
    input({
      phase: 'Restoring',
      cluster: cluster({ lock }),
      pvcs: [...retained, seedPvc],
      pods: [{ ...seedPod, initFailure: 'exit code 4 (BackupNotFound)' }],
      etcd: undefined,
    }),
    { kind: 'Wait', reason: 'SeedRestoreFailing', degraded: true, stalled: true },
  );
  check(
    '6. seed Ready → SeedReady (the membership planner hands the cluster to its usual steps)',
    input({
      phase: 'Restoring',
      cluster: cluster({ lock }),
      pvcs: [...retained, seedPvc],
      pods: [{ ...seedPod, ready: true }],
      etcd: { quorum: true, members: 1, healthyVoters: 1, learners: 0 },
    }),
    { kind: 'Wait', reason: 'SeedReady' },
  );
  check(
    '4-6. the cluster paused after the lock was taken → waits, degraded (the membership planner changes nothing)',
    input({ phase: 'Restoring', cluster: cluster({ lock, paused: true }) }),
    { kind: 'Wait', reason: 'ClusterPaused', degraded: true },
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
    '7. Completed with the lock still Growing → ReleaseLock (its phase becomes Completed)',
    input({ phase: 'Completed', cluster: growing }),
    { kind: 'ReleaseLock' },
  );
  check(
    '7. Completed and the lock handed back → done (the membership planner applies whenScaled and clears it)',
    input({ phase: 'Completed', cluster: cluster({ lock: { ...lock, phase: 'Completed' } }) }),
    { kind: 'Done' },
  );
  check(
    '7. Completed while another restore holds the lock → done',
    input({ phase: 'Completed', cluster: cluster({ lock: { ...lock, uid: 'other', phase: 'Growing' } }) }),
    { kind: 'Done' },
  );
  check('Failed is terminal', input({ phase: 'Failed', cluster: undefined }), { kind: 'Done' });
});

describe('planRestore: resumption after a crash between steps', () => {
  check(
    'GIVEN the lock was written but the restore status was not THEN the lock (ours by uid) wins: it reports',
    input({ phase: 'Restoring', cluster: cluster({ lock }), etcd: lostQuorum }),
    { kind: 'Wait', reason: 'StoppingMembers' },
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
    'GIVEN our lock without token and source (taken before issue 12) THEN TakeLock again with the verified source and a token',
    input({ phase: 'Restoring', cluster: cluster({ lock: { name: 'r1', uid, phase: 'Restoring' } }) }),
    { kind: 'TakeLock', token: 'main-aaaaaaaa-abc123', source: { backup } },
  );
  check(
    'GIVEN our lock with a token but without source THEN the token is kept',
    input({
      phase: 'Restoring',
      cluster: cluster({ lock: { name: 'r1', uid, token: 'kept', phase: 'Restoring' } }),
    }),
    { kind: 'TakeLock', token: 'kept', source: { backup } },
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
    'GIVEN the lock says Completed but the restore status does not THEN Completed is recorded again',
    input({ phase: 'Restoring', cluster: cluster({ lock: { ...lock, phase: 'Completed' } }) }),
    { kind: 'Complete' },
  );
  check(
    'GIVEN the lock was cleared THEN a Completed restore is done (a new restore may take the cluster)',
    input({
      phase: 'Completed',
      cluster: cluster(),
      etcd: { quorum: true, members: 3, healthyVoters: 3, learners: 0 },
    }),
    { kind: 'Done' },
  );
});

describe('planRestore: the lock of a deleted restore (orphaned lock)', () => {
  const gone = { name: 'r0', uid: 'bbbbbbbb-gone', token: 't0', source, phase: 'Restoring' as const };
  check(
    'GIVEN the holder still exists THEN this restore waits (never abandons a live restore’s lock)',
    input({ cluster: cluster({ lock: gone }), etcd: undefined }),
    { kind: 'Wait', reason: 'WaitingForRestore' },
  );
  for (const phase of ['Restoring', 'Growing'] as const) {
    check(
      `GIVEN the holder was deleted while the lock says ${phase} THEN the lock is abandoned`,
      input({ cluster: cluster({ lock: { ...gone, phase } }), etcd: undefined, lockHolderGone: true }),
      { kind: 'AbandonLock', holder: 'r0', phase },
    );
  }
  for (const phase of ['Completed', 'Abandoned'] as const) {
    check(
      `GIVEN the holder was deleted after the lock became ${phase} THEN this restore waits for the membership planner to clear it`,
      input({ cluster: cluster({ lock: { ...gone, phase } }), etcd: undefined, lockHolderGone: true }),
      { kind: 'Wait', reason: 'WaitingForRestore' },
    );
  }
  check(
    'GIVEN a restore deleted and created again under the same name (new uid) THEN the old lock is abandoned',
    input({
      phase: 'Restoring',
      cluster: cluster({ lock: { ...gone, name: 'r1' } }),
      etcd: undefined,
      lockHolderGone: true,
    }),
    { kind: 'AbandonLock', holder: 'r1' },
  );
  check(
    'GIVEN our own lock THEN lockHolderGone never matters (the lock is ours by uid)',
    input({ phase: 'Restoring', cluster: cluster({ lock }), lockHolderGone: true }),
    { kind: 'Wait', reason: 'StoppingMembers' },
  );
});
