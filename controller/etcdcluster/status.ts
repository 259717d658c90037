// The status the controller writes after each pass (pure): one input (the cluster, the action, the etcd
// observation, abandoned restore data, the member Pods) in, the whole status out. Its parts: what the pass does
// (status-progress.ts), the faults (status-faults.ts), the roll (status-roll.ts) and the conditions
// (status-conditions.ts).
import { clientURL, memberSelectorString, peerURL, schemes } from '../../constructs/conventions/index.js';
import { type ConditionInput, kubeTime, withTransitions } from '../status/conditions.js';
import type { AbandonedData } from './abandoned.js';
import type { EtcdCluster, EtcdClusterStatus, MemberStatus } from './api.js';
import type { EtcdObservation } from './observe-etcd.js';
import { CLUSTER_REASONS } from './reasons.js';
import { podRevision } from './revision.js';
import { nextRevisionFloor } from './revision-floor.js';
import { type BackupPart, NO_BACKUPS } from './status-backups.js';
import { conditionsFor } from './status-conditions.js';
import { progressReason } from './status-progress.js';
import { type RollView, updatedMembers } from './status-roll.js';
import type { Action, PodView } from './types.js';

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
  if (progressing?.reason === CLUSTER_REASONS.rollingUpdate) return 'Rolling';
  if (conditions.find((condition) => condition.type === 'Ready')?.status === 'True') return 'Running';
  return progressReason(action) ?? 'Pending';
}

/**
 * The status after a pass, as a merge patch (`restore` belongs to the restore reconciler and is left out);
 * the member list is kept from before, all not ready, when no member answered; `abandoned`: PVCs left by a restore
 * deleted before it completed (`Degraded`, reason `RestoreAbandoned`); `pods`: the member Pods, for the roll;
 * `backups`: the backups part (status-backups.ts), none for a cluster without backup CronJobs.
 */
export function buildStatus(
  cluster: EtcdCluster,
  action: Action,
  observation: EtcdObservation | undefined,
  now: Date,
  abandoned: readonly AbandonedData[] = [],
  pods: readonly PodView[] = [],
  backups: BackupPart = NO_BACKUPS,
): EtcdClusterStatus {
  const previous = cluster.status ?? {};
  const wasRolling =
    previous.conditions?.some(
      (condition) => condition.type === 'Progressing' && condition.reason === CLUSTER_REASONS.rollingUpdate,
    ) === true;
  const roll: RollView = { updateRevision: podRevision(cluster), pods, wasRolling };
  const next = [
    ...conditionsFor(cluster, action, observation, abandoned, roll),
    ...(backups.condition ? [backups.condition] : []),
  ];
  const members = observation
    ? memberStatuses(cluster, observation, roll)
    : (previous.members ?? []).map((member) => ({ ...member, ready: false }));
  // The lowest version, only from a complete set: one old member not answering must not show the new one early.
  const complete = observation !== undefined && members.every((member) => member.version !== undefined);
  const versions = members.flatMap((member) => (member.version ? [member.version] : []));
  const currentVersion = (complete ? lowestVersion(versions) : undefined) ?? previous.currentVersion;
  const clusterID = observation?.clusterId ?? previous.clusterID;
  const revisionFloor = nextRevisionFloor(
    previous.revisionFloor,
    [...(observation?.statuses.values() ?? [])].map((status) => status.revision),
  );
  return {
    observedGeneration: cluster.metadata.generation ?? 0,
    conditions: withTransitions(
      next,
      previous.conditions ?? [],
      cluster.metadata.generation ?? 0,
      kubeTime(now),
    ),
    members,
    replicas: observation ? observation.view.members.length : (previous.replicas ?? 0),
    readyMembers: members.filter((member) => member.ready).length,
    selector: memberSelectorString(cluster.metadata.name as string),
    updateRevision: roll.updateRevision,
    updatedMembers: updatedMembers(observation, roll).length,
    ...(currentVersion ? { currentVersion } : {}),
    ...(clusterID ? { clusterID } : {}),
    ...(revisionFloor ? { revisionFloor } : {}),
    phase: phaseOf(action, next),
    backups: backups.backups,
    ...(backups.lastBackupTime ? { lastBackupTime: backups.lastBackupTime } : {}),
  };
}
