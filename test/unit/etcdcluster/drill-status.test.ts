// Restore drills in the EtcdCluster status (docs/design/restore-drill.md, "What the controller makes of it"): the
// attempt a drill Pod tells, `lastDrill` that only moves forward and goes with its CronJob, the `DrillFailed` row of
// BackupReady, the Events, and the part the pass builds from the CronJobs and Pods it read.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1ContainerStatus, V1CronJob, V1Pod } from '@kubernetes/client-node';
import type { Condition, EtcdBackupScheduleStatus } from '../../../constructs/imports/etcd.gitops.dev.js';
import { encodeReport } from '../../../controller/backup/termination-report.js';
import { KILLED } from '../../../controller/etcdcluster/backup-attempts.js';
import {
  BACKUP_READY,
  type BackupSchedule,
  backupReadiness,
} from '../../../controller/etcdcluster/backup-status.js';
import { type DrillAttempt, drillAttemptOf } from '../../../controller/etcdcluster/drill-attempts.js';
import { drillRecord } from '../../../controller/etcdcluster/drill-status.js';
import { backupEvents, backupPart } from '../../../controller/etcdcluster/status-backups.js';

type Terminated = { exitCode: number; finishedAt?: Date; message?: string; reason?: string };

const at = (iso: string) => new Date(iso);

function status(name: string, terminated: Terminated | undefined): V1ContainerStatus {
  return {
    name,
    image: 'x',
    imageID: 'x',
    ready: false,
    restartCount: 0,
    state: terminated ? { terminated } : { waiting: { reason: 'PodInitializing' } },
  };
}

/** A drill Pod: `fetch` (init), `etcd` (sidecar), `check`. */
function drillPod(name: string, fetch: Terminated | undefined, check: Terminated | undefined): V1Pod {
  return {
    metadata: {
      name,
      labels: {
        'app.kubernetes.io/name': 'etcd',
        'app.kubernetes.io/instance': 'main',
        'app.kubernetes.io/component': 'restore-drill',
        'etcd.gitops.dev/backup-schedule': 'main-backup',
        'job-name': `${name}-job`,
      },
    },
    status: {
      initContainerStatuses: [status('fetch', fetch), status('etcd', check ? { exitCode: 0 } : undefined)],
      containerStatuses: [status('check', check)],
    },
  } as V1Pod;
}

const restored = encodeReport({
  v: 1,
  outcome: 'Succeeded',
  key: 'db/main/20261201T040000Z-rev42.db',
  revision: '42',
  servedRevision: '1000042',
  keys: 17,
  sizeBytes: 4096,
  durationMs: 9000,
});
const mismatch = encodeReport({
  v: 1,
  outcome: 'Failed',
  code: 'CHECKSUM_MISMATCH',
  reason: 's3://b/db/main/20261201T040000Z-rev42.db: sha256 differs',
});
const fetched = { exitCode: 0, finishedAt: at('2026-12-01T04:00:03Z') };

describe('drillAttemptOf', () => {
  it('GIVEN a drill whose check succeeded with a report THEN a success with key, revisions and the key count', () => {
    const attempt = drillAttemptOf(
      drillPod('d1', fetched, { exitCode: 0, finishedAt: at('2026-12-01T04:00:09Z'), message: restored }),
    );
    assert.deepEqual(attempt, {
      schedule: 'main-backup',
      job: 'd1-job',
      pod: 'd1',
      time: '2026-12-01T04:00:09Z',
      outcome: 'Succeeded',
      key: 'db/main/20261201T040000Z-rev42.db',
      revision: '42',
      servedRevision: '1000042',
      keys: 17,
    });
  });

  it('GIVEN a drill whose fetch failed with a report THEN that failure, at the fetch container end', () => {
    const attempt = drillAttemptOf(
      drillPod('d1', { exitCode: 5, finishedAt: at('2026-12-01T04:00:02Z'), message: mismatch }, undefined),
    );
    assert.equal(attempt?.outcome, 'Failed');
    assert.deepEqual(attempt?.outcome === 'Failed' && [attempt.time, attempt.code, attempt.reason], [
      '2026-12-01T04:00:02Z',
      'CHECKSUM_MISMATCH',
      's3://b/db/main/20261201T040000Z-rev42.db: sha256 differs',
    ]);
  });

  for (const [what, terminated, code, reason] of [
    [
      'the check exited REVISION_MISMATCH without a report',
      { exitCode: 10, reason: 'Error' },
      'REVISION_MISMATCH',
      'ended with Error, exit code 10 and no report',
    ],
    [
      'the check was OOM-killed',
      { exitCode: 137, reason: 'OOMKilled' },
      KILLED,
      'the container was stopped: OOMKilled, exit code 137',
    ],
  ] as const) {
    it(`GIVEN ${what} THEN ${code}`, () => {
      const attempt = drillAttemptOf(
        drillPod('d1', fetched, { ...terminated, finishedAt: at('2026-12-01T04:00:09Z') }),
      );
      assert.deepEqual(attempt?.outcome === 'Failed' && [attempt.code, attempt.reason], [code, reason]);
    });
  }

  it('GIVEN a drill still running, or a backup Pod THEN no drill attempt', () => {
    assert.equal(drillAttemptOf(drillPod('d1', fetched, undefined)), undefined);
    assert.equal(drillAttemptOf(drillPod('d1', undefined, undefined)), undefined);
    const backupPod = {
      metadata: { name: 'b', labels: { 'etcd.gitops.dev/backup-schedule': 'main-backup' } },
      status: {
        containerStatuses: [status('backup', { exitCode: 0, finishedAt: at('2026-12-01T04:00:09Z') })],
      },
    } as V1Pod;
    assert.equal(drillAttemptOf(backupPod), undefined);
  });
});

