// The backups part of a pass's status and its Events (pure; docs/design/backup-status.md): the cluster's backup
// CronJobs and ended backup Pods in, status.backups, status.lastBackupTime, BackupReady and the Events out.
import type { KubernetesObject, V1CronJob } from '@kubernetes/client-node';
import { BACKUP_SCHEDULE_LABEL, LABEL_COMPONENT } from '../../constructs/conventions/labels.js';
import type { Condition, EtcdBackupScheduleStatus } from '../../constructs/imports/etcd.gitops.dev.js';
import { type ConditionInput, kubeTime } from '../status/conditions.js';
import type { EtcdClusterStatus } from './api.js';
import type { BackupObjects } from './at-rest.js';
import { type BackupAttempt, backupAttemptOf } from './backup-attempts.js';
import {
  BACKUP_READY,
  type BackupRecords,
  type BackupSchedule,
  backupReadiness,
  backupRecords,
  lastBackupTime,
} from './backup-status.js';
import { drillAttemptOf } from './drill-attempts.js';
import { CLUSTER_REASONS } from './reasons.js';

/** What a pass writes about backups. */
export interface BackupPart {
  readonly backups: EtcdBackupScheduleStatus[];
  readonly lastBackupTime?: string;
  /** `BackupReady`; none while the cluster has no backup CronJob. */
  readonly condition?: ConditionInput;
  /** Failed attempts the previous status did not record yet. */
  readonly newFailures: readonly Extract<BackupAttempt, { outcome: 'Failed' }>[];
  readonly newDrillFailures: BackupRecords['newDrillFailures'];
  readonly recoveredDrills: BackupRecords['recoveredDrills'];
}

/** The part of a cluster without backup CronJobs. */
export const NO_BACKUPS: BackupPart = {
  backups: [],
  newFailures: [],
  newDrillFailures: [],
  recoveredDrills: [],
};

/** A drill's CronJob or Pod; every other object read for the backups part is a backup's. */
const isDrill = (object: KubernetesObject) => object.metadata?.labels?.[LABEL_COMPONENT] === 'restore-drill';
const isBackup = (object: KubernetesObject) => !isDrill(object);

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

/** The backup schedule a drill CronJob drills: the schedule label of its Pods. */
const drilledScheduleOf = (cronJob: V1CronJob): string | undefined =>
  cronJob.spec?.jobTemplate.spec?.template.metadata?.labels?.[BACKUP_SCHEDULE_LABEL];

export function backupPart(previous: EtcdClusterStatus, objects: BackupObjects, now: Date): BackupPart {
  const schedules = objects.cronJobs.filter(isBackup).flatMap((cronJob) => scheduleOf(cronJob) ?? []);
  const attempts = objects.pods.filter(isBackup).flatMap((pod) => backupAttemptOf(pod) ?? []);
  const drills = {
    drilled: new Set(objects.cronJobs.filter(isDrill).flatMap((cronJob) => drilledScheduleOf(cronJob) ?? [])),
    attempts: objects.pods.filter(isDrill).flatMap((pod) => drillAttemptOf(pod) ?? []),
  };
  const { backups, ...records } = backupRecords(previous.backups ?? [], schedules, attempts, drills);
  const last = lastBackupTime(backups, schedules);
  const condition = backupReadiness(backups, schedules, now);
  return {
    backups,
    ...(last ? { lastBackupTime: last } : {}),
    ...(condition ? { condition } : {}),
    ...records,
  };
}

export interface BackupEvent {
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  readonly message: string;
}

/**
 * The Events of the backups part: Warning `BackupFailed` per failed attempt not recorded before, Warning
 * `DrillFailed` per failed restore drill not recorded before, Normal `DrillSucceeded` when a schedule's drill
 * succeeds after one failed, Warning `BackupTooOld` when BackupReady turns to that reason, Normal `BackupRecovered`
 * when it turns True after False.
 */
export function backupEvents(previous: readonly Condition[], part: BackupPart): BackupEvent[] {
  const events: BackupEvent[] = [
    ...part.newFailures.map(
      (failure): BackupEvent => ({
        type: 'Warning',
        reason: CLUSTER_REASONS.backupFailed,
        message: `backup of schedule ${failure.schedule} failed (Job ${failure.job}, Pod ${failure.pod}, ended ${failure.time}): ${failure.code}: ${failure.reason}`,
      }),
    ),
    ...part.newDrillFailures.map(
      (failure): BackupEvent => ({
        type: 'Warning',
        reason: CLUSTER_REASONS.drillFailed,
        message: `restore drill of backup schedule ${failure.schedule} failed (Job ${failure.job}, Pod ${failure.pod}, ended ${failure.time}): ${failure.code}: ${failure.reason}`,
      }),
    ),
    ...part.recoveredDrills.map(
      (entry): BackupEvent => ({
        type: 'Normal',
        reason: CLUSTER_REASONS.drillSucceeded,
        message: `restore drill of backup schedule ${entry.schedule} succeeded (Job ${entry.lastDrill?.job}): ${entry.lastDrill?.key} restored, ${entry.lastDrill?.keys} keys at revision ${entry.lastDrill?.servedRevision}`,
      }),
    ),
  ];
  const before = previous.find((condition) => condition.type === BACKUP_READY);
  const now = part.condition;
  if (now?.reason === CLUSTER_REASONS.backupTooOld && before?.reason !== CLUSTER_REASONS.backupTooOld)
    events.push({ type: 'Warning', reason: CLUSTER_REASONS.backupTooOld, message: now.message });
  if (now?.status === 'True' && before?.status === 'False')
    events.push({ type: 'Normal', reason: CLUSTER_REASONS.backupRecovered, message: now.message });
  return events;
}
