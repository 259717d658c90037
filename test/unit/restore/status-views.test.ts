// The EtcdRestore status after each kind of step, and the views the planner reads (pure).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1ContainerStateTerminated, V1Pod } from '@kubernetes/client-node';
import { pino } from 'pino';
import type { EtcdRestore } from '../../../controller/etcdrestore/api.js';
import { executeRestore } from '../../../controller/etcdrestore/execute.js';
import { buildRestoreStatus } from '../../../controller/etcdrestore/status.js';
import { sourceProblem, toMemberPodView, toMemberPvcView } from '../../../controller/etcdrestore/views.js';

const now = new Date('2025-01-02T03:04:05.678Z');
const restore = (status: EtcdRestore['status'] = undefined): EtcdRestore => ({
  apiVersion: 'etcd.gitops.dev/v1alpha1',
  kind: 'EtcdRestore',
  metadata: { name: 'r1', namespace: 'ns', uid: 'u1', generation: 2 },
  spec: { clusterName: 'main', backup: { bucket: 'b', key: 'k', credentialsSecretName: 's' } },
  ...(status ? { status } : {}),
});
const condition = (status: ReturnType<typeof buildRestoreStatus>, type: string) =>
  status?.conditions?.find((c) => c.type === type);

describe('buildRestoreStatus', () => {
  it('GIVEN a refusal THEN Failed, Degraded and Stalled name the reason, completedAt is set', () => {
    const status = buildRestoreStatus(
      restore(),
      { kind: 'Refuse', reason: 'ClusterNotFound', message: 'EtcdCluster main does not exist' },
      {},
      now,
    );
    assert.equal(status?.phase, 'Failed');
    assert.equal(condition(status, 'Degraded')?.status, 'True');
    assert.equal(condition(status, 'Degraded')?.reason, 'ClusterNotFound');
    assert.equal(condition(status, 'Stalled')?.status, 'True');
    assert.equal(condition(status, 'Ready')?.status, 'False');
    assert.equal(status?.completedAt, '2025-01-02T03:04:05Z');
    assert.equal(condition(status, 'Ready')?.observedGeneration, 2);
  });

  it('GIVEN a verified backup THEN Restoring with the exact key and the revision as a number', () => {
    const status = buildRestoreStatus(
      restore({ phase: 'Verifying', startedAt: '2025-01-01T00:00:00Z' }),
      { kind: 'Verify' },
      { verified: { key: 'ns/main/x.db', revision: '1234' } },
      now,
    );
    assert.equal(status?.phase, 'Restoring');
    assert.equal(status?.backupKey, 'ns/main/x.db');
    assert.equal(status?.revision, 1234);
    assert.equal(status?.startedAt, undefined, 'startedAt is written once');
  });

  it('GIVEN a failed verification THEN Failed with the verification reason', () => {
    const status = buildRestoreStatus(
      restore({ phase: 'Verifying' }),
      { kind: 'Verify' },
      { failed: { reason: 'ChecksumMismatch', message: 'object sha256 differs' } },
      now,
    );
    assert.equal(status?.phase, 'Failed');
    assert.equal(condition(status, 'Degraded')?.reason, 'ChecksumMismatch');
  });

  it('GIVEN S3 is unreachable THEN the phase stays and Degraded says so while it retries', () => {
    const status = buildRestoreStatus(
      restore({ phase: 'Verifying' }),
      { kind: 'Verify' },
      { retrying: { reason: 'S3Unavailable', message: 'connection refused' } },
      now,
    );
    assert.equal(status?.phase, 'Verifying');
    assert.equal(condition(status, 'Degraded')?.status, 'True');
    assert.equal(condition(status, 'Stalled')?.status, 'False');
  });

  for (const [name, stalled] of [
    ['a retry may clear', false],
    ['only the user clears', true],
  ] as const) {
    it(`GIVEN the seed fails with a reason ${name} THEN Degraded, ${stalled ? 'Stalled and not Progressing' : 'Progressing and not Stalled'}; the phase stays`, () => {
      const status = buildRestoreStatus(
        restore({ phase: 'Restoring' }),
        {
          kind: 'Wait',
          reason: 'SeedRestoreFailing',
          message: 'the seed main-3 could not restore',
          requeueAfterMs: 5000,
          degraded: true,
          ...(stalled ? { stalled: true as const } : {}),
        },
        {},
        now,
      );
      assert.equal(status?.phase, 'Restoring');
      assert.equal(condition(status, 'Degraded')?.status, 'True');
      assert.equal(condition(status, 'Stalled')?.status, stalled ? 'True' : 'False');
      assert.equal(condition(status, 'Stalled')?.reason, stalled ? 'SeedRestoreFailing' : 'AsExpected');
      assert.equal(condition(status, 'Progressing')?.status, stalled ? 'False' : 'True');
      assert.equal(condition(status, 'Reconciling')?.status, stalled ? 'False' : 'True');
      assert.equal(status?.completedAt, undefined);
    });
  }

  it('GIVEN another restore holds the cluster THEN Pending with Progressing False, reason WaitingForRestore', () => {
    const status = buildRestoreStatus(
      restore(),
      {
        kind: 'Wait',
        reason: 'WaitingForRestore',
        message: 'EtcdRestore r0 is restoring',
        requeueAfterMs: 5000,
      },
      {},
      now,
    );
    assert.equal(status?.phase, 'Pending');
    assert.equal(condition(status, 'Progressing')?.status, 'False');
    assert.equal(condition(status, 'Progressing')?.reason, 'WaitingForRestore');
  });

  it('GIVEN Complete THEN Completed and Ready; an unchanged condition keeps its lastTransitionTime', () => {
    const earlier = '2025-01-01T00:00:00Z';
    const previous = restore({
      phase: 'Restoring',
      conditions: [
        { type: 'Degraded', status: 'False', reason: 'AsExpected', message: '', lastTransitionTime: earlier },
      ],
    });
    const status = buildRestoreStatus(previous, { kind: 'Complete' }, {}, now);
    assert.equal(status?.phase, 'Completed');
    assert.equal(condition(status, 'Ready')?.status, 'True');
    assert.equal(condition(status, 'Degraded')?.lastTransitionTime, earlier);
    assert.equal(condition(status, 'Ready')?.lastTransitionTime, '2025-01-02T03:04:05Z');
  });

  it('GIVEN Done THEN nothing is written', () =>
    assert.equal(buildRestoreStatus(restore({ phase: 'Completed' }), { kind: 'Done' }, {}, now), undefined));

  it('GIVEN TakeLock THEN Restoring, saying that the membership controller acts now', () => {
    const status = buildRestoreStatus(
      restore({ phase: 'Restoring' }),
      {
        kind: 'TakeLock',
        token: 't',
        source: { backup: { bucket: 'b', key: 'k', credentialsSecretName: 's' } },
      },
      {},
      now,
    );
    assert.equal(status?.phase, 'Restoring');
    assert.equal(condition(status, 'Progressing')?.reason, 'Restoring');
    assert.match(
      status?.message ?? '',
      /membership controller stops the old members and seeds from s3:\/\/b\/k$/,
    );
  });

  it('GIVEN the lock handed back or abandoned THEN this restore’s status is not rewritten', () => {
    const completed = restore({ phase: 'Completed' });
    assert.equal(buildRestoreStatus(completed, { kind: 'ReleaseLock' }, {}, now), undefined);
    const waiting = restore({ phase: 'Pending' });
    const abandon = { kind: 'AbandonLock', holder: 'r0', phase: 'Restoring' } as const;
    assert.equal(buildRestoreStatus(waiting, abandon, {}, now), undefined);
  });

  it('GIVEN a report of the membership controller’s progress THEN Restoring, Progressing True with that reason', () => {
    const status = buildRestoreStatus(
      restore({ phase: 'Restoring' }),
      { kind: 'Wait', reason: 'StoppingMembers', message: 'retains 1 old PVC(s)', requeueAfterMs: 1000 },
      {},
      now,
    );
    assert.equal(status?.phase, 'Restoring');
    assert.equal(condition(status, 'Progressing')?.status, 'True');
    assert.equal(condition(status, 'Progressing')?.reason, 'StoppingMembers');
    assert.equal(condition(status, 'Degraded')?.status, 'False');
  });
});

