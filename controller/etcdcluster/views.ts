// Kubernetes objects reduced to what the planner reads (pure).
import type {
  V1ContainerStateTerminated,
  V1ContainerStatus,
  V1Node,
  V1PersistentVolumeClaim,
  V1Pod,
} from '@kubernetes/client-node';
import {
  ANNOTATION_ABANDONED_BY_RESTORE,
  ANNOTATION_CLUSTER_TOKEN,
  ANNOTATION_CLUSTER_UID,
  ANNOTATION_EVICT,
  ANNOTATION_INITIAL_CLUSTER_STATE,
  ANNOTATION_INITIAL_MEMBERS,
  ANNOTATION_POD_REVISION,
  ANNOTATION_VERSION,
  DEFAULT_SIZE,
  DEFAULT_STORAGE_SIZE,
  type FailureBounds,
  lostReason,
  MEMBER_LABEL,
  memberOfPvc,
  nodeNotReadyNote,
  type PodPlacement,
  RETAINED_BY_RESTORE_LABEL,
  type Scheme,
  schemes,
} from '../../constructs/conventions/index.js';
import { seedRestoreFailure } from '../restore/init-failure.js';
import { bootstrapBackup } from '../restore/seed-init-container.js';
import type { EtcdCluster } from './api.js';
import { podRevision } from './revision.js';
import type { ClusterView, PodView, PvcView } from './types.js';

/** Restarts after which a Pod that is not ready counts as crash-looping (see {@link isCrashLooping}). */
export const CRASH_LOOP_RESTARTS = 3;

export function toClusterView(cluster: EtcdCluster): ClusterView {
  const { spec, status, metadata } = cluster;
  return {
    name: metadata.name as string,
    namespace: metadata.namespace as string,
    uid: metadata.uid as string,
    deleting: Boolean(metadata.deletionTimestamp),
    paused: spec.paused === true,
    ...(status?.restore ? { restore: status.restore } : {}),
    size: spec.size ?? DEFAULT_SIZE,
    allowEvenSize: spec.allowEvenSize === true,
    version: spec.version,
    storage: {
      size: spec.storage?.size ?? DEFAULT_STORAGE_SIZE,
      ...(spec.storage?.storageClassName ? { storageClassName: spec.storage.storageClassName } : {}),
      ephemeral: spec.storage?.ephemeral === true,
    },
    whenScaled: spec.persistentVolumeClaimRetentionPolicy?.whenScaled ?? 'Retain',
    backend: {
      storage: spec.storage ?? {},
      ...(spec.quotaBackendBytes !== undefined ? { quotaBackendBytes: spec.quotaBackendBytes } : {}),
      ...(spec.autoCompaction ? { autoCompaction: spec.autoCompaction } : {}),
      ...(spec.extraFlags ? { extraFlags: spec.extraFlags } : {}),
    },
    ...(status?.currentVersion ? { runningVersion: status.currentVersion } : {}),
    revision: podRevision(cluster),
    ...(bootstrapBackup(cluster) ? { bootstrapsFromBackup: true as const } : {}),
    knownMembers: (status?.members ?? []).map((member) => member.name),
    schemes: schemes(spec.tls),
  };
}

/** The container's most recent termination: the current one while it waits to restart, else the last one. */
function lastTermination(container: V1ContainerStatus | undefined): V1ContainerStateTerminated | undefined {
  return container?.state?.terminated ?? container?.lastState?.terminated;
}

/**
 * A member Pod cannot run (docs/design/membership.md, "Dead members"): phase `Failed`, or restarted at least
 * {@link CRASH_LOOP_RESTARTS} times, not ready, and its last run ended with etcd exiting by itself with an error
 * (exit code 1..127: "member has already been bootstrapped", a raft panic, a corrupt data dir). A process killed
 * from outside (SIGKILL, OOM, a liveness kill: exit code ≥ 128) says nothing about its data, so it never counts,
 * however often it happened: such a member comes back by itself. The planner also requires the member itself to be
 * unhealthy, so etcd's own health always dominates.
 */
export function isCrashLooping(pod: V1Pod): boolean {
  if (pod.status?.phase === 'Failed') return true;
  const container = pod.status?.containerStatuses?.find((status) => status.name === 'etcd');
  const ready = pod.status?.conditions?.some(
    (condition) => condition.type === 'Ready' && condition.status === 'True',
  );
  if (ready === true || (container?.restartCount ?? 0) < CRASH_LOOP_RESTARTS) return false;
  const exitCode = lastTermination(container)?.exitCode;
  return exitCode !== undefined && exitCode > 0 && exitCode < 128;
}

/** Longest termination message kept in a status message. */
const FAILURE_MESSAGE_LENGTH = 300;

