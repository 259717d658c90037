// Kubernetes objects reduced to what the restore planner reads (pure).
import type { V1PersistentVolumeClaim, V1Pod } from '@kubernetes/client-node';
import {
  ANNOTATION_CLUSTER_TOKEN,
  DEFAULT_SIZE,
  MEMBER_LABEL,
  memberOfPvc,
  RETAINED_BY_RESTORE_LABEL,
  s3CredentialsProblem,
} from '../../constructs/conventions/index.js';
import { seedRestoreFailure } from '../restore/init-failure.js';
import type { EtcdCluster, EtcdRestore, S3Location } from './api.js';
import type {
  MemberPodView,
  MemberPvcView,
  RestorePhase,
  RestoreView,
  SurvivorView,
  TargetEtcdView,
  TargetView,
} from './types.js';

/** What is wrong with an S3 location without asking S3, or `undefined`. */
export function sourceProblem(location: S3Location | undefined): string | undefined {
  if (!location?.bucket) return 'spec.backup.bucket is empty';
  const hasKey = location.key !== undefined && location.key !== '';
  const hasPrefix = location.latestUnderPrefix !== undefined;
  if (hasKey === hasPrefix) {
    return `spec.backup must give exactly one of key and latestUnderPrefix, got ${hasKey ? 'both' : 'neither'}`;
  }
  const credentials = s3CredentialsProblem('spec.backup', location);
  if (credentials) return credentials;
  return undefined;
}

export function toRestoreView(restore: EtcdRestore): RestoreView {
  const survivor = restore.spec?.survivor;
  const problem = survivor ? undefined : sourceProblem(restore.spec?.backup);
  const { sourceMember, sourceMemberId } = restore.status ?? {};
  return {
    name: restore.metadata.name as string,
    uid: restore.metadata.uid as string,
    phase: (restore.status?.phase ?? 'Pending') as RestorePhase,
    clusterName: restore.spec.clusterName,
    allowHealthyCluster: restore.spec.allowHealthyCluster === true,
    ...(restore.spec.backup ? { backup: restore.spec.backup } : {}),
    ...(survivor ? { survivor } : {}),
    ...(sourceMember && sourceMemberId ? { sourceMember: { name: sourceMember, id: sourceMemberId } } : {}),
    ...(problem ? { sourceProblem: problem } : {}),
    ...(restore.status?.backupKey ? { backupKey: restore.status.backupKey } : {}),
  };
}

export function toTargetView(cluster: EtcdCluster): TargetView {
  const { spec, status, metadata } = cluster;
  return {
    name: metadata.name as string,
    uid: metadata.uid as string,
    deleting: Boolean(metadata.deletionTimestamp),
    paused: spec.paused === true,
    size: spec.size ?? DEFAULT_SIZE,
    ...(status?.restore ? { lock: status.restore } : {}),
  };
}

export function toMemberPodView(pod: V1Pod): MemberPodView | undefined {
  const member = pod.metadata?.labels?.[MEMBER_LABEL];
  if (!member) return undefined;
  const ready = pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
  const token = pod.metadata?.annotations?.[ANNOTATION_CLUSTER_TOKEN];
  const failure = seedRestoreFailure(pod);
  return {
    name: pod.metadata?.name as string,
    member,
    terminating: Boolean(pod.metadata?.deletionTimestamp),
    ready,
    ...(token ? { token } : {}),
    ...(failure ? { initFailure: failure.description } : {}),
    ...(failure?.transient ? { initFailureTransient: true as const } : {}),
  };
}

export function toMemberPvcView(pvc: V1PersistentVolumeClaim): MemberPvcView {
  const name = pvc.metadata?.name as string;
  const labels = pvc.metadata?.labels ?? {};
  const token = pvc.metadata?.annotations?.[ANNOTATION_CLUSTER_TOKEN];
  const retainedBy = labels[RETAINED_BY_RESTORE_LABEL];
  return {
    name,
    member: labels[MEMBER_LABEL] ?? memberOfPvc(name) ?? name,
    terminating: Boolean(pvc.metadata?.deletionTimestamp),
    ...(token ? { token } : {}),
    ...(retainedBy !== undefined ? { retainedBy } : {}),
  };
}

/** The part of the membership reconciler's etcd observation this planner reads. */
export interface EtcdQuorumView {
  readonly view: {
    readonly quorum: boolean;
    readonly members: readonly {
      readonly id: string;
      readonly member: string | undefined;
      readonly healthy: boolean;
      readonly learner: boolean;
      readonly wrongIdentity: boolean;
    }[];
  };
  /** The cluster id the member list came from. */
  readonly clusterId: string;
  /** Status of each member that answered, by member name. */
  readonly statuses: ReadonlyMap<
    string,
    {
      readonly memberId: string;
      readonly clusterId: string;
      readonly isLearner: boolean;
      readonly raftIndex: string;
      readonly revision: string;
      readonly version: string;
    }
  >;
}

/** Every member that answered Status, as a candidate survivor (docs/design/restore.md, `spec.survivor`). */
export function toSurvivorViews(
  observation: EtcdQuorumView | undefined,
  recordedClusterId: string | undefined,
): SurvivorView[] {
  if (!observation) return [];
  const clusterId = recordedClusterId ?? observation.clusterId;
  return [...observation.statuses.entries()]
    .map(([member, status]) => {
      const listed = observation.view.members.find((candidate) => candidate.member === member);
      return {
        member,
        id: status.memberId,
        sameCluster:
          status.clusterId === clusterId && listed?.id === status.memberId && listed.wrongIdentity !== true,
        learner: status.isLearner || listed?.learner === true,
        raftIndex: status.raftIndex,
        revision: status.revision,
        version: status.version,
      };
    })
    .sort((a, b) => a.member.localeCompare(b.member, 'en', { numeric: true }));
}

export function toTargetEtcdView(observation: EtcdQuorumView | undefined): TargetEtcdView | undefined {
  if (!observation) return undefined;
  const { members, quorum } = observation.view;
  return {
    quorum,
    members: members.length,
    healthyVoters: members.filter((member) => member.healthy && !member.learner).length,
    learners: members.filter((member) => member.learner).length,
  };
}
