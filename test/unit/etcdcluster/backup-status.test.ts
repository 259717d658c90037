// The backups part of the EtcdCluster status (docs/design/backup-status.md): attempts read from ended backup Pods,
// records that only move forward, the printer column's time, and BackupReady's table.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1CronJob, V1Pod } from '@kubernetes/client-node';
import { BACKUP_CONTAINER_NAME } from '../../../constructs/conventions/index.js';
import type { Condition } from '../../../constructs/imports/etcd.gitops.dev.js';
import { encodeBackupReport } from '../../../controller/backup/termination-report.js';
import type { EtcdCluster } from '../../../controller/etcdcluster/api.js';
import {
  type BackupAttempt,
  backupAttemptOf,
  KILLED,
} from '../../../controller/etcdcluster/backup-attempts.js';
import {
  BACKUP_READY,
  type BackupSchedule,
  backupReadiness,
  backupRecords,
  lastBackupTime,
} from '../../../controller/etcdcluster/backup-status.js';
import { buildStatus } from '../../../controller/etcdcluster/status.js';
import { backupEvents, backupPart, scheduleOf } from '../../../controller/etcdcluster/status-backups.js';

type Terminated = { exitCode: number; finishedAt?: Date; message?: string; reason?: string };

function pod(
  name: string,
  terminated: Terminated | undefined,
  schedule: string | null = 'main-backup',
): V1Pod {
  return {
    metadata: {
      name,
      labels: {
        ...(schedule ? { 'etcd.gitops.dev/backup-schedule': schedule } : {}),
        'job-name': `${name}-job`,
      },
    },
    status: {
      containerStatuses: [
        {
          name: BACKUP_CONTAINER_NAME,
          image: 'x',
          imageID: 'x',
          ready: false,
          restartCount: 0,
          state: terminated ? { terminated } : { running: {} },
        },
      ],
    },
  } as V1Pod;
}

const at = (iso: string) => new Date(iso);
const ok = encodeBackupReport({
  v: 1,
  outcome: 'Succeeded',
  key: 'db/main/a.db',
  revision: '42',
  sizeBytes: 2048,
  durationMs: 2600,
});
const s3Error = encodeBackupReport({ v: 1, outcome: 'Failed', code: 'S3_ERROR', reason: 'HeadBucket: 403' });

describe('backupAttemptOf', () => {
  it('GIVEN a Pod that succeeded with a report THEN a success with key, revision, size and seconds', () => {
    assert.deepEqual(
      backupAttemptOf(pod('p1', { exitCode: 0, finishedAt: at('2026-11-29T10:00:05Z'), message: ok })),
      {
        schedule: 'main-backup',
        job: 'p1-job',
        pod: 'p1',
        time: '2026-11-29T10:00:05Z',
        outcome: 'Succeeded',
        key: 'db/main/a.db',
        revision: '42',
        sizeBytes: 2048,
        durationSeconds: 3,
      },
    );
  });
  it('GIVEN a Pod that failed with a report THEN its code and reason', () => {
    const attempt = backupAttemptOf(
      pod('p1', { exitCode: 4, finishedAt: at('2026-11-29T10:00:05Z'), message: s3Error }),
    );
    assert.equal(attempt?.outcome, 'Failed');
    assert.deepEqual(attempt?.outcome === 'Failed' && [attempt.code, attempt.reason], [
      'S3_ERROR',
      'HeadBucket: 403',
    ]);
  });
  it('GIVEN a Pod that exited with one of our codes and no report THEN that code, said to have no report', () => {
    const attempt = backupAttemptOf(
      pod('p1', { exitCode: 3, finishedAt: at('2026-11-29T10:00:05Z'), reason: 'Error' }),
    );
    assert.deepEqual(attempt?.outcome === 'Failed' && [attempt.code, attempt.reason], [
      'ETCD_UNAVAILABLE',
      'ended with Error, exit code 3 and no report',
    ]);
  });
  it('GIVEN a Pod OOM-killed THEN KILLED with the kubelet reason', () => {
    const attempt = backupAttemptOf(
      pod('p1', { exitCode: 137, finishedAt: at('2026-11-29T10:00:05Z'), reason: 'OOMKilled' }),
    );
    assert.deepEqual(attempt?.outcome === 'Failed' && [attempt.code, attempt.reason], [
      KILLED,
      'the container was stopped: OOMKilled, exit code 137',
    ]);
  });
  it('GIVEN a success without a report (an older image) THEN a success without details', () => {
    const attempt = backupAttemptOf(pod('p1', { exitCode: 0, finishedAt: at('2026-11-29T10:00:05Z') }));
    assert.deepEqual(attempt, {
      schedule: 'main-backup',
      job: 'p1-job',
      pod: 'p1',
      time: '2026-11-29T10:00:05Z',
      outcome: 'Succeeded',
    });
  });
  for (const [what, value] of [
    ['a running Pod', pod('p1', undefined)],
    [
      'a Pod without the schedule label (a Job written by hand)',
      pod('p1', { exitCode: 0, finishedAt: at('2026-11-29T10:00:05Z') }, null),
    ],
  ] as const) {
    it(`GIVEN ${what} THEN no attempt`, () => assert.equal(backupAttemptOf(value), undefined));
  }
});

