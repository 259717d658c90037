// The faults the status reports (pure): `Degraded` (the first real fault of docs/design/conventions.md,
// "Conditions and health"), etcd alarms, members down, quorum lost while paused, and whether the cluster is
// `Stalled`. Part of the status (status.ts).
import type { ConditionInput } from '../status/conditions.js';
import { type AbandonedData, abandonedMessage, RESTORE_ABANDONED_REASON } from './abandoned.js';
import type { EtcdCluster } from './api.js';
import type { EtcdObservation } from './observe-etcd.js';
import { isStarting } from './plan-facts.js';
import { CLUSTER_REASONS } from './reasons.js';
import { describeAction } from './status-progress.js';
import type { Action, PodView } from './types.js';

/** `NOSPACE` → `NoSpace`, `CORRUPT` → `Corrupt`: the Degraded reason and Event reason of an etcd alarm. */
export function alarmReason(alarm: string): string {
  return alarm === 'NOSPACE' ? CLUSTER_REASONS.noSpace : alarm.charAt(0) + alarm.slice(1).toLowerCase();
}

const ALARM_ADVICE: Record<string, string> = {
  NOSPACE:
    'the backend reached its quota (spec.quotaBackendBytes) and etcd refuses writes; free space with compaction and defragmentation (the defrag CronJob of addDefragSchedule disarms the alarm once every member is below the quota) or raise spec.quotaBackendBytes',
  CORRUPT:
    'a member data corruption check failed; etcd refuses writes: restore the cluster from a backup (EtcdRestore) after finding the corrupt member',
};

/** Degraded for the first kind of active alarm (NOSPACE before CORRUPT), naming the members it is raised for. */
function alarmCondition(
  cluster: EtcdCluster,
  observation: EtcdObservation | undefined,
): ConditionInput | undefined {
  const alarms = observation?.alarms ?? [];
  const first = alarms.find((a) => a.alarm === 'NOSPACE') ?? alarms[0];
  if (!first) return undefined;
  const members = alarms
    .filter((a) => a.alarm === first.alarm)
    .map((a) => a.member ?? `member ${a.memberId}`)
    .sort();
  return {
    type: 'Degraded',
    status: 'True',
    reason: alarmReason(first.alarm),
    message: `etcd alarm ${first.alarm} on ${members.join(', ')} of ${cluster.metadata.name}: ${ALARM_ADVICE[first.alarm]}`,
  };
}

/**
 * Quorum lost while `spec.paused` keeps the planner from saying so: the cluster has members (now or in the last
 * status), no quorum holds, and no member Pod is starting (a starting Pod may bring it back). The message, else
 * `undefined`.
 */
export function pausedQuorumLoss(
  cluster: EtcdCluster,
  action: Action,
  observation: EtcdObservation | undefined,
  pods: readonly PodView[],
): string | undefined {
  if (action.kind !== 'Paused' || observation?.view.quorum === true) return undefined;
  const known = observation?.view.members.length ?? cluster.status?.members?.length ?? 0;
  if (known === 0 || pods.some(isStarting)) return undefined;
  const voters = observation?.view.members.filter((member) => !member.learner) ?? [];
  const healthy = voters.filter((member) => member.healthy).length;
  const what = observation
    ? `${healthy} of ${voters.length} voting members are healthy`
    : `no member of ${known} answers`;
  return `${what}; spec.paused is true: the controller changes nothing until it is unpaused`;
}

/** Why a member Pod is down, from its view: `its Pod crash-loops (exit code 2: ...)`. */
function crashLoop(pod: PodView): string {
  return `its Pod crash-loops${pod.lastFailure ? ` (${pod.lastFailure})` : ''}`;
}

/**
 * A member down past its start bound (docs/design/conventions.md, "Conditions and health"): the planner removes it
 * as dead or lost, its Pod is lost (spec.failureDetection) or crash-loops while the pass does something else, or it
 * has no Pod while `spec.paused` keeps the controller from making one. A learner joining, a member rolling or a Pod
 * (re)starting within its bound (also on a node not Ready for less than the bound) is none of these.
 */
