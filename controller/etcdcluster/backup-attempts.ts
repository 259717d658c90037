// A backup attempt as its ended Pod tells it (docs/design/backup-status.md, "Who reports"): the schedule it ran for,
// its Job, when it ended and how, with the report `backup save` left in its termination message.
import type { V1ContainerStateTerminated, V1Pod } from '@kubernetes/client-node';
import { BACKUP_CONTAINER_NAME, BACKUP_SCHEDULE_LABEL } from '../../constructs/conventions/index.js';
import { ExitCode } from '../backup/exit-codes.js';
import { decodeBackupReport } from '../backup/termination-report.js';
import { kubeTime } from '../status/conditions.js';

/** The code of an attempt that ended without a report and with an exit code none of ours: killed (OOM, node). */
export const KILLED = 'KILLED';

export interface AttemptBase {
  /** The CronJob it ran for. */
  readonly schedule: string;
  readonly job: string;
  readonly pod: string;
  /** When the container ended (RFC 3339, whole seconds, as the kubelet writes it). */
  readonly time: string;
}

export type BackupAttempt =
  | (AttemptBase & {
      readonly outcome: 'Succeeded';
      /** Absent when the Pod left no report (an image before reports). */
      readonly key?: string;
      readonly revision?: string;
      readonly sizeBytes?: number;
      readonly durationSeconds?: number;
    })
  | (AttemptBase & { readonly outcome: 'Failed'; readonly code: string; readonly reason: string });

const exitCodeName = (code: number): string | undefined =>
  Object.entries(ExitCode).find(([, value]) => value === code)?.[0];

/** Who an attempt was: its schedule (the Pod's label), Job and Pod, and when `ended` finished; none unlabelled. */
export function attemptBaseOf(
  pod: V1Pod,
  ended: V1ContainerStateTerminated | undefined,
): AttemptBase | undefined {
  const schedule = pod.metadata?.labels?.[BACKUP_SCHEDULE_LABEL];
  if (!schedule || !ended?.finishedAt) return undefined;
  return {
    schedule,
    job:
      pod.metadata?.labels?.['job-name'] ??
      pod.metadata?.ownerReferences?.find((o) => o.kind === 'Job')?.name ??
      '',
    pod: pod.metadata?.name ?? '',
    time: kubeTime(new Date(ended.finishedAt)),
  };
}

/** A failed container that left no report: its exit code by name when it is one of ours, else KILLED. */
export function unreportedFailure(
  ended: V1ContainerStateTerminated,
  nameOf: (code: number) => string | undefined,
): { readonly outcome: 'Failed'; readonly code: string; readonly reason: string } {
  const named = nameOf(ended.exitCode);
  const why = ended.reason ? `${ended.reason}, exit code ${ended.exitCode}` : `exit code ${ended.exitCode}`;
  return named
    ? { outcome: 'Failed', code: named, reason: `ended with ${why} and no report` }
    : { outcome: 'Failed', code: KILLED, reason: `the container was stopped: ${why}` };
}

/** The attempt of a backup Pod whose container has ended; `undefined` for any other Pod. */
export function backupAttemptOf(pod: V1Pod): BackupAttempt | undefined {
  const container = pod.status?.containerStatuses?.find((status) => status.name === BACKUP_CONTAINER_NAME);
  const ended = container?.state?.terminated;
  const base = attemptBaseOf(pod, ended);
  if (!base || !ended) return undefined;
  const report = decodeBackupReport(ended.message);
  if (ended.exitCode === 0) {
    if (report?.outcome !== 'Succeeded') return { ...base, outcome: 'Succeeded' };
    const { key, revision, sizeBytes, durationMs } = report;
    return {
      ...base,
      outcome: 'Succeeded',
      key,
      revision,
      sizeBytes,
      durationSeconds: Math.round(durationMs / 1000),
    };
  }
  if (report?.outcome === 'Failed')
    return { ...base, outcome: 'Failed', code: report.code, reason: report.reason };
  return { ...base, ...unreportedFailure(ended, exitCodeName) };
}
