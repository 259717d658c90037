// The backups part of the EtcdCluster status (pure; docs/design/backup-status.md): each schedule's newest attempt,
// success and failure, kept from the previous status and moved forward by the attempts seen; the printer column's
// time; and BackupReady.

import { longestCronGapSeconds } from '../../constructs/conventions/cron.js';
import type { EtcdBackupScheduleStatus } from '../../constructs/imports/etcd.gitops.dev.js';
import type { ConditionInput } from '../status/conditions.js';
import type { BackupAttempt } from './backup-attempts.js';
import type { DrillAttempt } from './drill-attempts.js';
import { type DrillRecord, drillFailure, drillRecord, newestAttempt } from './drill-status.js';
import { CLUSTER_REASONS } from './reasons.js';

/** The condition type this part of the status writes. */
export const BACKUP_READY = 'BackupReady';

/** A backup CronJob of the cluster, as the controller reads it. */
export interface BackupSchedule {
  readonly name: string;
  readonly cron: string;
  /** RFC 3339. */
  readonly createdAt: string;
  /** The CronJob controller's `status.lastSuccessfulTime` (a Job's completion, also once its Pods are gone). */
  readonly lastSuccessfulTime?: string;
  /** `spec.suspend`: the user stopped it; listed, never judged. */
  readonly suspended?: boolean;
}

const ms = (time: string | undefined): number => (time ? Date.parse(time) : Number.NEGATIVE_INFINITY);
const isAfter = (time: string, than: string | undefined): boolean => ms(time) > ms(than);

const successOf = (attempt: Extract<BackupAttempt, { outcome: 'Succeeded' }>) => ({
  time: attempt.time,
  job: attempt.job,
  ...(attempt.key !== undefined ? { key: attempt.key } : {}),
  ...(attempt.revision !== undefined ? { revision: attempt.revision } : {}),
  ...(attempt.sizeBytes !== undefined ? { sizeBytes: attempt.sizeBytes } : {}),
  ...(attempt.durationSeconds !== undefined ? { durationSeconds: attempt.durationSeconds } : {}),
});

export interface BackupRecords {
  /** One entry per schedule, by name. */
  readonly backups: EtcdBackupScheduleStatus[];
  /** Failed attempts newer than the previous status's last failure of their schedule: one Warning Event each. */
  readonly newFailures: Extract<BackupAttempt, { outcome: 'Failed' }>[];
  /** Failed drills newer than the previous status's last drill of their schedule: one Warning Event each. */
  readonly newDrillFailures: DrillRecord['newFailures'];
  /** Schedules whose drill record turned from Failed to Succeeded: one Normal Event each. */
  readonly recoveredDrills: EtcdBackupScheduleStatus[];
}

/** The restore drills the cluster has: the backup schedules they drill, and the drills' ended Pods. */
export interface Drills {
  readonly drilled: ReadonlySet<string>;
  readonly attempts: readonly DrillAttempt[];
}

const NO_DRILLS: Drills = { drilled: new Set(), attempts: [] };

/**
 * Each schedule's entry: the previous one, moved forward only by an attempt that ended after what it records (an
 * older Pod still listed, or a status written before a restart, changes nothing); schedules gone are dropped.
 */
export function backupRecords(
  previous: readonly EtcdBackupScheduleStatus[],
  schedules: readonly BackupSchedule[],
  attempts: readonly BackupAttempt[],
  drills: Drills = NO_DRILLS,
): BackupRecords {
  const newFailures: BackupRecords['newFailures'] = [];
  const newDrillFailures: BackupRecords['newDrillFailures'] = [];
  const recoveredDrills: EtcdBackupScheduleStatus[] = [];
  const backups = [...schedules]
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((schedule): EtcdBackupScheduleStatus => {
      const before = previous.find((entry) => entry.schedule === schedule.name);
      const own = attempts.filter((attempt) => attempt.schedule === schedule.name);
      const attempt = newestAttempt(own);
      const success = newestAttempt(own.flatMap((a) => (a.outcome === 'Succeeded' ? [a] : [])));
      const failures = own.flatMap((a) => (a.outcome === 'Failed' ? [a] : []));
      const failure = newestAttempt(failures);
      const since = before?.lastFailure?.time;
      newFailures.push(
        ...failures.filter((f) => isAfter(f.time, since)).sort((a, b) => ms(a.time) - ms(b.time)),
      );
      const entry: EtcdBackupScheduleStatus = { schedule: schedule.name, cron: schedule.cron };
      const lastAttempt =
        attempt && isAfter(attempt.time, before?.lastAttempt?.time)
          ? { time: attempt.time, job: attempt.job, outcome: attempt.outcome }
          : before?.lastAttempt;
      const lastSuccess =
        success && isAfter(success.time, before?.lastSuccess?.time)
          ? successOf(success)
          : before?.lastSuccess;
      const lastFailure =
        failure && isAfter(failure.time, since)
          ? { time: failure.time, job: failure.job, code: failure.code, reason: failure.reason }
          : before?.lastFailure;
      const drill = drillRecord(
        before?.lastDrill,
        drills.drilled.has(schedule.name),
        drills.attempts.filter((attempt) => attempt.schedule === schedule.name),
      );
      newDrillFailures.push(...drill.newFailures);
      const record: EtcdBackupScheduleStatus = {
        ...entry,
        ...(lastAttempt ? { lastAttempt } : {}),
        ...(lastSuccess ? { lastSuccess } : {}),
        ...(lastFailure ? { lastFailure } : {}),
        ...(drill.lastDrill ? { lastDrill: drill.lastDrill } : {}),
      };
      if (drill.recovered) recoveredDrills.push(record);
      return record;
    });
  return { backups, newFailures, newDrillFailures, recoveredDrills };
}

