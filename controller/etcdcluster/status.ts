// The status the controller writes after each pass (pure): conditions with reasons, members, counts.

import {
  clientURL,
  DEFAULT_SIZE,
  memberSelectorString,
  peerURL,
} from '../../constructs/conventions/index.js';
import { type AbandonedData, abandonedMessage, RESTORE_ABANDONED_REASON } from '../etcdrestore/abandoned.js';
import { type ConditionInput, withTransitions } from '../status/conditions.js';
import type { EtcdCluster, EtcdClusterStatus, MemberStatus } from './api.js';
import type { EtcdObservation } from './observe-etcd.js';
import type { Action } from './types.js';

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
      return action.reason === 'dead' ? 'ReplacingMember' : 'RemovingMember';
    case 'Wait':
      return action.reason;
    default:
      return undefined;
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
    default:
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

function degraded(
  cluster: EtcdCluster,
  action: Action,
  observation: EtcdObservation | undefined,
  abandoned: readonly AbandonedData[],
): ConditionInput {
  if (action.kind === 'Refuse') {
    return { type: 'Degraded', status: 'True', reason: 'InvalidSpec', message: describeAction(action) };
  }
  // Old data of a restore deleted before it completed (docs/design/restore.md): reported until the user acts.
  if (abandoned.length > 0) {
    const quorum = action.kind === 'ReportQuorumLost' ? `quorum lost (${action.message}); ` : '';
    const message = abandoned.map((data) => abandonedMessage(data.restore, data.pvcs)).join('; ');
    return { type: 'Degraded', status: 'True', reason: RESTORE_ABANDONED_REASON, message: quorum + message };
  }
  if (action.kind === 'ReportQuorumLost') {
    return { type: 'Degraded', status: 'True', reason: 'QuorumLost', message: action.message };
  }
  if (action.kind === 'Wait' && action.degraded) {
    return { type: 'Degraded', status: 'True', reason: action.reason, message: action.message };
  }
  const alarm = alarmCondition(cluster, observation);
  if (alarm) return alarm;
  const dead = action.kind === 'RemoveMember' && action.reason === 'dead';
  const unhealthy = observation?.view.members.filter((member) => !member.healthy).length ?? 0;
  if (dead || unhealthy > 0) {
    return {
      type: 'Degraded',
      status: 'True',
      reason: dead ? 'MemberDead' : 'MembersUnhealthy',
      message: `${unhealthy} member(s) not healthy`,
    };
  }
  return { type: 'Degraded', status: 'False', reason: 'AsExpected', message: 'no problem found' };
}

function conditionsFor(
  cluster: EtcdCluster,
  action: Action,
  observation: EtcdObservation | undefined,
  abandoned: readonly AbandonedData[],
): ConditionInput[] {
  const size = cluster.spec.size ?? DEFAULT_SIZE;
  const members = observation?.view.members ?? [];
  const allReady =
    members.length === size &&
    members.every((member) => member.healthy && !member.learner) &&
    observation?.view.quorum;
  const quorum = observation?.view.quorum === true;
  const progress = progressReason(action);
  const progressing: ConditionInput = progress
    ? { type: 'Progressing', status: 'True', reason: progress, message: describeAction(action) }
    : {
        type: 'Progressing',
        status: 'False',
        reason: action.kind === 'Paused' ? 'Paused' : 'Idle',
        message: describeAction(action),
      };
  const degradedCondition = degraded(cluster, action, observation, abandoned);
  const stalled = action.kind === 'Refuse' || action.kind === 'ReportQuorumLost';
  return [
    allReady
      ? {
          type: 'Ready',
          status: 'True',
          reason: 'AllMembersReady',
          message: `${size} of ${size} members ready`,
        }
      : {
          type: 'Ready',
          status: 'False',
          reason: progress ?? degradedCondition.reason,
          message: describeAction(action),
        },
    quorum
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
        },
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

function memberStatuses(cluster: EtcdCluster, observation: EtcdObservation): MemberStatus[] {
  const { name, namespace } = cluster.metadata as { name: string; namespace: string };
  return observation.view.members.map((member) => {
    const label = member.member ?? member.id;
    const status = member.member ? observation.statuses.get(member.member) : undefined;
    const version = status?.version;
    return {
      name: label,
      id: member.id,
      ...(member.member
        ? {
            peerURL: peerURL(name, namespace, member.member),
            clientURL: clientURL(name, namespace, member.member),
          }
        : {}),
      learner: member.learner,
      ready: member.healthy,
      ...(version ? { version } : {}),
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
  if (conditions.find((condition) => condition.type === 'Ready')?.status === 'True') return 'Running';
  return progressReason(action) ?? 'Pending';
}

/**
 * The status after a pass, as a merge patch (`restore` belongs to the restore reconciler and is left out);
 * the member list is kept from before, all not ready, when no member answered; `abandoned`: PVCs left by a restore
 * deleted before it completed (`Degraded`, reason `RestoreAbandoned`).
 */
export function buildStatus(
  cluster: EtcdCluster,
  action: Action,
  observation: EtcdObservation | undefined,
  now: Date,
  abandoned: readonly AbandonedData[] = [],
): EtcdClusterStatus {
  const previous = cluster.status ?? {};
  const next = conditionsFor(cluster, action, observation, abandoned);
  const members = observation
    ? memberStatuses(cluster, observation)
    : (previous.members ?? []).map((member) => ({ ...member, ready: false }));
  const versions = members.flatMap((member) => (member.version ? [member.version] : []));
  const currentVersion = lowestVersion(versions) ?? previous.currentVersion;
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
    ...(currentVersion ? { currentVersion } : {}),
    ...(clusterID ? { clusterID } : {}),
    phase: phaseOf(action, next),
  };
}