const success = (time: string, pod = 'd'): DrillAttempt => ({
  schedule: 'main-backup',
  job: `${pod}-job`,
  pod,
  time,
  outcome: 'Succeeded',
  key: 'k',
  revision: '42',
  servedRevision: '1000042',
  keys: 17,
});
const failure = (time: string, pod = 'd'): DrillAttempt => ({
  schedule: 'main-backup',
  job: `${pod}-job`,
  pod,
  time,
  outcome: 'Failed',
  code: 'CHECKSUM_MISMATCH',
  reason: 'sha256 differs',
});

describe('drillRecord', () => {
  it('GIVEN no drill CronJob THEN no record, whatever was recorded or seen', () => {
    const before = {
      time: '2026-12-01T04:00:00Z',
      job: 'j',
      outcome: 'Failed' as const,
      code: 'X',
      reason: 'y',
    };
    assert.deepEqual(drillRecord(before, false, [failure('2026-12-02T04:00:00Z')]), {
      newFailures: [],
      recovered: false,
    });
  });

  it('GIVEN a recorded drill and only older or equal Pods THEN the record stands and no new failure', () => {
    const before = { time: '2026-12-02T04:00:00Z', job: 'j2', outcome: 'Succeeded' as const, keys: 3 };
    const record = drillRecord(before, true, [
      failure('2026-12-01T04:00:00Z'),
      success('2026-12-02T04:00:00Z'),
    ]);
    assert.deepEqual(record, { lastDrill: before, newFailures: [], recovered: false });
  });

  it('GIVEN a failed record and a newer success THEN the success is recorded and the drill recovered', () => {
    const before = {
      time: '2026-12-01T04:00:00Z',
      job: 'j1',
      outcome: 'Failed' as const,
      code: 'X',
      reason: 'y',
    };
    const record = drillRecord(before, true, [success('2026-12-02T04:00:09Z', 'd2')]);
    assert.deepEqual(record, {
      lastDrill: {
        time: '2026-12-02T04:00:09Z',
        job: 'd2-job',
        outcome: 'Succeeded',
        key: 'k',
        revision: '42',
        servedRevision: '1000042',
        keys: 17,
      },
      newFailures: [],
      recovered: true,
    });
  });

  it('GIVEN two failures newer than the record THEN the newest is recorded and both are new, oldest first', () => {
    const record = drillRecord(undefined, true, [
      failure('2026-12-02T04:00:00Z', 'd2'),
      failure('2026-12-01T04:00:00Z', 'd1'),
    ]);
    assert.equal(record.lastDrill?.job, 'd2-job');
    assert.deepEqual(
      record.newFailures.map((f) => f.pod),
      ['d1', 'd2'],
    );
    assert.equal(record.recovered, false);
  });
});

const schedule: BackupSchedule = {
  name: 'main-backup',
  cron: '0 * * * *',
  createdAt: '2026-12-01T00:00:00Z',
  lastSuccessfulTime: '2026-12-01T04:00:05Z',
};
const backedUp: EtcdBackupScheduleStatus = {
  schedule: 'main-backup',
  cron: '0 * * * *',
  lastAttempt: { time: '2026-12-01T04:00:05Z', job: 'b', outcome: 'Succeeded' },
  lastSuccess: { time: '2026-12-01T04:00:05Z', job: 'b', key: 'db/main/x.db' },
};
const now = at('2026-12-01T04:30:00Z');