const schedule: BackupSchedule = {
  name: 'main-backup',
  cron: '*/10 * * * *',
  createdAt: '2026-11-29T09:00:00Z',
};
const success = (time: string, key = `k-${time}`): BackupAttempt => ({
  schedule: 'main-backup',
  job: `job-${time}`,
  pod: `pod-${time}`,
  time,
  outcome: 'Succeeded',
  key,
  revision: '7',
  sizeBytes: 10,
  durationSeconds: 1,
});
const failure = (time: string, reason = 'HeadBucket: 403'): BackupAttempt => ({
  schedule: 'main-backup',
  job: `job-${time}`,
  pod: `pod-${time}`,
  time,
  outcome: 'Failed',
  code: 'S3_ERROR',
  reason,
});

describe('backupRecords', () => {
  it('GIVEN attempts of a schedule THEN its newest attempt, success and failure, and every failure newer than the status as new', () => {
    const { backups, newFailures } = backupRecords(
      [],
      [schedule],
      [success('2026-11-29T10:00:05Z'), failure('2026-11-29T10:10:04Z'), failure('2026-11-29T10:10:30Z')],
    );
    assert.deepEqual(backups, [
      {
        schedule: 'main-backup',
        cron: '*/10 * * * *',
        lastAttempt: { time: '2026-11-29T10:10:30Z', job: 'job-2026-11-29T10:10:30Z', outcome: 'Failed' },
        lastSuccess: {
          time: '2026-11-29T10:00:05Z',
          job: 'job-2026-11-29T10:00:05Z',
          key: 'k-2026-11-29T10:00:05Z',
          revision: '7',
          sizeBytes: 10,
          durationSeconds: 1,
        },
        lastFailure: {
          time: '2026-11-29T10:10:30Z',
          job: 'job-2026-11-29T10:10:30Z',
          code: 'S3_ERROR',
          reason: 'HeadBucket: 403',
        },
      },
    ]);
    assert.deepEqual(
      newFailures.map((f) => f.time),
      ['2026-11-29T10:10:04Z', '2026-11-29T10:10:30Z'],
    );
  });

  it('GIVEN a status newer than every Pod still listed THEN nothing moves back and no failure is new again', () => {
    const first = backupRecords(
      [],
      [schedule],
      [failure('2026-11-29T10:10:04Z'), success('2026-11-29T10:20:05Z')],
    );
    const again = backupRecords(first.backups, [schedule], [failure('2026-11-29T10:10:04Z')]);
    assert.deepEqual(again.backups, first.backups);
    assert.deepEqual(again.newFailures, []);
  });

  it('GIVEN the Pods gone (history limits, a restarted controller) THEN the status keeps what it recorded', () => {
    const first = backupRecords([], [schedule], [success('2026-11-29T10:00:05Z')]);
    assert.deepEqual(backupRecords(first.backups, [schedule], []).backups, first.backups);
  });

  it('GIVEN a schedule whose CronJob is gone THEN its entry is dropped; schedules are sorted by name', () => {
    const other: BackupSchedule = { ...schedule, name: 'main-backup-hourly' };
    const first = backupRecords([], [schedule, other], [success('2026-11-29T10:00:05Z')]);
    assert.deepEqual(
      first.backups.map((entry) => entry.schedule),
      ['main-backup', 'main-backup-hourly'],
    );
    assert.deepEqual(
      backupRecords(first.backups, [other], []).backups.map((entry) => entry.schedule),
      ['main-backup-hourly'],
    );
  });
});

describe('lastBackupTime', () => {
  it("GIVEN successes seen and a CronJob's newer lastSuccessfulTime THEN the newest of all", () => {
    const { backups } = backupRecords([], [schedule], [success('2026-11-29T10:00:05Z')]);
    assert.equal(lastBackupTime(backups, [schedule]), '2026-11-29T10:00:05Z');
    assert.equal(
      lastBackupTime(backups, [{ ...schedule, lastSuccessfulTime: '2026-11-29T10:20:09Z' }]),
      '2026-11-29T10:20:09Z',
    );
    assert.equal(lastBackupTime([], [schedule]), undefined);
  });
});