/** When a schedule last succeeded: its newest success seen, or the CronJob's own record if newer. */
function lastSucceeded(
  entry: EtcdBackupScheduleStatus | undefined,
  schedule: BackupSchedule,
): string | undefined {
  const seen = entry?.lastSuccess?.time;
  const cron = schedule.lastSuccessfulTime;
  return cron && isAfter(cron, seen) ? cron : seen;
}

/** The newest success of any schedule (`status.lastBackupTime`). */
export function lastBackupTime(
  backups: readonly EtcdBackupScheduleStatus[],
  schedules: readonly BackupSchedule[],
): string | undefined {
  const times = schedules.flatMap((schedule) => {
    const time = lastSucceeded(
      backups.find((entry) => entry.schedule === schedule.name),
      schedule,
    );
    return time ? [time] : [];
  });
  return times.reduce<string | undefined>((max, time) => (isAfter(time, max) ? time : max), undefined);
}

/** How long a schedule may go without a success before it is too old: twice its longest gap between runs. */
export const tooOldAfterMs = (cron: string): number => 2 * longestCronGapSeconds(cron) * 1000;

const failureText = (entry: EtcdBackupScheduleStatus | undefined): string =>
  entry?.lastFailure
    ? `; its last failure (${entry.lastFailure.job}, ${entry.lastFailure.time}): ${entry.lastFailure.code}: ${entry.lastFailure.reason}`
    : '';

/**
 * `BackupReady`, the first state that holds (docs/design/backup-status.md), over the schedules not suspended: a
 * schedule too old → False `BackupTooOld`; a schedule whose newest attempt failed → False `BackupFailed`; a schedule
 * whose newest restore drill failed, suspended or not → False `DrillFailed` (docs/design/restore-drill.md); a
 * schedule never attempted → Unknown `BackupPending`; else True `BackupsSucceeding`. No condition when the cluster has
 * no backup schedule, or every one is suspended and none has a failed drill.
 */
export function backupReadiness(
  backups: readonly EtcdBackupScheduleStatus[],
  allSchedules: readonly BackupSchedule[],
  now: Date,
): ConditionInput | undefined {
  const schedules = allSchedules.filter((schedule) => !schedule.suspended);
  // A drill that failed was asked for, also of a suspended schedule's backups (run by hand, say): always judged.
  const drill = drillFailure(backups.filter((entry) => allSchedules.some((s) => s.name === entry.schedule)));
  if (schedules.length === 0) return drill ? { type: BACKUP_READY, status: 'False', ...drill } : undefined;
  const nowMs = now.getTime();
  const sorted = [...schedules].sort((a, b) => a.name.localeCompare(b.name));
  const entryOf = (schedule: BackupSchedule) => backups.find((entry) => entry.schedule === schedule.name);
  for (const schedule of sorted) {
    const entry = entryOf(schedule);
    const succeeded = lastSucceeded(entry, schedule);
    const since = succeeded ?? schedule.createdAt;
    if (nowMs - ms(since) > tooOldAfterMs(schedule.cron)) {
      // Absolute times only: a message that changed with the clock would rewrite the status every pass.
      const last = succeeded
        ? `its last success ended at ${succeeded}`
        : `it never succeeded since its CronJob was created at ${schedule.createdAt}`;
      return {
        type: BACKUP_READY,
        status: 'False',
        reason: CLUSTER_REASONS.backupTooOld,
        message: `backup schedule ${schedule.name} (${schedule.cron}) has not succeeded in twice its longest gap between runs: ${last}${failureText(entry)}`,
      };
    }
  }
  for (const schedule of sorted) {
    const entry = entryOf(schedule);
    const failed = entry?.lastAttempt?.outcome === 'Failed' ? entry.lastFailure : undefined;
    // A success the CronJob recorded after it (its Pods gone before the controller saw them) supersedes it.
    if (failed?.time && !isAfter(lastSucceeded(entry, schedule) ?? '', failed.time)) {
      const { job, code, reason } = failed;
      return {
        type: BACKUP_READY,
        status: 'False',
        reason: CLUSTER_REASONS.backupFailed,
        message: `the newest backup of schedule ${schedule.name} failed (Job ${job}): ${code}: ${reason}`,
      };
    }
  }
  if (drill) return { type: BACKUP_READY, status: 'False', ...drill };
  const pending = sorted.filter(
    (schedule) => !entryOf(schedule)?.lastAttempt && !lastSucceeded(entryOf(schedule), schedule),
  );
  if (pending.length > 0) {
    return {
      type: BACKUP_READY,
      status: 'Unknown',
      reason: CLUSTER_REASONS.backupPending,
      message: `no backup of schedule ${pending.map((schedule) => schedule.name).join(', ')} has ended yet`,
    };
  }
  const newest = lastBackupTime(backups, schedules);
  const withKey = backups.find((entry) => entry.lastSuccess?.time === newest && entry.lastSuccess?.key);
  return {
    type: BACKUP_READY,
    status: 'True',
    reason: CLUSTER_REASONS.backupsSucceeding,
    message: `every backup schedule succeeded within twice its longest gap; the newest backup ended at ${newest}${withKey?.lastSuccess?.key ? `: ${withKey.lastSuccess.key}` : ''}`,
  };
}
