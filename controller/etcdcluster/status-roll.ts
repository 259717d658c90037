// A rolling change as the status tells it (pure, docs/design/rolling-update.md): whether a pass is a step of the
// roll, which members are updated, the roll's message and its Events. Part of the status (status.ts).
import type { EtcdCluster, EtcdClusterStatus } from './api.js';
import type { EtcdObservation } from './observe-etcd.js';
import { CLUSTER_REASONS } from './reasons.js';
import { describeAction } from './status-progress.js';
import type { Action, PodView } from './types.js';

/** Where a rolling change stands: the spec's revision, each member Pod's, and whether the previous status
 *  said a roll was in progress (docs/design/rolling-update.md). */
export interface RollView {
  readonly updateRevision: string;
  readonly pods: readonly PodView[];
  readonly wasRolling: boolean;
}

/** Waits that are steps of a roll while it is in progress. */
const ROLL_WAITS = new Set<string>([
  CLUSTER_REASONS.podDisruptionBudget,
  CLUSTER_REASONS.podTerminating,
  CLUSTER_REASONS.membersNotReady,
  CLUSTER_REASONS.memberPodNotReady,
  CLUSTER_REASONS.memberCatchingUp,
  CLUSTER_REASONS.rollWouldLoseQuorum,
  CLUSTER_REASONS.rollingUpdateFailed,
]);

/**
 * The action is a step of a rolling change (`Progressing` reason `RollingUpdate`): a member Pod is out of date, or
 * the previous status said rolling and a member is not updated yet (the last rolled member catching up).
 */
export function isRollStep(action: Action, roll: RollView, updated: number, members: number): boolean {
  const outdated = roll.pods.some((pod) => pod.revision !== roll.updateRevision);
  if (!outdated && !(roll.wasRolling && updated < members)) return false;
  switch (action.kind) {
    case 'Steady':
      // Every Pod is at the revision, but the last rolled member is not Ready and caught up yet.
      return !outdated;
    case 'RollMember':
      return true;
    case 'MoveLeader':
      return action.purpose === 'roll';
    case 'CreatePod':
      return action.reason === 'recreate';
    case 'RemoveMember':
      return action.reason === 'roll';
    case 'Wait':
      return ROLL_WAITS.has(action.reason);
    default:
      return false;
  }
}

/** Members whose Pod is at the update revision, Ready, and who are healthy and caught up. */
export function updatedMembers(observation: EtcdObservation | undefined, roll: RollView): string[] {
  return (observation?.view.members ?? []).flatMap((member) => {
    const pod = roll.pods.find((candidate) => candidate.member === member.member);
    const updated = pod?.revision === roll.updateRevision && pod.ready && member.healthy && member.caughtUp;
    return updated && member.member ? [member.member] : [];
  });
}

/** `rolling to 5f0c2a91d3 (3.6.16): 1 of 3 members updated; waiting for member main-1 to catch up` */
export function rollMessage(
  cluster: EtcdCluster,
  action: Action,
  observation: EtcdObservation | undefined,
  roll: RollView,
): string {
  const members = observation?.view.members.length ?? roll.pods.length;
  const updated = updatedMembers(observation, roll).length;
  const step =
    action.kind === 'Steady'
      ? 'waiting for the last rolled member to be Ready and caught up'
      : describeAction(action);
  return `rolling to ${roll.updateRevision} (${cluster.spec.version}): ${updated} of ${members} members updated; ${step}`;
}

/**
 * Events a status change tells about a roll: `MemberUpdated` for each member that became updated while rolling,
 * `RollingUpdateCompleted` when the roll ended with every member updated.
 */
export function rollEvents(
  previous: EtcdClusterStatus,
  next: EtcdClusterStatus,
): { reason: string; message: string }[] {
  const rollingBefore = previous.conditions?.some(
    (condition) => condition.type === 'Progressing' && condition.reason === CLUSTER_REASONS.rollingUpdate,
  );
  if (!rollingBefore) return [];
  const revision = next.updateRevision;
  const updatedIn = (status: EtcdClusterStatus, at: string | undefined) =>
    new Set(
      (status.members ?? [])
        .filter((member) => member.podRevision === at && member.ready && member.caughtUp)
        .map((member) => member.name),
    );
  const before = updatedIn(previous, revision);
  const events = [...updatedIn(next, revision)]
    .filter((member) => !before.has(member))
    .map((member): { reason: string; message: string } => ({
      reason: CLUSTER_REASONS.memberUpdated,
      message: `member ${member} runs revision ${revision} and has caught up`,
    }));
  const rollingNow = next.conditions?.some(
    (condition) => condition.type === 'Progressing' && condition.reason === CLUSTER_REASONS.rollingUpdate,
  );
  const members = next.members?.length ?? 0;
  if (!rollingNow && members > 0 && next.updatedMembers === members) {
    events.push({
      reason: CLUSTER_REASONS.rollingUpdateCompleted,
      message: `all ${members} members run revision ${revision} (etcd ${next.currentVersion ?? 'version unknown'})`,
    });
  }
  return events;
}