describe('BackupReady', () => {
  // '*/10 * * * *': longest gap 10 min, too old after 20 min without a success.
  const cases: ReadonlyArray<{
    what: string;
    attempts: BackupAttempt[];
    schedules?: BackupSchedule[];
    now: string;
    expect: [string, string] | undefined;
    message?: RegExp;
  }> = [
    {
      what: 'no backup schedule',
      attempts: [],
      schedules: [],
      now: '2026-11-29T10:00:00Z',
      expect: undefined,
    },
    {
      what: 'only a suspended schedule, never run for 21 min',
      attempts: [],
      schedules: [{ ...schedule, suspended: true }],
      now: '2026-11-29T09:21:00Z',
      expect: undefined,
    },
    {
      what: 'a suspended schedule whose manual run failed beside one that succeeds',
      attempts: [
        { ...failure('2026-11-29T09:20:04Z'), schedule: 'main-backup-broken' },
        success('2026-11-29T09:20:05Z'),
      ],
      schedules: [schedule, { ...schedule, name: 'main-backup-broken', suspended: true }],
      now: '2026-11-29T09:21:00Z',
      expect: ['True', 'BackupsSucceeding'],
    },
    {
      what: 'a schedule created 5 min ago, no attempt yet',
      attempts: [],
      now: '2026-11-29T09:05:00Z',
      expect: ['Unknown', 'BackupPending'],
      message: /^no backup of schedule main-backup has ended yet$/,
    },
    {
      what: 'a schedule created 21 min ago that never ran',
      attempts: [],
      now: '2026-11-29T09:21:00Z',
      expect: ['False', 'BackupTooOld'],
      message: /never succeeded since its CronJob was created at 2026-11-29T09:00:00Z$/,
    },
    {
      what: 'the newest attempt succeeded',
      attempts: [failure('2026-11-29T09:10:04Z'), success('2026-11-29T09:20:05Z', 'db/main/b.db')],
      now: '2026-11-29T09:25:00Z',
      expect: ['True', 'BackupsSucceeding'],
      message: /the newest backup ended at 2026-11-29T09:20:05Z: db\/main\/b\.db$/,
    },
    {
      what: 'the newest attempt failed (wrong credentials), the last success 10 min ago',
      attempts: [success('2026-11-29T09:10:05Z'), failure('2026-11-29T09:20:04Z')],
      now: '2026-11-29T09:21:00Z',
      expect: ['False', 'BackupFailed'],
      message:
        /^the newest backup of schedule main-backup failed \(Job job-2026-11-29T09:20:04Z\): S3_ERROR: HeadBucket: 403$/,
    },
    {
      what: 'failing and the last success more than 20 min ago',
      attempts: [
        success('2026-11-29T09:10:05Z'),
        failure('2026-11-29T09:20:04Z'),
        failure('2026-11-29T09:30:04Z'),
      ],
      now: '2026-11-29T09:30:06Z',
      expect: ['False', 'BackupTooOld'],
      message:
        /its last success ended at 2026-11-29T09:10:05Z; its last failure \(job-2026-11-29T09:30:04Z, 2026-11-29T09:30:04Z\): S3_ERROR: HeadBucket: 403$/,
    },
    {
      what: "a failure seen, then a success only the CronJob's lastSuccessfulTime tells",
      attempts: [failure('2026-11-29T09:20:04Z')],
      schedules: [{ ...schedule, lastSuccessfulTime: '2026-11-29T09:30:06Z' }],
      now: '2026-11-29T09:31:00Z',
      expect: ['True', 'BackupsSucceeding'],
    },
  ];
  for (const c of cases) {
    it(`GIVEN ${c.what} THEN ${c.expect ? c.expect.join(' ') : 'no condition'}`, () => {
      const schedules = c.schedules ?? [schedule];
      const { backups } = backupRecords([], schedules, c.attempts);
      const condition = backupReadiness(backups, schedules, new Date(c.now));
      assert.deepEqual(condition && [condition.status, condition.reason], c.expect);
      if (condition) assert.equal(condition.type, BACKUP_READY);
      if (c.message) assert.match(condition?.message ?? '', c.message);
    });
  }
  it('GIVEN the same records a minute later THEN the same message (no relative time: the status is not rewritten every pass)', () => {
    const { backups } = backupRecords([], [schedule], [success('2026-11-29T09:10:05Z')]);
    assert.deepEqual(
      backupReadiness(backups, [schedule], new Date('2026-11-29T09:12:00Z')),
      backupReadiness(backups, [schedule], new Date('2026-11-29T09:13:00Z')),
    );
  });
});

