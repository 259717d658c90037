// The status the controller writes after each pass (pure): conditions with reasons, members, counts.

import {
  clientURL,
  DEFAULT_SIZE,
  memberSelectorString,
  peerURL,
  schemes,
} from '../../constructs/conventions/index.js';
import { type ConditionInput, withTransitions } from '../status/conditions.js';
import { type AbandonedData, abandonedMessage, RESTORE_ABANDONED_REASON } from './abandoned.js';
import type { EtcdCluster, EtcdClusterStatus, MemberStatus } from './api.js';
import type { EtcdObservation } from './observe-etcd.js';
import { isStarting } from './plan-facts.js';
import { describeRestoreStep } from './plan-restore.js';
import { isRestoreLockAction } from './restore-types.js';
import { podRevision } from './revision.js';
import type { Action, PodView } from './types.js';

/** Where a rolling change stands: the spec's revision, each member Pod's, and whether the previous status
 *  said a roll was in progress (docs/design/rolling-update.md). */
export interface RollView {
  readonly updateRevision: string;
  readonly pods: readonly PodView[];
  readonly wasRolling: boolean;
}

/** Waits that are steps of a roll while it is in progress. */
const ROLL_WAITS = new Set([
  'PodDisruptionBudget',
  'PodTerminating',
  'MembersNotReady',
  'MemberPodNotReady',
  'MemberCatchingUp',
  'RollWouldLoseQuorum',
  'RollingUpdateFailed',
]);

/**
 * What the status tells for a pass whose change was refused for now: a member of the roll that the
 * PodDisruptionBudget does not let go (eviction answered 429) waits, and says so; other actions are told as planned.
 */
export function reportedAction(action: Action, notYet: string | undefined): Action {
  if (action.kind !== 'RollMember' || notYet === undefined) return action;
  return {
    kind: 'Wait',
    reason: 'PodDisruptionBudget',
    message: `member ${action.member} waits to be restarted: ${notYet}`,
    requeueAfterMs: 0,
  };
}

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
/** The reason `Progressing` gives for each in-flight action. */
function progressReason(action: Action): string | undefined {
  switch (action.kind) {
    case 'CreatePVC':
      return action.token ? 'Seeding' : 'AddingMember';
    case 'MarkExisting':
      return 'Seeding';
    case 'CreatePod':
      return { seed: 'Seeding', join: 'AddingMember', recreate: 'RecreatingMemberPod' }[action.reason];
    case 'AddLearner':
    case 'PromoteLearner':
      return 'AddingMember';
    case 'MoveLeader':
    case 'DeletePod':
    case 'DeletePVC':
      return 'RemovingMember';
    case 'RemoveMember':
      return action.reason === 'dead' || action.reason === 'lost' ? 'ReplacingMember' : 'RemovingMember';
    case 'Wait':
      return action.reason;
    // After a completed restore the cluster is Ready: deleting what it retained and clearing its lock is
    // housekeeping, not progress a GitOps tool should wait for (Healthy stays Healthy; the Events tell it).
    case 'DeleteRetainedPVC':
      return undefined;
    case 'ClearRestoreLock':
      return action.outcome === 'Completed' ? undefined : 'Restoring';
    default:
      return isRestoreLockAction(action) ? 'Restoring' : undefined;
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
    case 'Paused':
      return 'spec.paused is true: the controller changes nothing';
    case 'RollMember':
      return `restarting member ${action.member} at revision ${action.toRevision}`;
    case 'MoveLeader':
      return action.purpose === 'roll'
        ? `moving leadership to ${action.toMember}, so the leader is rolled last`
        : `moving leadership to ${action.toMember} before removing the leader`;
    default:
      if (isRestoreLockAction(action)) return describeRestoreStep(action);
      return `${action.kind} ${'member' in action ? action.member : ''}`.trim();
  }
}

