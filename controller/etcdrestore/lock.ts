// `EtcdCluster.status.restore`, the restore lock (docs/design/restore.md, "The lock"): this reconciler takes it,
// hands it back (phase Completed) and abandons it for a deleted restore (phase Abandoned); every write is a merge
// patch carrying the resourceVersion read in the same pass, so it never overwrites a newer lock (the membership
// reconciler writes Growing and clears it).
import type { KubeConfig } from '@kubernetes/client-node';
import { API_GROUP, API_VERSION, ETCD_CLUSTER_PLURAL } from '../../constructs/conventions/index.js';
import { patchStatusAt } from '../runtime/kube.js';
import type { EtcdCluster, RestoreLock } from './api.js';

const CLUSTERS = { group: API_GROUP, version: API_VERSION, plural: ETCD_CLUSTER_PLURAL };

/** Merges `lock` into `status.restore`; `false` when the cluster changed since it was read (retry). */
export async function patchLock(
  kubeConfig: KubeConfig,
  cluster: EtcdCluster,
  lock: Partial<RestoreLock>,
): Promise<boolean> {
  const key = { namespace: cluster.metadata.namespace as string, name: cluster.metadata.name as string };
  return patchStatusAt(kubeConfig, CLUSTERS, key, cluster.metadata.resourceVersion, { restore: lock });
}
