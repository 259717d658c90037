// `EtcdCluster.status.restore`, the restore lock (docs/design/restore.md, invariant 4): written with a merge patch
// that carries the resourceVersion read in the same pass, so two writers never both win.
import { CustomObjectsApi, type KubeConfig, PatchStrategy } from '@kubernetes/client-node';
import { API_GROUP, API_VERSION, ETCD_CLUSTER_PLURAL } from '../../constructs/conventions/index.js';
import type { EtcdCluster } from '../etcdcluster/api.js';
import { fieldManager, isConflict, patchOptions } from '../runtime/kube.js';

/** Sets (`lock`) or clears (`null`) the lock; `false` when the cluster changed since it was read (retry). */
export async function patchLock(
  kubeConfig: KubeConfig,
  cluster: EtcdCluster,
  lock: Record<string, unknown> | null,
): Promise<boolean> {
  const api = kubeConfig.makeApiClient(CustomObjectsApi);
  try {
    await api.patchNamespacedCustomObjectStatus(
      {
        group: API_GROUP,
        version: API_VERSION,
        plural: ETCD_CLUSTER_PLURAL,
        namespace: cluster.metadata.namespace as string,
        name: cluster.metadata.name as string,
        fieldManager,
        body: { metadata: { resourceVersion: cluster.metadata.resourceVersion }, status: { restore: lock } },
      },
      patchOptions(PatchStrategy.MergePatch),
    );
    return true;
  } catch (error) {
    if (isConflict(error)) return false;
    throw error;
  }
}
