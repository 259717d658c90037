// The conditions of a pass (pure): Ready, Available, Progressing, Degraded, Reconciling and Stalled, from the action,
// the etcd observation, the faults (status-faults.ts) and the roll (status-roll.ts). Part of the status (status.ts).
import { DEFAULT_SIZE } from '../../constructs/conventions/index.js';
import type { ConditionInput } from '../status/conditions.js';
import type { AbandonedData } from './abandoned.js';
import type { EtcdCluster } from './api.js';
import type { EtcdObservation } from './observe-etcd.js';
import { CLUSTER_REASONS } from './reasons.js';
import { degradedCondition, isStalled, pausedQuorumLoss } from './status-faults.js';
import { describeAction, progressReason } from './status-progress.js';
import { isRollStep, type RollView, rollMessage, updatedMembers } from './status-roll.js';
import type { Action } from './types.js';

/** `size` healthy voters with quorum. */
function isAllReady(size: number, observation: EtcdObservation | undefined): boolean {
  const members = observation?.view.members ?? [];
  return (
    members.length === size &&
    members.every((member) => member.healthy && !member.learner) &&
    observation?.view.quorum === true
  );
}

/** `Ready`: `size` healthy voters with quorum, else the step in progress or the fault. */
function readyCondition(
  allReady: boolean,
  size: number,
  action: Action,
  notReadyReason: string,
): ConditionInput {
  return allReady
    ? {
        type: 'Ready',
        status: 'True',
        reason: CLUSTER_REASONS.allMembersReady,
        message: `${size} of ${size} members ready`,
      }
    : { type: 'Ready', status: 'False', reason: notReadyReason, message: describeAction(action) };
}

function availableCondition(observation: EtcdObservation | undefined): ConditionInput {
  return observation?.view.quorum === true
    ? {
        type: 'Available',
        status: 'True',
        reason: CLUSTER_REASONS.quorumHeld,
        message: 'a majority of voting members is healthy',
      }
    : {
        type: 'Available',
        status: 'False',
        reason: observation ? CLUSTER_REASONS.quorumLost : CLUSTER_REASONS.noMemberAnswers,
        message: 'clients cannot write',
      };
}

export function conditionsFor(
  cluster: EtcdCluster,
  action: Action,
  observation: EtcdObservation | undefined,
  abandoned: readonly AbandonedData[],
  roll: RollView,
): ConditionInput[] {
  const rolling = isRollStep(
    action,
    roll,
    updatedMembers(observation, roll).length,
    observation?.view.members.length ?? 0,
  );
  const pausedLoss = pausedQuorumLoss(cluster, action, observation, roll.pods);
  const degraded = degradedCondition(cluster, action, observation, abandoned, pausedLoss, roll.pods);
  const stalled = isStalled(action, pausedLoss);
  const size = cluster.spec.size ?? DEFAULT_SIZE;
  // A member being removed as dead is not ready, even while it still answers (deleted with its data: its Pod and
  // PVC terminate; docs/design/membership.md, "Dead members").
  const removingDead =
    action.kind === 'RemoveMember' && (action.reason === 'dead' || action.reason === 'lost');
  const allReady = isAllReady(size, observation) && !removingDead;
  // Marking members that served `existing` once every member is ready (the static bootstrap's last passes,
  // docs/design/bootstrap.md) patches an annotation read at their next start: housekeeping, not progress a GitOps
  // tool should wait for (a Healthy cluster read Progressing for one pass, then Healthy again).
  const housekeeping = action.kind === 'MarkExisting' && allReady;
  const progress =
    stalled || housekeeping ? undefined : rolling ? CLUSTER_REASONS.rollingUpdate : progressReason(action);
  const message = rolling ? rollMessage(cluster, action, observation, roll) : describeAction(action);
  const idle =
    action.kind === 'Paused' ? CLUSTER_REASONS.paused : stalled ? degraded.reason : CLUSTER_REASONS.idle;
  const progressing: ConditionInput = progress
    ? { type: 'Progressing', status: 'True', reason: progress, message }
    : { type: 'Progressing', status: 'False', reason: idle, message };
  return [
    readyCondition(allReady, size, action, progress ?? (degraded.status === 'True' ? degraded.reason : idle)),
    availableCondition(observation),
    progressing,
    degraded,
    { ...progressing, type: 'Reconciling' },
    stalled
      ? {
          type: 'Stalled',
          status: 'True',
          reason: degraded.reason,
          message: degraded.message,
        }
      : {
          type: 'Stalled',
          status: 'False',
          reason: CLUSTER_REASONS.asExpected,
          message: 'progress is possible',
        },
  ];
}
