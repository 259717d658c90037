// Performs one action of the restore branch (plan-restore.ts; docs/design/membership.md, "The restore branch"):
// one PVC write, or one write of `status.restore` carrying the resourceVersion this pass read, so a lock that the
// EtcdRestore reconciler changed meanwhile is never overwritten (the step is planned again on the new lock).
import { PatchStrategy } from '@kubernetes/client-node';
import {
  ANNOTATION_ABANDONED_BY_RESTORE,
  API_GROUP,
  API_VERSION,
  ETCD_CLUSTER_PLURAL,
  MEMBER_LABEL,
  RETAINED_BY_RESTORE_LABEL,
} from '../../constructs/conventions/index.js';
import { deleteIgnoringNotFound, fieldManager, patchOptions, patchStatusAt } from '../runtime/kube.js';
import { abandonedMessage, RESTORE_ABANDONED_REASON } from './abandoned.js';
import type { ExecuteContext, Outcome } from './execute-context.js';
import { REQUEUE } from './plan.js';
import { CLUSTER_REASONS } from './reasons.js';
import type { RestoreLockAction } from './restore-types.js';

const CLUSTERS = { group: API_GROUP, version: API_VERSION, plural: ETCD_CLUSTER_PLURAL };

const done = (reason: string, message: string, type: 'Normal' | 'Warning' = 'Normal'): Outcome => ({
  requeueAfterMs: REQUEUE.soon,
  events: [{ type, reason, message }],
});

/** Writes `status.restore` (`null` removes it) if the cluster is still as this pass read it. */
async function patchLock(context: ExecuteContext, lock: Record<string, unknown> | null): Promise<boolean> {
  const { metadata } = context.cluster;
  const key = { namespace: metadata.namespace as string, name: metadata.name as string };
  return patchStatusAt(context.kubeConfig, CLUSTERS, key, metadata.resourceVersion, { restore: lock });
}

const LOCK_CHANGED: Outcome = {
  requeueAfterMs: REQUEUE.soon,
  notYet: 'the EtcdCluster changed since it was read (the lock is planned again)',
};

async function patchPvc(context: ExecuteContext, pvc: string, metadata: Record<string, unknown>) {
  await context.core.patchNamespacedPersistentVolumeClaim(
    { namespace: context.cluster.metadata.namespace as string, name: pvc, body: { metadata }, fieldManager },
    patchOptions(PatchStrategy.MergePatch),
  );
}

function released(action: Extract<RestoreLockAction, { kind: 'ClearRestoreLock' }>): Outcome {
  if (action.outcome === 'Abandoned') {
    return done(RESTORE_ABANDONED_REASON, abandonedMessage(action.restore, action.retained), 'Warning');
  }
  const kept =
    action.retained.length > 0
      ? `; the old data stays on ${action.retained.join(', ')} (whenScaled: Retain), delete them when no longer needed`
      : '';
  return done(
    CLUSTER_REASONS.restoreLockReleased,
    `EtcdRestore ${action.restore} completed and released the cluster${kept}`,
  );
}

/** Performs `action` (one side effect) and reports what happened. */
export async function executeRestoreStep(
  action: RestoreLockAction,
  context: ExecuteContext,
): Promise<Outcome> {
  const namespace = context.cluster.metadata.namespace as string;
  switch (action.kind) {
    case 'RetainPVC':
      // The member label goes in the same write: from now on the PVC is nobody's data.
      await patchPvc(context, action.pvc, {
        labels: { [RETAINED_BY_RESTORE_LABEL]: action.restore, [MEMBER_LABEL]: null },
      });
      return done(
        CLUSTER_REASONS.pvcRetained,
        `retained PVC ${action.pvc} of old member ${action.member} for EtcdRestore ${action.restore}; it is kept until the restore completed`,
      );
    case 'ReleaseToPlanner':
      if (!(await patchLock(context, { phase: 'Growing' }))) return LOCK_CHANGED;
      return done(
        CLUSTER_REASONS.seedReady,
        `the seed ${action.member} serves the data restored by EtcdRestore ${action.restore}; the cluster grows to its declared size`,
      );
    case 'DeleteRetainedPVC':
      await deleteIgnoringNotFound(() =>
        context.core.deleteNamespacedPersistentVolumeClaim({ namespace, name: action.pvc }),
      );
      return done(
        CLUSTER_REASONS.retainedPVCDeleted,
        `deleted PVC ${action.pvc} retained by the completed EtcdRestore ${action.restore} (whenScaled: Delete)`,
      );
    case 'MarkAbandonedPVC':
      await patchPvc(context, action.pvc, {
        annotations: { [ANNOTATION_ABANDONED_BY_RESTORE]: action.restore },
      });
      return done(
        CLUSTER_REASONS.pvcAbandoned,
        `marked PVC ${action.pvc}: EtcdRestore ${action.restore} was deleted before it completed`,
      );
    case 'ClearRestoreLock':
      if (!(await patchLock(context, null))) return LOCK_CHANGED;
      return released(action);
  }
}
