// The seed's `restore fetch` failure as the controllers report it: the command's last JSON log line (the kubelet's
// FallbackToLogsOnError termination message), else the reasons its exit code stands for.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1ContainerState, V1Pod } from '@kubernetes/client-node';
import { toPodView } from '../../../controller/etcdcluster/views.js';
import {
  describeRestoreInitFailure,
  isTransientRestoreFailure,
  reasonsOfExitCode,
  restoreInitFailure,
} from '../../../controller/restore/init-failure.js';

const logLine = (fields: Record<string, unknown>) =>
  JSON.stringify({ level: 50, time: 1, command: 'restore', ...fields });

function seedPod(state: V1ContainerState, lastState: V1ContainerState = {}, restartCount = 0): V1Pod {
  return {
    metadata: { name: 'demo-0', labels: { 'etcd.gitops.dev/member': 'demo-0' } },
    status: {
      phase: 'Pending',
      initContainerStatuses: [
        { name: 'restore', image: 'x', imageID: '', ready: false, restartCount, state, lastState },
      ],
    },
  };
}

const failedWith = (exitCode: number, message?: string): V1ContainerState => ({
  terminated: { exitCode, reason: 'Error', ...(message !== undefined ? { message } : {}) },
});
const waiting: V1ContainerState = { waiting: { reason: 'CrashLoopBackOff' } };

describe('restoreInitFailure', () => {
  const cases: { given: string; pod: V1Pod; expect: string | undefined }[] = [
    {
      given: 'the last log line names BackupNotFound (current termination)',
      pod: seedPod(
        failedWith(
          4,
          `${logLine({ msg: 'Fetching' })}\n${logLine({ exitCode: 4, code: 'BackupNotFound', reason: 'no object s3://b/k', msg: 'Restore fetch failed; no data dir was created' })}\n`,
        ),
      ),
      expect: 'exit code 4 (BackupNotFound: no object s3://b/k) after 0 restart(s)',
    },
    {
      given: 'a container in back-off whose last run failed with ChecksumMismatch',
      pod: seedPod(
        waiting,
        failedWith(5, logLine({ code: 'ChecksumMismatch', reason: 'sha256 differs' })),
        3,
      ),
      expect: 'exit code 5 (ChecksumMismatch: sha256 differs) after 3 restart(s)',
    },
    {
      given: 'no message (a kubelet without FallbackToLogsOnError), exit code 4',
      pod: seedPod(waiting, failedWith(4), 1),
      expect: 'exit code 4 (BackupNotFound, AccessDenied or S3Unavailable) after 1 restart(s)',
    },
    {
      given: 'a message whose JSON line was cut by the byte limit, a whole one above it',
      pod: seedPod(
        failedWith(7, `${logLine({ code: 'NotABackup', reason: 'no metadata' })}\n{"level":50,"co`),
      ),
      expect: 'exit code 7 (NotABackup: no metadata) after 0 restart(s)',
    },
    {
      given: 'plain-text output only',
      pod: seedPod(failedWith(8, 'etcdutl: not found\n')),
      expect: 'exit code 8 (RestoreFailed or DataDirNotEmpty) after 0 restart(s)',
    },
    { given: 'a restore that succeeded', pod: seedPod(failedWith(0)), expect: undefined },
    { given: 'a restore still running', pod: seedPod({ running: {} }), expect: undefined },
    {
      given: 'a Pod without the restore init container',
      pod: { metadata: {}, status: {} },
      expect: undefined,
    },
  ];
  for (const { given, pod, expect } of cases) {
    it(`GIVEN ${given} THEN ${expect ?? 'no failure'}`, () => {
      const failure = restoreInitFailure(pod);
      assert.equal(failure ? describeRestoreInitFailure(failure) : undefined, expect);
    });
  }

  it('GIVEN a failed restore init container THEN the member Pod view carries it for the planner', () => {
    const view = toPodView(seedPod(failedWith(4, logLine({ code: 'AccessDenied', reason: 'denied' }))));
    assert.equal(view?.restoreFailure, 'exit code 4 (AccessDenied: denied) after 0 restart(s)');
  });

  it('GIVEN a failed restore init container THEN the member Pod view says whether a retry may clear it', () => {
    const transient = toPodView(
      seedPod(failedWith(4, logLine({ code: 'S3Unavailable', reason: 'timeout' }))),
    );
    assert.equal(transient?.restoreFailureTransient, true);
    const needsUser = toPodView(seedPod(failedWith(4, logLine({ code: 'BackupNotFound', reason: 'gone' }))));
    assert.equal(needsUser?.restoreFailureTransient, undefined);
  });

  it('GIVEN exit codes without a reason of their own THEN they are described, not invented', () => {
    assert.equal(reasonsOfExitCode(1), 'an unexpected error');
    assert.equal(reasonsOfExitCode(137), 'killed by signal 9');
    assert.equal(reasonsOfExitCode(2), 'InvalidArguments');
  });
});

describe('isTransientRestoreFailure (the kubelet retries the init container: may that clear it?)', () => {
  const failure = (exitCode: number, code?: string) => ({
    exitCode,
    restarts: 1,
    ...(code !== undefined ? { code } : {}),
  });
  const cases: { given: string; failure: ReturnType<typeof failure>; expect: boolean }[] = [
    { given: 'S3Unavailable', failure: failure(4, 'S3Unavailable'), expect: true },
    {
      given: 'MemberUnavailable (the survivor did not answer)',
      failure: failure(3, 'MemberUnavailable'),
      expect: true,
    },
    { given: 'BackupNotFound', failure: failure(4, 'BackupNotFound'), expect: false },
    { given: 'AccessDenied', failure: failure(4, 'AccessDenied'), expect: false },
    { given: 'ChecksumMismatch', failure: failure(5, 'ChecksumMismatch'), expect: false },
    { given: 'NotABackup', failure: failure(7, 'NotABackup'), expect: false },
    { given: 'SnapshotFromNewerEtcd', failure: failure(7, 'SnapshotFromNewerEtcd'), expect: false },
    { given: 'WrongMember', failure: failure(7, 'WrongMember'), expect: false },
    { given: 'RestoreFailed', failure: failure(8, 'RestoreFailed'), expect: false },
    { given: 'DataDirNotEmpty', failure: failure(8, 'DataDirNotEmpty'), expect: false },
    { given: 'InvalidArguments', failure: failure(2, 'InvalidArguments'), expect: false },
    {
      given: 'no reason named, exit code 4 (S3Unavailable among its reasons)',
      failure: failure(4),
      expect: true,
    },
    { given: 'no reason named, exit code 3 (MemberUnavailable)', failure: failure(3), expect: true },
    {
      given: 'no reason named, exit code 8 (RestoreFailed or DataDirNotEmpty)',
      failure: failure(8),
      expect: false,
    },
    { given: 'no reason named, exit code 7', failure: failure(7), expect: false },
    { given: 'an internal error (exit code 1)', failure: failure(1), expect: true },
    { given: 'killed by a signal (exit code 137)', failure: failure(137), expect: true },
    { given: 'a reason that is not ours, exit code 5', failure: failure(5, 'Whatever'), expect: false },
    { given: 'a reason that is not ours, exit code 4', failure: failure(4, 'Whatever'), expect: true },
  ];
  for (const { given, failure: input, expect } of cases) {
    it(`GIVEN ${given} THEN ${expect ? 'a retry may clear it' : 'only a change by the user does'}`, () => {
      assert.equal(isTransientRestoreFailure(input), expect);
    });
  }
});
