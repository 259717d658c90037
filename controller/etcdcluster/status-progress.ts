// What the status says a pass is doing (pure): the action as reported, the `Progressing` reason of each action, and
// each action in words. Part of the status (status.ts).
import { describeRestoreStep } from './plan-restore.js';
import { CLUSTER_REASONS } from './reasons.js';
import { isRestoreLockAction } from './restore-types.js';
import type { Action } from './types.js';

/**
 * What the status tells for a pass whose change was refused: a write the API server refused (`refused`) is a
 * degraded wait (`WriteRefused`, the action and the API server's message); a member of the roll that the
 * PodDisruptionBudget does not let go (eviction answered 429) waits, and says so; other actions are told as planned.
 */
export function reportedAction(
  action: Action,
  { notYet, refused }: { readonly notYet?: string; readonly refused?: string },
): Action {
  if (refused !== undefined)
    return {
      kind: 'Wait',
      reason: CLUSTER_REASONS.writeRefused,
      message: refused,
      requeueAfterMs: 0,
      degraded: true,
    };
  if (action.kind !== 'RollMember' || notYet === undefined) return action;
  return {
    kind: 'Wait',
    reason: CLUSTER_REASONS.podDisruptionBudget,
    message: `member ${action.member} waits to be restarted: ${notYet}`,
    requeueAfterMs: 0,
  };
}

/** The reason `Progressing` gives for each in-flight action. */
export function progressReason(action: Action): string | undefined {
  switch (action.kind) {
    case 'CreatePVC':
      return action.token ? CLUSTER_REASONS.seeding : CLUSTER_REASONS.addingMember;
    case 'MarkExisting':
    case 'CreatePVCs':
    case 'CreatePods':
      return CLUSTER_REASONS.seeding;
    case 'CreatePod':
      return {
        seed: CLUSTER_REASONS.seeding,
        join: CLUSTER_REASONS.addingMember,
        recreate: CLUSTER_REASONS.recreatingMemberPod,
      }[action.reason];
    case 'AddLearner':
    case 'PromoteLearner':
      return CLUSTER_REASONS.addingMember;
    case 'MoveLeader':
    case 'DeletePod':
    case 'DeletePVC':
      return CLUSTER_REASONS.removingMember;
    case 'RemoveMember':
      return action.reason === 'dead' || action.reason === 'lost'
        ? CLUSTER_REASONS.replacingMember
        : CLUSTER_REASONS.removingMember;
    case 'Wait':
      return action.reason;
    // After a completed restore the cluster is Ready: deleting what it retained and clearing its lock is
    // housekeeping, not progress a GitOps tool should wait for (Healthy stays Healthy; the Events tell it).
    case 'DeleteRetainedPVC':
      return undefined;
    case 'ClearRestoreLock':
      return action.outcome === 'Completed' ? undefined : CLUSTER_REASONS.restoring;
    default:
      return isRestoreLockAction(action) ? CLUSTER_REASONS.restoring : undefined;
  }
}

export function describeAction(action: Action): string {
  switch (action.kind) {
    case 'Refuse':
      return `${action.field}: ${action.value} is not allowed; allowed: ${action.allowed}`;
    case 'Wait':
    case 'ReportQuorumLost':
      return action.message;
    case 'Steady':
      return 'all members are ready';
    case 'CreatePVCs':
      return (
        `CreatePVC ${action.pvcs.map((pvc) => pvc.member).join(', ')}` +
        (action.pods.length > 0 ? `, then CreatePod ${action.pods.map((pod) => pod.member).join(', ')}` : '')
      );
    case 'CreatePods':
      return `CreatePod ${action.pods.map((pod) => pod.member).join(', ')}`;
    case 'Paused':
      return 'spec.paused is true: the controller changes nothing';
    case 'RollMember':
      return `restarting member ${action.member} at revision ${action.toRevision}`;
    case 'DisarmAlarm':
      return `disarming the ${action.alarm} alarm of removed member ${action.memberId}`;
    case 'MoveLeader':
      return action.purpose === 'roll'
        ? `moving leadership to ${action.toMember}, so the leader is rolled last`
        : `moving leadership to ${action.toMember} before removing the leader`;
    default:
      if (isRestoreLockAction(action)) return describeRestoreStep(action);
      return `${action.kind} ${'member' in action ? action.member : ''}`.trim();
  }
}
