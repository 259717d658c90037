// A restore lock whose EtcdRestore no longer exists (deleted while it held the cluster): found either by another
// restore of the same cluster (`lockHolderGone` in its plan input) or by the key of the deleted restore itself,
// which the EtcdRestore controller enqueues for every cluster whose `status.restore` names it (watch-keys.ts), so
// a lock can never outlive its restore, even when the deletion happened while no controller ran. This reconciler
// only sets the lock's phase to `Abandoned`; the membership reconciler marks the PVCs the restore retained, clears
// the lock and tells the user (docs/design/restore.md).
import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { API_GROUP, API_VERSION, ETCD_CLUSTER_PLURAL } from '../../constructs/conventions/index.js';
import type { ObjectKey, ReconcileResult } from '../runtime/types.js';
import type { EtcdCluster } from './api.js';
import { patchLock } from './lock.js';
import { planOrphanedLock, RESTORE_REQUEUE } from './plan.js';

async function clustersLockedBy(kubeConfig: KubeConfig, key: ObjectKey): Promise<EtcdCluster[]> {
  const api = kubeConfig.makeApiClient(CustomObjectsApi);
  const list = (await api.listNamespacedCustomObject({
    group: API_GROUP,
    version: API_VERSION,
    plural: ETCD_CLUSTER_PLURAL,
    namespace: key.namespace,
  })) as { items: EtcdCluster[] };
  return list.items.filter((cluster) => cluster.status?.restore?.name === key.name);
}

/**
 * The pass for the key of an EtcdRestore that does not exist: abandons each lock that names it (unless already handed
 * back or abandoned). Requeues while a write lost to a concurrent one, so the next pass sees the lock as it is.
 */
export async function reconcileDeletedRestore(
  deps: { kubeConfig: KubeConfig; log: Logger },
  key: ObjectKey,
): Promise<ReconcileResult> {
  let retry = false;
  for (const cluster of await clustersLockedBy(deps.kubeConfig, key)) {
    const lock = cluster.status?.restore;
    const action = lock ? planOrphanedLock(lock) : undefined;
    if (action?.kind !== 'AbandonLock') continue;
    deps.log.warn({ cluster: cluster.metadata.name, action }, 'Abandoning the lock of a deleted EtcdRestore');
    if (!(await patchLock(deps.kubeConfig, cluster, { phase: 'Abandoned' }))) retry = true;
  }
  return retry ? { requeueAfterMs: RESTORE_REQUEUE.soon } : {};
}