/** `NOSPACE` → `NoSpace`, `CORRUPT` → `Corrupt`: the Degraded reason and Event reason of an etcd alarm. */
export function alarmReason(alarm: string): string {
  return alarm === 'NOSPACE' ? 'NoSpace' : alarm.charAt(0) + alarm.slice(1).toLowerCase();
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
        : pod?.crashLooping
          ? crashLoop(pod)
          : 'its data is gone, or it answers as another member';
    return {
      type: 'Degraded',
      status: 'True',
      reason: action.reason === 'lost' ? 'MemberLost' : 'MemberDead',
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
  return { type: 'Degraded', status: 'True', reason: 'MemberDown', message: down.join('; ') };
}

/** `Degraded`: the first real fault of docs/design/conventions.md, "Conditions and health", else `AsExpected`. */
function degraded(
  cluster: EtcdCluster,
  action: Action,
  observation: EtcdObservation | undefined,
  abandoned: readonly AbandonedData[],
  quorumLostWhilePaused: string | undefined,
  pods: readonly PodView[],
): ConditionInput {
  if (action.kind === 'Refuse') {
    return { type: 'Degraded', status: 'True', reason: 'InvalidSpec', message: describeAction(action) };
  }
  const quorumLost = action.kind === 'ReportQuorumLost' ? action.message : quorumLostWhilePaused;
  // Old data of a restore deleted before it completed (docs/design/restore.md): reported until the user acts.
  if (abandoned.length > 0) {
    const quorum = quorumLost ? `quorum lost (${quorumLost}); ` : '';
    const message = abandoned.map((data) => abandonedMessage(data.restore, data.pvcs)).join('; ');
    return { type: 'Degraded', status: 'True', reason: RESTORE_ABANDONED_REASON, message: quorum + message };
  }
  if (quorumLost) {
    return { type: 'Degraded', status: 'True', reason: 'QuorumLost', message: quorumLost };
  }
  if (action.kind === 'Wait' && action.degraded) {
    return { type: 'Degraded', status: 'True', reason: action.reason, message: action.message };
  }
  return (
    alarmCondition(cluster, observation) ??
    memberDown(action, observation, pods) ?? {
      type: 'Degraded',
      status: 'False',
      reason: 'AsExpected',
      message: 'no problem found',
    }
  );
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
function rollMessage(
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

/** Nothing the controller does clears these until the user changes something: never `Progressing` then. */
function isStalled(action: Action, pausedLoss: string | undefined): boolean {
  return (
    action.kind === 'Refuse' ||
    action.kind === 'ReportQuorumLost' ||
    pausedLoss !== undefined ||
    (action.kind === 'Wait' && action.stalled === true)
  );
}

/** `Ready`: `size` healthy voters with quorum, else the step in progress or the fault. */
function readyCondition(
  size: number,
  observation: EtcdObservation | undefined,
  action: Action,
  notReadyReason: string,
): ConditionInput {
  const members = observation?.view.members ?? [];
  const allReady =
    members.length === size &&
    members.every((member) => member.healthy && !member.learner) &&
    observation?.view.quorum;
  return allReady
    ? {
        type: 'Ready',
        status: 'True',
        reason: 'AllMembersReady',
        message: `${size} of ${size} members ready`,
      }
    : { type: 'Ready', status: 'False', reason: notReadyReason, message: describeAction(action) };
}

function availableCondition(observation: EtcdObservation | undefined): ConditionInput {
  return observation?.view.quorum === true
    ? {
        type: 'Available',
        status: 'True',
        reason: 'QuorumHeld',
        message: 'a majority of voting members is healthy',
      }
    : {
        type: 'Available',
        status: 'False',
        reason: observation ? 'QuorumLost' : 'NoMemberAnswers',
        message: 'clients cannot write',
      };
}

function conditionsFor(
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
  const degradedCondition = degraded(cluster, action, observation, abandoned, pausedLoss, roll.pods);
  const stalled = isStalled(action, pausedLoss);
  const progress = stalled ? undefined : rolling ? 'RollingUpdate' : progressReason(action);
  const message = rolling ? rollMessage(cluster, action, observation, roll) : describeAction(action);
  const idle = action.kind === 'Paused' ? 'Paused' : stalled ? degradedCondition.reason : 'Idle';
  const progressing: ConditionInput = progress
    ? { type: 'Progressing', status: 'True', reason: progress, message }
    : { type: 'Progressing', status: 'False', reason: idle, message };
  return [
    readyCondition(
      cluster.spec.size ?? DEFAULT_SIZE,
      observation,
      action,
      progress ?? (degradedCondition.status === 'True' ? degradedCondition.reason : idle),
    ),
    availableCondition(observation),
    progressing,
    degradedCondition,
    { ...progressing, type: 'Reconciling' },
    stalled
      ? {
          type: 'Stalled',
          status: 'True',
          reason: degradedCondition.reason,
          message: degradedCondition.message,
        }
      : { type: 'Stalled', status: 'False', reason: 'AsExpected', message: 'progress is possible' },
  ];
}

function memberStatuses(cluster: EtcdCluster, observation: EtcdObservation, roll: RollView): MemberStatus[] {
  const { name, namespace } = cluster.metadata as { name: string; namespace: string };
  return observation.view.members.map((member) => {
    const label = member.member ?? member.id;
    const status = member.member ? observation.statuses.get(member.member) : undefined;
    const version = status?.version;
    const podRevision = roll.pods.find((pod) => pod.member === member.member)?.revision;
    return {
      name: label,
      id: member.id,
      ...(member.member
        ? {
            peerURL: peerURL(name, namespace, member.member, schemes(cluster.spec.tls).peer),
            clientURL: clientURL(name, namespace, member.member, schemes(cluster.spec.tls).client),
          }
        : {}),
      learner: member.learner,
      ready: member.healthy,
      ...(version ? { version } : {}),
      ...(podRevision ? { podRevision } : {}),
      ...(member.healthy && !member.learner ? { caughtUp: member.caughtUp } : {}),
      ...(status ? { dbSize: status.dbSize, dbSizeInUse: status.dbSizeInUse } : {}),
    };
  });
}

function lowestVersion(versions: readonly string[]): string | undefined {
  return [...versions].sort((a, b) => a.localeCompare(b, 'en', { numeric: true }))[0];
}

function phaseOf(action: Action, conditions: readonly ConditionInput[]): string {
  if (action.kind === 'Paused') return 'Paused';
  if (action.kind === 'ReportQuorumLost') return 'QuorumLost';
  if (action.kind === 'Refuse') return 'Degraded';
  const progressing = conditions.find((condition) => condition.type === 'Progressing');
  if (progressing?.reason === 'RollingUpdate') return 'Rolling';
  if (conditions.find((condition) => condition.type === 'Ready')?.status === 'True') return 'Running';
  return progressReason(action) ?? 'Pending';
}

/**
 * The status after a pass, as a merge patch (`restore` belongs to the restore reconciler and is left out);
 * the member list is kept from before, all not ready, when no member answered; `abandoned`: PVCs left by a restore
 * deleted before it completed (`Degraded`, reason `RestoreAbandoned`); `pods`: the member Pods, for the roll.
 */
export function buildStatus(
  cluster: EtcdCluster,
  action: Action,
  observation: EtcdObservation | undefined,
  now: Date,
  abandoned: readonly AbandonedData[] = [],
  pods: readonly PodView[] = [],
): EtcdClusterStatus {
  const previous = cluster.status ?? {};
  const wasRolling =
    previous.conditions?.some(
      (condition) => condition.type === 'Progressing' && condition.reason === 'RollingUpdate',
    ) === true;
  const roll: RollView = { updateRevision: podRevision(cluster), pods, wasRolling };
  const next = conditionsFor(cluster, action, observation, abandoned, roll);
  const members = observation
    ? memberStatuses(cluster, observation, roll)
    : (previous.members ?? []).map((member) => ({ ...member, ready: false }));
  // The lowest version, only from a complete set: one old member not answering must not show the new one early.
  const complete = observation !== undefined && members.every((member) => member.version !== undefined);
  const versions = members.flatMap((member) => (member.version ? [member.version] : []));
  const currentVersion = (complete ? lowestVersion(versions) : undefined) ?? previous.currentVersion;
  const clusterID = observation?.clusterId ?? previous.clusterID;
  return {
    observedGeneration: cluster.metadata.generation ?? 0,
    conditions: withTransitions(
      next,
      previous.conditions ?? [],
      cluster.metadata.generation ?? 0,
      now.toISOString(),
    ),
    members,
    replicas: observation ? observation.view.members.length : (previous.replicas ?? 0),
    readyMembers: members.filter((member) => member.ready).length,
    selector: memberSelectorString(cluster.metadata.name as string),
    updateRevision: roll.updateRevision,
    updatedMembers: updatedMembers(observation, roll).length,
    ...(currentVersion ? { currentVersion } : {}),
    ...(clusterID ? { clusterID } : {}),
    phase: phaseOf(action, next),
  };
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
    (condition) => condition.type === 'Progressing' && condition.reason === 'RollingUpdate',
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
    .map((member) => ({
      reason: 'MemberUpdated',
      message: `member ${member} runs revision ${revision} and has caught up`,
    }));
  const rollingNow = next.conditions?.some(
    (condition) => condition.type === 'Progressing' && condition.reason === 'RollingUpdate',
  );
  const members = next.members?.length ?? 0;
  if (!rollingNow && members > 0 && next.updatedMembers === members) {
    events.push({
      reason: 'RollingUpdateCompleted',
      message: `all ${members} members run revision ${revision} (etcd ${next.currentVersion ?? 'version unknown'})`,
    });
  }
  return events;
}
