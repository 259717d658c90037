// A schedule's restore drill in the EtcdCluster status (pure; docs/design/restore-drill.md, "What the controller
// makes of it"): `lastDrill`, moved forward only, dropped with the drill CronJob; the `DrillFailed` row of BackupReady.
import type { EtcdBackupScheduleStatus } from '../../constructs/imports/etcd.gitops.dev.js';
import type { DrillAttempt } from './drill-attempts.js';
import { CLUSTER_REASONS } from './reasons.js';

export type LastDrill = NonNullable<EtcdBackupScheduleStatus['lastDrill']>;
export type FailedDrill = Extract<DrillAttempt, { outcome: 'Failed' }>;

const ms = (time: string | undefined): number => (time ? Date.parse(time) : Number.NEGATIVE_INFINITY);

/** The newest of `attempts` (ties: the greater Pod name, so a pass reads the same whatever the list order). */
export function newestAttempt<T extends { readonly time: string; readonly pod: string }>(
  attempts: readonly T[],
): T | undefined {
  return attempts.reduce<T | undefined>(
    (best, attempt) =>
      !best || ms(attempt.time) > ms(best.time) || (attempt.time === best.time && attempt.pod > best.pod)
        ? attempt
        : best,
    undefined,
  );
}

function recordOf(drill: DrillAttempt): LastDrill {
  const { time, job, outcome } = drill;
  if (drill.outcome === 'Failed') return { time, job, outcome, code: drill.code, reason: drill.reason };
  return {
    time,
    job,
    outcome,
    ...(drill.key !== undefined ? { key: drill.key } : {}),
    ...(drill.revision !== undefined ? { revision: drill.revision } : {}),
    ...(drill.servedRevision !== undefined ? { servedRevision: drill.servedRevision } : {}),
    ...(drill.keys !== undefined ? { keys: drill.keys } : {}),
  };
}

export interface DrillRecord {
  readonly lastDrill?: LastDrill;
  /** Failed drills that ended after the previous record: one Warning Event each. */
  readonly newFailures: FailedDrill[];
  /** The record turned from Failed to Succeeded: one Normal Event. */
  readonly recovered: boolean;
}

/**
 * A schedule's drill record: none while it has no drill CronJob; else the previous record, moved forward only by a
 * drill that ended after it (an older Pod still listed, or a status written before a restart, changes nothing).
 */
export function drillRecord(
  before: LastDrill | undefined,
  drilled: boolean,
  drills: readonly DrillAttempt[],
): DrillRecord {
  if (!drilled) return { newFailures: [], recovered: false };
  const newer = drills.filter((drill) => ms(drill.time) > ms(before?.time));
  const newest = newestAttempt(newer);
  const lastDrill = newest ? recordOf(newest) : before;
  return {
    ...(lastDrill ? { lastDrill } : {}),
    newFailures: newer
      .flatMap((drill) => (drill.outcome === 'Failed' ? [drill] : []))
      .sort((a, b) => ms(a.time) - ms(b.time)),
    recovered: before?.outcome === 'Failed' && lastDrill?.outcome === 'Succeeded',
  };
}

/** The `DrillFailed` reason and message of the first schedule (by name) whose newest drill failed; otherwise none. */
export function drillFailure(
  entries: readonly EtcdBackupScheduleStatus[],
): { readonly reason: string; readonly message: string } | undefined {
  const failed = [...entries]
    .sort((a, b) => a.schedule.localeCompare(b.schedule))
    .find((entry) => entry.lastDrill?.outcome === 'Failed');
  const drill = failed?.lastDrill;
  if (!failed || !drill) return undefined;
  return {
    reason: CLUSTER_REASONS.drillFailed,
    message: `the newest restore drill of backup schedule ${failed.schedule} failed (Job ${drill.job}, ended ${drill.time}): ${drill.code}: ${drill.reason}; its newest backup is not shown to restore`,
  };
}