/**
 * The line of etcd's log tail (the kubelet's `FallbackToLogsOnError` message) that says why it stopped: a flag
 * error (printed before the usage text), else the last error-level JSON line's `msg` and `error`, else a Go
 * `panic: ` line, else "etcd panicked" when only stack frames are left, else the last line.
 */
export function failureLine(message: string | undefined): string | undefined {
  const lines = (message ?? '')
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  const flag = lines.find((line) => /^flag provided but not defined|^invalid (argument|value)/.test(line));
  if (flag) return flag.slice(0, FAILURE_MESSAGE_LENGTH);
  for (const line of [...lines].reverse()) {
    if (!/"level":"(fatal|panic|error)"/.test(line)) continue;
    try {
      const entry = JSON.parse(line) as { msg?: string; error?: string };
      return [entry.msg, entry.error].filter(Boolean).join(': ').slice(0, FAILURE_MESSAGE_LENGTH);
    } catch {
      return line.slice(0, FAILURE_MESSAGE_LENGTH);
    }
  }
  const panic = lines.find((line) => line.startsWith('panic: '));
  if (panic) return panic.slice(0, FAILURE_MESSAGE_LENGTH);
  // The tail the kubelet keeps (2 KiB) may hold only the frames of a Go stack trace.
  if (lines.some((line) => /^goroutine \d+ \[|\.go:\d+/.test(line)))
    return 'etcd panicked; its Go stack trace is in the container log (kubectl logs --previous)';
  return lines.at(-1)?.slice(0, FAILURE_MESSAGE_LENGTH);
}

/** etcd's last exit by itself with an error (exit code 1..127), in one line; kills from outside are not failures. */
function lastFailure(container: V1ContainerStatus | undefined): string | undefined {
  const terminated = lastTermination(container);
  if (!terminated || terminated.exitCode <= 0 || terminated.exitCode >= 128) return undefined;
  const why = failureLine(terminated.message);
  return `exit code ${terminated.exitCode}${why ? `: ${why}` : ''}`;
}

/** What was read of the member Pods' Nodes: by name, `missing` when the Node object does not exist. */
export type NodeReadings = ReadonlyMap<string, V1Node | 'missing'>;

/** The Pod's Node and timings as the lost rule reads them (conventions/failure-detection.ts). */
export function placementOf(pod: V1Pod, nodes: NodeReadings): PodPlacement {
  const nodeName = pod.spec?.nodeName;
  const read = nodeName ? nodes.get(nodeName) : undefined;
  const readyCondition =
    read && read !== 'missing'
      ? read.status?.conditions?.find((condition) => condition.type === 'Ready')
      : undefined;
  const node =
    read === 'missing'
      ? ('missing' as const)
      : read
        ? {
            ready: readyCondition?.status === 'True',
            ...(readyCondition?.lastTransitionTime
              ? { notReadySinceMs: new Date(readyCondition.lastTransitionTime).getTime() }
              : {}),
          }
        : undefined;
  const scheduled = pod.status?.conditions?.find((condition) => condition.type === 'PodScheduled');
  const unscheduled = !nodeName && scheduled?.status === 'False';
  const created = pod.metadata?.creationTimestamp;
  const deletion = pod.metadata?.deletionTimestamp;
  return {
    ...(nodeName ? { nodeName } : {}),
    ...(node ? { node } : {}),
    ...(deletion ? { deletionMs: new Date(deletion).getTime() } : {}),
    ...(unscheduled && created ? { unscheduledSinceMs: new Date(created).getTime() } : {}),
    ...(unscheduled && scheduled?.message ? { unscheduledMessage: scheduled.message } : {}),
  };
}

/** The Node readings with only what `placementOf` reads (a Node object also carries its images and more). */
export function nodeConditionsOnly(nodes: NodeReadings): NodeReadings {
  return new Map(
    [...nodes].map(([name, node]): [string, V1Node | 'missing'] => [
      name,
      node === 'missing' ? node : { metadata: { name }, status: { conditions: node.status?.conditions } },
    ]),
  );
}

/**
 * How long a member Pod must have been Ready before its silence towards the controller counts as a cut path
 * (`MembersUnreachable`, docs/design/membership.md step 5.6) rather than a member still coming up: longer than a
 * resolver caches a new member's DNS name as missing.
 */
export const UNREACHABLE_AFTER_READY_MS = 30_000;

/** What `toPodView` needs to tell a lost Pod (docs/design/membership.md, "Lost members"). */
export interface LossContext {
  readonly nodes: NodeReadings;
  readonly bounds: FailureBounds;
  readonly nowMs: number;
}

export function toPodView(pod: V1Pod, loss?: LossContext): PodView | undefined {
  const member = pod.metadata?.labels?.[MEMBER_LABEL];
  if (!member) return undefined;
  const container = pod.status?.containerStatuses?.find((status) => status.name === 'etcd');
  const readyCondition = pod.status?.conditions?.find((condition) => condition.type === 'Ready');
  const ready = readyCondition?.status === 'True';
  const readySince = readyCondition?.lastTransitionTime
    ? new Date(readyCondition.lastTransitionTime).getTime()
    : undefined;
  const version = pod.metadata?.annotations?.[ANNOTATION_VERSION];
  const restoreFailure = seedRestoreFailure(pod);
  const initialState = pod.metadata?.annotations?.[ANNOTATION_INITIAL_CLUSTER_STATE];
  const revision = pod.metadata?.annotations?.[ANNOTATION_POD_REVISION];
  const failure = lastFailure(container);
  const schemes = listenSchemes(pod);
  const placement = loss ? placementOf(pod, loss.nodes) : undefined;
  const lost = placement && loss ? lostReason(placement, loss.bounds, loss.nowMs) : undefined;
  const nodeNote =
    placement && loss && !lost ? nodeNotReadyNote(placement, loss.bounds, loss.nowMs) : undefined;
  return {
    name: pod.metadata?.name as string,
    member,
    terminating: Boolean(pod.metadata?.deletionTimestamp),
    running: Boolean(container?.state?.running),
    ready,
    readySettled:
      ready &&
      readySince !== undefined &&
      loss !== undefined &&
      loss.nowMs - readySince >= UNREACHABLE_AFTER_READY_MS,
    crashLooping: isCrashLooping(pod),
    evict: pod.metadata?.annotations?.[ANNOTATION_EVICT] === 'true',
    ...(pod.metadata?.annotations?.[ANNOTATION_CLUSTER_TOKEN]
      ? { token: pod.metadata.annotations[ANNOTATION_CLUSTER_TOKEN] }
      : {}),
    ephemeral: (pod.spec?.volumes ?? []).some(
      (volume) => volume.name === 'data' && volume.emptyDir !== undefined,
    ),
    ...(version ? { version } : {}),
    ...(revision ? { revision } : {}),
    ...(failure ? { lastFailure: failure } : {}),
    ...(restoreFailure ? { restoreFailure: restoreFailure.description } : {}),
    ...(restoreFailure?.transient ? { restoreFailureTransient: true as const } : {}),
    ...(initialState === 'new' || initialState === 'existing' ? { initialState } : {}),
    ...(schemes ? { schemes } : {}),
    ...(lost ? { lost } : {}),
    ...(nodeNote ? { nodeNotReady: nodeNote } : {}),
  };
}

/** The schemes of the etcd container's `--listen-client-urls` and `--listen-peer-urls`. */
function listenSchemes(pod: V1Pod): PodView['schemes'] {
  const args = pod.spec?.containers?.find((container) => container.name === 'etcd')?.args ?? [];
  const schemeOf = (flag: string): Scheme | undefined => {
    const value = args.find((arg) => arg.startsWith(`${flag}=`))?.slice(flag.length + 1);
    return value?.startsWith('https://') ? 'https' : value?.startsWith('http://') ? 'http' : undefined;
  };
  const client = schemeOf('--listen-client-urls');
  const peer = schemeOf('--listen-peer-urls');
  return client || peer ? { ...(client ? { client } : {}), ...(peer ? { peer } : {}) } : undefined;
}

export function toPvcView(pvc: V1PersistentVolumeClaim): PvcView | undefined {
  const name = pvc.metadata?.name as string;
  const member = pvc.metadata?.labels?.[MEMBER_LABEL] ?? memberOfPvc(name);
  if (!member) return undefined;
  const annotations = pvc.metadata?.annotations ?? {};
  const clusterUid = annotations[ANNOTATION_CLUSTER_UID];
  const token = annotations[ANNOTATION_CLUSTER_TOKEN];
  const initialCluster = annotations[ANNOTATION_INITIAL_MEMBERS]?.split(',').filter((name) => name !== '');
  const size = pvc.spec?.resources?.requests?.storage;
  const retainedBy = pvc.metadata?.labels?.[RETAINED_BY_RESTORE_LABEL];
  const abandonedBy = annotations[ANNOTATION_ABANDONED_BY_RESTORE];
  return {
    name,
    member,
    terminating: Boolean(pvc.metadata?.deletionTimestamp),
    ...(clusterUid ? { clusterUid } : {}),
    ...(token ? { token } : {}),
    ...(initialCluster?.length ? { initialCluster } : {}),
    ...(pvc.spec?.storageClassName ? { storageClassName: pvc.spec.storageClassName } : {}),
    ...(size !== undefined ? { size: String(size) } : {}),
    retained: retainedBy !== undefined,
    ...(retainedBy !== undefined ? { retainedBy } : {}),
    ...(abandonedBy ? { abandonedBy } : {}),
  };
}
