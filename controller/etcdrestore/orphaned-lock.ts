// A restore lock whose EtcdRestore no longer exists (deleted while it held the cluster): found either by another
// restore of the same cluster (`lockHolderGone` in its plan input) or by the key of the deleted restore itself,
// which the EtcdRestore controller enqueues for every cluster whose `status.restore` names it (watch-keys.ts), so
// a lock can never outlive its restore, even when the deletion happened while no controller ran.
import { type CoreV1Api, CustomObjectsApi, type KubeConfig, PatchStrategy } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import {
  API_GROUP,
  API_GROUP_VERSION,
  API_VERSION,
  ETCD_CLUSTER_KIND,
  ETCD_CLUSTER_PLURAL,
  memberSelectorString,
} from '../../constructs/conventions/index.js';
import type { EtcdCluster } from '../etcdcluster/api.js';
import { fieldManager, patchOptions } from '../runtime/kube.js';
import type { EventRecorder, ObjectKey, ReconcileResult } from '../runtime/types.js';
import { ABANDONED_BY_RESTORE_ANNOTATION, abandonedMessage, RESTORE_ABANDONED_REASON } from './abandoned.js';
import { patchLock } from './lock.js';
import { planOrphanedLock, RESTORE_REQUEUE } from './plan.js';
import type { RestoreOutcome } from './status.js';
import type { RestoreAction } from './types.js';
import { toMemberPvcView } from './views.js';

type OrphanAction = Extract<RestoreAction, { kind: 'MarkAbandonedPVC' | 'ReleaseOrphanedLock' }>;

/** Performs one step of releasing an orphaned lock; the Event goes to the cluster (its restore is gone). */
export async function executeOrphanStep(
  action: OrphanAction,
  context: { kubeConfig: KubeConfig; core: CoreV1Api; cluster: EtcdCluster },
): Promise<RestoreOutcome> {
  const { cluster } = context;
  if (action.kind === 'MarkAbandonedPVC') {
    await context.core.patchNamespacedPersistentVolumeClaim(
      {
        namespace: cluster.metadata.namespace as string,
        name: action.pvc,
        body: { metadata: { annotations: { [ABANDONED_BY_RESTORE_ANNOTATION]: action.holder } } },
        fieldManager,
      },
      patchOptions(PatchStrategy.MergePatch),
    );
    return { requeueAfterMs: RESTORE_REQUEUE.soon };
  }
  if (!(await patchLock(context.kubeConfig, cluster, null))) return { requeueAfterMs: RESTORE_REQUEUE.soon };
  const message = abandonedMessage(action.holder, action.retained);
  return {
    requeueAfterMs: RESTORE_REQUEUE.soon,
    clusterEvent: { type: 'Warning', reason: RESTORE_ABANDONED_REASON, message },
  };
}

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

/** The Event recorder's subject for a cluster. */
export function clusterSubject(cluster: EtcdCluster) {
  return { apiVersion: API_GROUP_VERSION, kind: ETCD_CLUSTER_KIND, metadata: cluster.metadata };
}

/**
 * The pass for the key of an EtcdRestore that does not exist: one step of releasing each lock that names it.
 * Requeues while a step was taken, so the next pass sees its result.
 */
export async function reconcileDeletedRestore(
  deps: { kubeConfig: KubeConfig; core: CoreV1Api; events: EventRecorder; log: Logger },
  key: ObjectKey,
): Promise<ReconcileResult> {
  let stepped = false;
  for (const cluster of await clustersLockedBy(deps.kubeConfig, key)) {
    const lock = cluster.status?.restore;
    if (!lock) continue;
    const pvcs = await deps.core.listNamespacedPersistentVolumeClaim({
      namespace: key.namespace,
      labelSelector: memberSelectorString(cluster.metadata.name as string),
    });
    const action = planOrphanedLock(lock, pvcs.items.map(toMemberPvcView)) as OrphanAction;
    const outcome = await executeOrphanStep(action, { ...deps, cluster });
    deps.log.warn({ cluster: cluster.metadata.name, action }, 'Releasing the lock of a deleted EtcdRestore');
    if (outcome.clusterEvent) {
      const { type, reason, message } = outcome.clusterEvent;
      await deps.events.event(clusterSubject(cluster), type, reason, message);
    }
    stepped = true;
  }
  return stepped ? { requeueAfterMs: RESTORE_REQUEUE.soon } : {};
}
