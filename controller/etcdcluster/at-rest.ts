// What a fresh pass that found its cluster at rest remembers, and when the next pass may be quiet: Kubernetes from
// the informer caches and that memory, etcd afresh, no API request (docs/design/controller-runtime.md, "Fresh
// passes and quiet passes").
import type { KubernetesObject, V1CronJob, V1PersistentVolumeClaim, V1Pod } from '@kubernetes/client-node';
import { backupStatusSelectors, memberSelector } from '../../constructs/conventions/labels.js';
import type { CacheLister, ObjectKey, ReconcilerListers } from '../runtime/types.js';
import type { EtcdCluster } from './api.js';
import type { TlsSecrets } from './observe-tls.js';
import type { Action } from './types.js';
import type { NodeReadings } from './views.js';

const RESTING_KINDS: ReadonlySet<Action['kind']> = new Set(['Steady', 'Paused']);

/** A plan that acts on nothing: a pass that ends with one, no status change and no Event is at rest. */
export function isRestingPlan(action: Action): boolean {
  return RESTING_KINDS.has(action.kind);
}

/** Whether a pass ended at rest: nothing to do, the status it built is the one it read, no Event to record. */
export function endsAtRest(pass: {
  readonly action: Action;
  readonly statusChanged: boolean;
  readonly events: number;
}): boolean {
  return isRestingPlan(pass.action) && !pass.statusChanged && pass.events === 0;
}

/** The unwatched readings of a fresh pass that ended at rest, and what it read of the watched objects. */
export interface AtRest {
  /** `kubeVersions` of the cluster, Pods and PVCs that pass read. */
  readonly versions: string;
  /** When that pass read them. */
  readonly readAtMs: number;
  readonly nodes: NodeReadings;
  readonly missingServices: readonly string[];
  /** The Secrets of `spec.tls` as read, judged again by each quiet pass at its own time. */
  readonly tlsSecrets?: TlsSecrets;
}

/** A cluster's backup CronJobs and their Jobs' Pods (docs/design/backup-status.md). */
export interface BackupObjects {
  readonly cronJobs: readonly V1CronJob[];
  readonly pods: readonly V1Pod[];
}

/** The cluster, its member Pods, its PVCs and its backup objects, as read from the API server or the caches. */
export interface KubeSide {
  readonly cluster: EtcdCluster;
  readonly pods: readonly V1Pod[];
  readonly pvcs: readonly V1PersistentVolumeClaim[];
  readonly backups: BackupObjects;
}

const version = (kind: string, object: KubernetesObject) =>
  `${kind}/${object.metadata?.name}@${object.metadata?.resourceVersion}`;

/** Names and `resourceVersion`s of the cluster, its Pods, its PVCs and its backup objects, as one string in a
 *  stable order. */
export function kubeVersions({ cluster, pods, pvcs, backups }: KubeSide): string {
  return [
    version('cluster', cluster),
    ...[
      ...pods.map((pod) => version('pod', pod)),
      ...pvcs.map((pvc) => version('pvc', pvc)),
      ...backups.cronJobs.map((cronJob) => version('cronjob', cronJob)),
      ...backups.pods.map((pod) => version('backup-pod', pod)),
    ].sort(),
  ].join(' ');
}

/** Whether the next pass may be quiet: the watched objects as remembered, the remembered readings young enough. */
export function mayBeQuiet(
  remembered: AtRest,
  cached: KubeSide,
  nowMs: number,
  freshReadEveryMs: number,
): boolean {
  return nowMs - remembered.readAtMs < freshReadEveryMs && kubeVersions(cached) === remembered.versions;
}

function matches(object: KubernetesObject, selector: Readonly<Record<string, string>>): boolean {
  const labels = object.metadata?.labels ?? {};
  return Object.entries(selector).every(([label, value]) => labels[label] === value);
}

/** The objects of `key`'s namespace that match one of `selectors`. */
function selected<T extends KubernetesObject>(
  lister: CacheLister<T>,
  key: ObjectKey,
  ...selectors: Readonly<Record<string, string>>[]
): T[] {
  return lister
    .list(key.namespace)
    .filter((object) => selectors.some((selector) => matches(object, selector)));
}

/** The cluster of `key` with its member Pods, PVCs and backup objects as the informer caches hold them; none
 *  without the cluster. */
export function cachedKubeSide(listers: ReconcilerListers, key: ObjectKey): KubeSide | undefined {
  const cluster = listers.clusters.get(key.namespace, key.name);
  if (!cluster) return undefined;
  const members = memberSelector(key.name);
  const backups = backupStatusSelectors(key.name);
  return {
    cluster: cluster as EtcdCluster,
    pods: selected(listers.pods, key, members),
    pvcs: selected(listers.persistentVolumeClaims, key, members),
    backups: {
      cronJobs: selected(listers.cronJobs, key, ...backups),
      pods: selected(listers.pods, key, ...backups),
    },
  };
}
