// The backups part of a pass's status and its Events (pure; docs/design/backup-status.md): the cluster's backup
// CronJobs and ended backup Pods in, status.backups, status.lastBackupTime, BackupReady and the Events out.
import type { V1CronJob } from '@kubernetes/client-node';
import type { Condition, EtcdBackupScheduleStatus } from '../../constructs/imports/etcd.gitops.dev.js';
import { type ConditionInput, kubeTime } from '../status/conditions.js';
import type { EtcdClusterStatus } from './api.js';
import type { BackupObjects } from './at-rest.js';
import { type BackupAttempt, backupAttemptOf } from './backup-attempts.js';
import {
  BACKUP_READY,
  type BackupSchedule,
  backupReadiness,
  backupRecords,
  lastBackupTime,
} from './backup-status.js';
import { CLUSTER_REASONS } from './reasons.js';

/** What a pass writes about backups. */
export interface BackupPart {
  readonly backups: EtcdBackupScheduleStatus[];
  readonly lastBackupTime?: string;
  /** `BackupReady`; none while the cluster has no backup CronJob. */
  readonly condition?: ConditionInput;
  /** Failed attempts the previous status did not record yet. */
  readonly newFailures: readonly Extract<BackupAttempt, { outcome: 'Failed' }>[];
}

const timeOf = (value: Date | string | undefined): string | undefined =>
  value === undefined ? undefined : kubeTime(new Date(value));

/** A backup CronJob as the status reads it. */
export function scheduleOf(cronJob: V1CronJob): BackupSchedule | undefined {
  const name = cronJob.metadata?.name;
  const createdAt = timeOf(cronJob.metadata?.creationTimestamp);
  if (!name || !createdAt || !cronJob.spec?.schedule) return undefined;
  const lastSuccessfulTime = timeOf(cronJob.status?.lastSuccessfulTime);
  return {
    name,
    cron: cronJob.spec.schedule,
    createdAt,
    ...(lastSuccessfulTime ? { lastSuccessfulTime } : {}),
    ...(cronJob.spec.suspend ? { suspended: true } : {}),
  };
}

export function backupPart(previous: EtcdClusterStatus, objects: BackupObjects, now: Date): BackupPart {
  const schedules = objects.cronJobs.flatMap((cronJob) => scheduleOf(cronJob) ?? []);
  const attempts = objects.pods.flatMap((pod) => backupAttemptOf(pod) ?? []);
  const { backups, newFailures } = backupRecords(previous.backups ?? [], schedules, attempts);
  const last = lastBackupTime(backups, schedules);
  const condition = backupReadiness(backups, schedules, now);
  return {
    backups,
    ...(last ? { lastBackupTime: last } : {}),
    ...(condition ? { condition } : {}),
    newFailures,
  };
}

export interface BackupEvent {
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  readonly message: string;
}

/**
 * The Events of the backups part: Warning `BackupFailed` per failed attempt not recorded before, Warning
 * `BackupTooOld` when BackupReady turns to that reason, Normal `BackupRecovered` when it turns True after False.
 */
export function backupEvents(previous: readonly Condition[], part: BackupPart): BackupEvent[] {
  const events: BackupEvent[] = part.newFailures.map((failure) => ({
    type: 'Warning',
    reason: CLUSTER_REASONS.backupFailed,
    message: `backup of schedule ${failure.schedule} failed (Job ${failure.job}, Pod ${failure.pod}, ended ${failure.time}): ${failure.code}: ${failure.reason}`,
  }));
  const before = previous.find((condition) => condition.type === BACKUP_READY);
  const now = part.condition;
  if (now?.reason === CLUSTER_REASONS.backupTooOld && before?.reason !== CLUSTER_REASONS.backupTooOld)
    events.push({ type: 'Warning', reason: CLUSTER_REASONS.backupTooOld, message: now.message });
  if (now?.status === 'True' && before?.status === 'False')
    events.push({ type: 'Normal', reason: CLUSTER_REASONS.backupRecovered, message: now.message });
  return events;
}
