// The EtcdRestore status after a pass (pure): phase, conditions with reasons (plus kstatus Reconciling/Stalled),
// the verified key and revision, timestamps. `undefined` when nothing changes (Done).

import { RESTORE_REASONS } from '../restore/facts.js';
import { type ConditionInput, kubeTime, withTransitions } from '../status/conditions.js';
import type { EtcdRestore, EtcdRestoreStatus } from './api.js';
import { describeSource } from './plan.js';
import type { RestoreAction, RestorePhase } from './types.js';

/** What the executor reports back for status and Events. */
export interface RestoreOutcome {
  readonly requeueAfterMs?: number;
  readonly event?: { readonly type: 'Normal' | 'Warning'; readonly reason: string; readonly message: string };
  /** Verify succeeded: the exact key and its revision. */
  readonly verified?: { readonly key: string; readonly revision: string };
  /** ChooseSurvivor: the member recovered from, its id and its revision. */
  readonly chosen?: { readonly member: string; readonly id: string; readonly revision: string };
  /** Verify (or a refusal) failed for good: the restore is `Failed`, nothing was changed. */
  readonly failed?: { readonly reason: string; readonly message: string };
  /** The step did not take effect (its write lost to a concurrent one): it is planned again, nothing to report. */
  readonly notDone?: true;
  /** A transient problem (S3 unreachable): retried, reported as Degraded. */
  readonly retrying?: { readonly reason: string; readonly message: string };
}

interface Summary {
  readonly phase: RestorePhase;
  readonly progressing: boolean;
  readonly reason: string;
  readonly message: string;
  readonly degraded?: boolean;
  /** Waits on the user with nothing failed for good (the phase stays): `Stalled=True`. */
  readonly stalled?: boolean;
}

function summarize(
  current: RestorePhase,
  action: RestoreAction,
  outcome: RestoreOutcome,
): Summary | undefined {
  if (outcome.failed) return { phase: 'Failed', progressing: false, degraded: true, ...outcome.failed };
  if (outcome.retrying) return { phase: current, progressing: true, degraded: true, ...outcome.retrying };
  switch (action.kind) {
    case 'Refuse':
      return {
        phase: 'Failed',
        progressing: false,
        degraded: true,
        reason: action.reason,
        message: action.message,
      };
    case 'Wait':
      return {
        phase: current,
        progressing: action.reason !== RESTORE_REASONS.waitingForRestore && action.stalled !== true,
        degraded: action.degraded === true,
        stalled: action.stalled === true,
        reason: action.reason,
        message: action.message,
      };
    case 'StartVerifying':
      return {
        phase: 'Verifying',
        progressing: true,
        reason: 'Verifying',
        message: 'downloading and verifying the backup',
      };
    case 'Verify': {
      const key = outcome.verified?.key ?? '';
      return { phase: 'Restoring', progressing: true, reason: 'BackupVerified', message: `verified ${key}` };
    }
    case 'ChooseSurvivor':
      return { phase: 'Restoring', progressing: true, reason: 'SurvivorChosen', message: action.message };
    case 'Complete':
      return {
        phase: 'Completed',
        progressing: false,
        reason: 'RestoreCompleted',
        message: 'the cluster is Ready at its declared size with the restored data',
      };
    case 'TakeLock':
      return {
        phase: 'Restoring',
        progressing: true,
        reason: 'Restoring',
        message: `took the cluster (status.restore); its membership controller stops the old members and seeds from ${describeSource(action.source)}`,
      };
    case 'ReleaseLock':
    case 'AbandonLock':
    case 'Done':
      return undefined;
  }
}

function conditions(summary: Summary): ConditionInput[] {
  const { reason, message } = summary;
  const done = summary.phase === 'Completed';
  const failed = summary.phase === 'Failed';
  const stalled = failed || summary.stalled === true;
  const progressing: ConditionInput = {
    type: 'Progressing',
    status: summary.progressing ? 'True' : 'False',
    reason,
    message,
  };
  return [
    { type: 'Ready', status: done ? 'True' : 'False', reason, message },
    progressing,
    {
      type: 'Degraded',
      status: summary.degraded ? 'True' : 'False',
      reason: summary.degraded ? reason : 'AsExpected',
      message,
    },
    { ...progressing, type: 'Reconciling' },
    { type: 'Stalled', status: stalled ? 'True' : 'False', reason: stalled ? reason : 'AsExpected', message },
  ];
}

export function buildRestoreStatus(
  restore: EtcdRestore,
  action: RestoreAction,
  outcome: RestoreOutcome,
  now: Date,
): EtcdRestoreStatus | undefined {
  const previous = restore.status ?? {};
  const current = (previous.phase ?? 'Pending') as RestorePhase;
  const summary = summarize(current, action, outcome);
  if (!summary) return undefined;
  const at = kubeTime(now);
  const status: EtcdRestoreStatus = {
    observedGeneration: restore.metadata.generation ?? 0,
    phase: summary.phase,
    conditions: withTransitions(
      conditions(summary),
      previous.conditions ?? [],
      restore.metadata.generation ?? 0,
      at,
    ),
    message: summary.message,
  };
  if (outcome.chosen) {
    status.sourceMember = outcome.chosen.member;
    status.sourceMemberId = outcome.chosen.id;
    status.revision = Number(outcome.chosen.revision);
  }
  if (outcome.verified) {
    status.backupKey = outcome.verified.key;
    status.revision = Number(outcome.verified.revision);
  }
  if (!previous.startedAt && summary.phase !== 'Pending') status.startedAt = at;
  if (summary.phase === 'Completed' || summary.phase === 'Failed')
    status.completedAt = previous.completedAt ?? at;
  return status;
}