describe('executeRestore: Events of a wait', () => {
  const context = (previous?: string) => ({
    kubeConfig: undefined as never,
    restore: restore({
      phase: 'Restoring',
      ...(previous
        ? {
            conditions: [
              { type: 'Progressing', status: 'True', reason: previous, message: '', lastTransitionTime: '' },
            ],
          }
        : {}),
    }),
    cluster: undefined,
    credentials: async () => ({ credentials: { accessKeyId: 'a', secretAccessKey: 'b' } }),
    log: pino({ level: 'silent' }),
  });
  const wait = (reason: string, degraded = false) =>
    ({ kind: 'Wait', reason, message: `m ${reason}`, requeueAfterMs: 1000, degraded }) as const;

  it('GIVEN a new reason THEN one Normal Event; the same reason again THEN none', async () => {
    const first = await executeRestore(wait('SeedStarting'), context('StoppingMembers'));
    assert.deepEqual(first.event, { type: 'Normal', reason: 'SeedStarting', message: 'm SeedStarting' });
    const again = await executeRestore(wait('SeedStarting'), context('SeedStarting'));
    assert.equal(again.event, undefined);
  });

  it('GIVEN credentials that cannot be had (a web identity without its ServiceAccount) WHEN verifying THEN the restore fails InvalidBackupSource with a Warning Event, having changed nothing', async () => {
    const problem = 'ServiceAccount main-backup (the web identity of spec.backup.webIdentity) does not exist';
    const outcome = await executeRestore(
      { kind: 'Verify' },
      {
        ...context(),
        cluster: { metadata: { name: 'main' }, spec: { version: '3.6.16' } } as never,
        credentials: async () => ({ problem }),
      },
    );
    const failed = { reason: 'InvalidBackupSource', message: `${problem}; nothing was changed` };
    assert.deepEqual(outcome, { event: { type: 'Warning', ...failed }, failed });
  });

  it('GIVEN a degraded wait THEN a Warning Event on every pass', async () => {
    const failing = await executeRestore(wait('SeedRestoreFailing', true), context('SeedRestoreFailing'));
    assert.equal(failing.event?.type, 'Warning');
  });
});