function memberDown(
  action: Action,
  observation: EtcdObservation | undefined,
  pods: readonly PodView[],
): ConditionInput | undefined {
  if (action.kind === 'RemoveMember' && (action.reason === 'dead' || action.reason === 'lost')) {
    const pod = pods.find((candidate) => candidate.member === action.member);
    const why =
      action.reason === 'lost'
        ? `its Pod is lost: ${action.detail ?? pod?.lost ?? 'see spec.failureDetection'}`
        : (action.detail ??
          (pod?.crashLooping ? crashLoop(pod) : 'its data is gone, or it answers as another member'));
    return {
      type: 'Degraded',
      status: 'True',
      reason: action.reason === 'lost' ? CLUSTER_REASONS.memberLost : CLUSTER_REASONS.memberDead,
      message: `member ${action.member} is ${action.reason} (${why}); it is removed from etcd and replaced`,
    };
  }
  const down = (observation?.view.members ?? []).flatMap((member) => {
    if (member.healthy || member.member === undefined) return [];
    const pod = pods.find((candidate) => candidate.member === member.member);
    if (pod?.lost) return [`member ${member.member}: its Pod is lost (${pod.lost})`];
    if (pod?.crashLooping) return [`member ${member.member}: ${crashLoop(pod)}`];
    if (!pod && action.kind === 'Paused')
      return [`member ${member.member}: no Pod, and spec.paused is true: nothing starts it`];
    return [];
  });
  if (down.length === 0) return undefined;
  return { type: 'Degraded', status: 'True', reason: CLUSTER_REASONS.memberDown, message: down.join('; ') };
}

/** `Degraded`: the first real fault of docs/design/conventions.md, "Conditions and health", else `AsExpected`. */
export function degradedCondition(
  cluster: EtcdCluster,
  action: Action,
  observation: EtcdObservation | undefined,
  abandoned: readonly AbandonedData[],
  quorumLostWhilePaused: string | undefined,
  pods: readonly PodView[],
): ConditionInput {
  if (action.kind === 'Refuse') {
    return {
      type: 'Degraded',
      status: 'True',
      reason: CLUSTER_REASONS.invalidSpec,
      message: describeAction(action),
    };
  }
  const quorumLost = action.kind === 'ReportQuorumLost' ? action.message : quorumLostWhilePaused;
  // Old data of a restore deleted before it completed (docs/design/restore.md): reported until the user acts.
  if (abandoned.length > 0) {
    const quorum = quorumLost ? `quorum lost (${quorumLost}); ` : '';
    const message = abandoned.map((data) => abandonedMessage(data.restore, data.pvcs)).join('; ');
    return { type: 'Degraded', status: 'True', reason: RESTORE_ABANDONED_REASON, message: quorum + message };
  }
  if (quorumLost) {
    return { type: 'Degraded', status: 'True', reason: CLUSTER_REASONS.quorumLost, message: quorumLost };
  }
  if (action.kind === 'Wait' && action.degraded) {
    return { type: 'Degraded', status: 'True', reason: action.reason, message: action.message };
  }
  return (
    alarmCondition(cluster, observation) ??
    memberDown(action, observation, pods) ?? {
      type: 'Degraded',
      status: 'False',
      reason: CLUSTER_REASONS.asExpected,
      message: 'no problem found',
    }
  );
}

/** Nothing the controller does clears these until the user changes something: never `Progressing` then. */
export function isStalled(action: Action, pausedLoss: string | undefined): boolean {
  return (
    action.kind === 'Refuse' ||
    action.kind === 'ReportQuorumLost' ||
    pausedLoss !== undefined ||
    (action.kind === 'Wait' && action.stalled === true)
  );
}
