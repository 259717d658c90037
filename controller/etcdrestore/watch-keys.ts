// Which EtcdRestores to reconcile when an EtcdCluster (or one of its Pods/PVCs) changes: those naming it.
import type { KubernetesObject } from '@kubernetes/client-node';
import type { CacheLister, ObjectKey } from '../runtime/types.js';

/** Keys of the restores in `lister` whose `spec.clusterName` is one of `clusters`. */
export function restoreKeysOfCluster(
  lister: CacheLister<KubernetesObject>,
  clusters: readonly ObjectKey[],
): ObjectKey[] {
  return clusters.flatMap((cluster) =>
    lister
      .list(cluster.namespace)
      .filter(
        (restore) => (restore as { spec?: { clusterName?: string } }).spec?.clusterName === cluster.name,
      )
      .map((restore) => ({ namespace: cluster.namespace, name: restore.metadata?.name as string })),
  );
}

/** The key of the EtcdRestore an EtcdCluster's `status.restore` names, whether or not it still exists: a deleted
 *  restore's key is reconciled to release its lock (orphaned-lock.ts). */
export function lockHolderKeys(cluster: KubernetesObject): ObjectKey[] {
  const holder = (cluster as { status?: { restore?: { name?: string } } }).status?.restore?.name;
  return holder ? [{ namespace: cluster.metadata?.namespace ?? '', name: holder }] : [];
}