describe('sourceProblem', () => {
  for (const [name, location, problem] of [
    ['a key', { bucket: 'b', key: 'k', credentialsSecretName: 's' }, undefined],
    ['a prefix', { bucket: 'b', latestUnderPrefix: 'p/', credentialsSecretName: 's' }, undefined],
    ['both', { bucket: 'b', key: 'k', latestUnderPrefix: 'p/', credentialsSecretName: 's' }, /got both/],
    ['neither', { bucket: 'b', credentialsSecretName: 's' }, /got neither/],
    ['no Secret name', { bucket: 'b', key: 'k', credentialsSecretName: '' }, /credentialsSecretName/],
    [
      'a web identity',
      { bucket: 'b', key: 'k', webIdentity: { roleArn: 'arn:aws:iam::1:role/r' } },
      undefined,
    ],
    [
      'a Secret and a web identity',
      {
        bucket: 'b',
        key: 'k',
        credentialsSecretName: 's',
        webIdentity: { roleArn: 'arn:aws:iam::1:role/r' },
      },
      /^spec.backup: set exactly one of 'credentialsSecretName' .* or 'webIdentity' .*, got both$/,
    ],
    [
      'a web identity without a role ARN',
      { bucket: 'b', key: 'k', webIdentity: { roleArn: 'r' } },
      /^spec.backup: 'webIdentity.roleArn' must be a role ARN .*, got "r"$/,
    ],
  ] as const) {
    it(`${problem ? 'fails when the source has' : 'accepts'} ${name}`, () => {
      const found = sourceProblem(location);
      if (problem) assert.match(found ?? '', problem);
      else assert.equal(found, undefined);
    });
  }
});

describe('member views', () => {
  /** A seed Pod whose `restore` init container last exited with `terminated`. */
  const failedSeed = (terminated: V1ContainerStateTerminated, restartCount: number): V1Pod => ({
    metadata: {
      name: 'main-3',
      labels: { 'etcd.gitops.dev/member': 'main-3' },
      annotations: { 'etcd.gitops.dev/cluster-token': 't' },
    },
    status: {
      initContainerStatuses: [
        { name: 'restore', image: 'x', imageID: '', ready: false, restartCount, lastState: { terminated } },
      ],
    },
  });

  it('GIVEN a seed Pod whose restore init container failed THEN the failure and the token are seen', () => {
    const view = toMemberPodView(failedSeed({ exitCode: 5, reason: 'Error' }, 2));
    assert.equal(view?.token, 't');
    assert.equal(view?.initFailure, 'exit code 5 (ChecksumMismatch) after 2 restart(s)');
    assert.equal(view?.initFailureTransient, undefined, 'a checksum fails the same way on every retry');
  });

  it('GIVEN a seed Pod whose restore init container could not reach S3 THEN the failure is seen as transient', () => {
    const message = '{"level":50,"code":"S3Unavailable","reason":"connect ECONNREFUSED"}';
    const view = toMemberPodView(failedSeed({ exitCode: 4, reason: 'Error', message }, 1));
    assert.match(view?.initFailure ?? '', /S3Unavailable/);
    assert.equal(view?.initFailureTransient, true);
  });

  it('GIVEN a retained PVC without member label THEN its member comes from its name', () =>
    assert.deepEqual(
      toMemberPvcView({
        metadata: { name: 'main-1-data', labels: { 'etcd.gitops.dev/retained-by-restore': 'r1' } },
      }),
      { name: 'main-1-data', member: 'main-1', terminating: false, retainedBy: 'r1' },
    ));
});