describe('BackupReady with drills', () => {
  it('GIVEN backups that succeed and a failed drill THEN False DrillFailed naming the schedule, Job, code and reason', () => {
    const entry = {
      ...backedUp,
      lastDrill: {
        time: '2026-12-01T04:20:00Z',
        job: 'main-backup-drill-1',
        outcome: 'Failed' as const,
        code: 'CHECKSUM_MISMATCH',
        reason: 'sha256 differs',
      },
    };
    assert.deepEqual(backupReadiness([entry], [schedule], now), {
      type: BACKUP_READY,
      status: 'False',
      reason: 'DrillFailed',
      message:
        'the newest restore drill of backup schedule main-backup failed (Job main-backup-drill-1, ended 2026-12-01T04:20:00Z): CHECKSUM_MISMATCH: sha256 differs; its newest backup is not shown to restore',
    });
  });

  it('GIVEN a failed drill and a failed backup THEN BackupFailed comes first', () => {
    const entry: EtcdBackupScheduleStatus = {
      ...backedUp,
      lastAttempt: { time: '2026-12-01T04:25:00Z', job: 'b2', outcome: 'Failed' },
      lastFailure: { time: '2026-12-01T04:25:00Z', job: 'b2', code: 'S3_ERROR', reason: '403' },
      lastDrill: { time: '2026-12-01T04:20:00Z', job: 'd', outcome: 'Failed', code: 'X', reason: 'y' },
    };
    assert.equal(
      backupReadiness([entry], [{ ...schedule, lastSuccessfulTime: undefined }], now)?.reason,
      'BackupFailed',
    );
  });

  it('GIVEN only a suspended schedule WHEN its drill failed THEN False DrillFailed; WHEN it succeeded THEN no condition', () => {
    const suspended = { ...schedule, suspended: true };
    const failedEntry: EtcdBackupScheduleStatus = {
      ...backedUp,
      lastDrill: { time: '2026-12-01T04:20:00Z', job: 'd', outcome: 'Failed', code: 'X', reason: 'y' },
    };
    assert.equal(backupReadiness([failedEntry], [suspended], now)?.reason, 'DrillFailed');
    const goodEntry: EtcdBackupScheduleStatus = {
      ...backedUp,
      lastDrill: { time: '2026-12-01T04:20:00Z', job: 'd', outcome: 'Succeeded' },
    };
    assert.equal(backupReadiness([goodEntry], [suspended], now), undefined);
  });

  it('GIVEN a succeeded drill THEN True BackupsSucceeding', () => {
    const entry = {
      ...backedUp,
      lastDrill: { time: '2026-12-01T04:20:00Z', job: 'd', outcome: 'Succeeded' as const },
    };
    assert.equal(backupReadiness([entry], [schedule], now)?.status, 'True');
  });
});

function cronJob(name: string, component: string, labels: Record<string, string> = {}): V1CronJob {
  return {
    metadata: {
      name,
      creationTimestamp: at('2026-12-01T00:00:00Z'),
      labels: { 'app.kubernetes.io/component': component },
    },
    spec: {
      schedule: '0 * * * *',
      jobTemplate: { spec: { template: { metadata: { labels }, spec: { containers: [] } } } },
    },
    status: { lastSuccessfulTime: at('2026-12-01T04:00:05Z') },
  } as V1CronJob;
}

describe('backupPart with a drill', () => {
  const cronJobs = [
    cronJob('main-backup', 'backup', { 'etcd.gitops.dev/backup-schedule': 'main-backup' }),
    cronJob('main-backup-drill', 'restore-drill', { 'etcd.gitops.dev/backup-schedule': 'main-backup' }),
  ];
  const failedDrill = drillPod(
    'main-backup-drill-1-x',
    { exitCode: 5, finishedAt: at('2026-12-01T04:20:00Z'), message: mismatch },
    undefined,
  );

  it('GIVEN a drill CronJob and its failed Pod THEN the drill CronJob is no schedule, lastDrill is set, BackupReady is False DrillFailed and one Warning Event', () => {
    const part = backupPart({ backups: [backedUp] }, { cronJobs, pods: [failedDrill] }, now);
    assert.deepEqual(
      part.backups.map((entry) => entry.schedule),
      ['main-backup'],
    );
    assert.equal(part.backups[0]?.lastDrill?.code, 'CHECKSUM_MISMATCH');
    assert.equal(part.condition?.reason, 'DrillFailed');
    const events = backupEvents([], part);
    assert.deepEqual(
      events.map((event) => [event.type, event.reason]),
      [['Warning', 'DrillFailed']],
    );
    assert.match(
      events[0]?.message ?? '',
      /restore drill of backup schedule main-backup failed \(Job main-backup-drill-1-x-job/,
    );
  });

  it('GIVEN the failure recorded and then a successful drill THEN no second Warning, a Normal DrillSucceeded and BackupReady True', () => {
    const first = backupPart({ backups: [backedUp] }, { cronJobs, pods: [failedDrill] }, now);
    const conditions: Condition[] = [{ ...(first.condition as Condition), lastTransitionTime: 'x' }];
    const succeeded = drillPod('main-backup-drill-2-y', fetched, {
      exitCode: 0,
      finishedAt: at('2026-12-01T04:28:00Z'),
      message: restored,
    });
    const again = backupPart({ backups: first.backups }, { cronJobs, pods: [failedDrill, succeeded] }, now);
    assert.equal(again.condition?.status, 'True');
    assert.deepEqual(
      backupEvents(conditions, again).map((event) => [event.type, event.reason]),
      [
        ['Normal', 'DrillSucceeded'],
        ['Normal', 'BackupRecovered'],
      ],
    );
  });

  it('GIVEN the drill CronJob removed THEN lastDrill goes and BackupReady no longer says DrillFailed', () => {
    const first = backupPart({ backups: [backedUp] }, { cronJobs, pods: [failedDrill] }, now);
    const without = backupPart(
      { backups: first.backups },
      { cronJobs: [cronJobs[0] as V1CronJob], pods: [] },
      now,
    );
    assert.equal(without.backups[0]?.lastDrill, undefined);
    assert.equal(without.condition?.status, 'True');
  });
});