describe('backupPart and backupEvents', () => {
  const cronJob = (lastSuccessfulTime?: Date, created = '2026-11-29T09:00:00.250Z'): V1CronJob => ({
    metadata: { name: 'main-backup', creationTimestamp: new Date(created) },
    spec: { schedule: '*/10 * * * *', jobTemplate: {} },
    status: lastSuccessfulTime ? { lastSuccessfulTime } : {},
  });
  const failedPod = pod('p2', { exitCode: 4, finishedAt: at('2026-11-29T09:20:04Z'), message: s3Error });
  const okPod = pod('p1', { exitCode: 0, finishedAt: at('2026-11-29T09:10:05Z'), message: ok });

  it('GIVEN a CronJob THEN its schedule, with times in whole seconds as Kubernetes writes them', () => {
    assert.deepEqual(scheduleOf(cronJob(new Date('2026-11-29T09:10:06Z'))), {
      name: 'main-backup',
      cron: '*/10 * * * *',
      createdAt: '2026-11-29T09:00:00Z',
      lastSuccessfulTime: '2026-11-29T09:10:06Z',
    });
    const suspended = { ...cronJob(), spec: { ...cronJob().spec, suspend: true } } as V1CronJob;
    assert.equal(scheduleOf(suspended)?.suspended, true);
  });

  it('GIVEN a success then a failure WHEN a pass builds the status THEN the entry, the newest backup time, BackupReady False and one BackupFailed Event', () => {
    const part = backupPart(
      {},
      { cronJobs: [cronJob()], pods: [okPod, failedPod] },
      at('2026-11-29T09:21:00Z'),
    );
    assert.equal(part.lastBackupTime, '2026-11-29T09:10:05Z');
    assert.equal(part.condition?.reason, 'BackupFailed');
    const status = buildStatus(
      {
        metadata: { name: 'main', namespace: 'db', generation: 1 },
        spec: { version: '3.6.16' },
      } as EtcdCluster,
      { kind: 'Steady' },
      undefined,
      at('2026-11-29T09:21:00Z'),
      [],
      [],
      part,
    );
    assert.equal(status.backups?.[0]?.lastSuccess?.key, 'db/main/a.db');
    assert.equal(status.lastBackupTime, '2026-11-29T09:10:05Z');
    assert.equal(status.conditions?.find((c) => c.type === BACKUP_READY)?.status, 'False');
    const events = backupEvents([], part);
    assert.deepEqual(
      events.map((e) => [e.type, e.reason]),
      [['Warning', 'BackupFailed']],
    );
    assert.match(
      events[0]?.message ?? '',
      /Pod p2, ended 2026-11-29T09:20:04Z\): S3_ERROR: HeadBucket: 403$/,
    );

    // The next pass reads the status it wrote: the same failure is not told again.
    const again = backupPart(
      status,
      { cronJobs: [cronJob()], pods: [okPod, failedPod] },
      at('2026-11-29T09:21:30Z'),
    );
    assert.deepEqual(backupEvents(status.conditions ?? [], again), []);
  });

  it('GIVEN BackupReady False WHEN a later backup succeeds THEN BackupRecovered; WHEN a schedule becomes too old THEN BackupTooOld once', () => {
    // Created at 09:05: at 09:21 not too old yet (20 min without a success), at 09:40 too old.
    const young = cronJob(undefined, '2026-11-29T09:05:00Z');
    const failing = backupPart({}, { cronJobs: [young], pods: [failedPod] }, at('2026-11-29T09:21:00Z'));
    assert.equal(failing.condition?.reason, 'BackupFailed');
    const before: Condition[] = [
      { ...(failing.condition as Condition), lastTransitionTime: '2026-11-29T09:21:00Z' },
    ];
    const later = pod('p3', { exitCode: 0, finishedAt: at('2026-11-29T09:30:05Z'), message: ok });
    const recovered = backupPart(
      { backups: failing.backups },
      { cronJobs: [young], pods: [later] },
      at('2026-11-29T09:31:00Z'),
    );
    assert.deepEqual(
      backupEvents(before, recovered).map((e) => [e.type, e.reason]),
      [['Normal', 'BackupRecovered']],
    );
    const stale = backupPart(
      { backups: failing.backups },
      { cronJobs: [young], pods: [] },
      at('2026-11-29T09:40:01Z'),
    );
    assert.equal(stale.condition?.reason, 'BackupTooOld');
    const told = backupEvents(before, stale);
    assert.deepEqual(
      told.map((e) => [e.type, e.reason]),
      [['Warning', 'BackupTooOld']],
    );
    const staleCondition: Condition[] = [{ ...(stale.condition as Condition), lastTransitionTime: 'x' }];
    assert.deepEqual(backupEvents(staleCondition, stale), []);
  });

  it('GIVEN a cluster without backup CronJobs THEN no condition, an empty list and no Event', () => {
    const part = backupPart({}, { cronJobs: [], pods: [] }, at('2026-11-29T09:21:00Z'));
    assert.deepEqual(part, { backups: [], newFailures: [], newDrillFailures: [], recoveredDrills: [] });
    assert.deepEqual(backupEvents([], part), []);
  });
});
