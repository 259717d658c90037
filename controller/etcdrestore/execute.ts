// Performs exactly one planned restore action: one Kubernetes write or the verification download
// (docs/design/restore.md, "In-place recovery"). Status and Events are written by the reconciler.
import { type CoreV1Api, type KubeConfig, PatchStrategy } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import {
  MEMBER_LABEL,
  peerURL,
  RETAINED_BY_RESTORE_LABEL,
  schemes,
} from '../../constructs/conventions/index.js';
import type { EtcdCluster } from '../etcdcluster/api.js';
import { buildMemberPod, buildMemberPvc } from '../etcdcluster/member-pod.js';
import { withPodRevision } from '../etcdcluster/revision.js';
import { withRestoreInitContainer } from '../restore/seed-init-container.js';
import { deleteIgnoringNotFound, fieldManager, isAlreadyExists, patchOptions } from '../runtime/kube.js';
import type { EtcdRestore } from './api.js';
import { patchLock } from './lock.js';
import { executeOrphanStep } from './orphaned-lock.js';
import { RESTORE_REQUEUE } from './plan.js';
import type { RestoreOutcome } from './status.js';
import type { RestoreAction } from './types.js';
import { type S3Credentials, verifyBackup } from './verify.js';

export interface RestoreExecuteContext {
  readonly kubeConfig: KubeConfig;
  readonly core: CoreV1Api;
  readonly restore: EtcdRestore;
  readonly cluster: EtcdCluster | undefined;
  readonly credentials: () => Promise<S3Credentials>;
  /** Our image, for the seed's `restore fetch` init container. */
  readonly image: string;
  readonly log: Logger;
}

const step = (reason: string, message: string): RestoreOutcome => ({
  requeueAfterMs: RESTORE_REQUEUE.soon,
  event: { type: 'Normal', reason, message },
});

function target(context: RestoreExecuteContext): { cluster: EtcdCluster; name: string; namespace: string } {
  const cluster = context.cluster;
  if (!cluster) throw new Error('the EtcdCluster vanished during the restore');
  return { cluster, name: cluster.metadata.name as string, namespace: cluster.metadata.namespace as string };
}

async function verify(context: RestoreExecuteContext): Promise<RestoreOutcome> {
  const { cluster } = target(context);
  const result = await verifyBackup(
    context.restore.spec.backup,
    await context.credentials(),
    cluster.spec.version,
    context.log,
  );
  if (result.ok) {
    const message = `verified s3://${context.restore.spec.backup.bucket}/${result.key} (revision ${result.revision}, etcd ${result.etcdVersion})`;
    return { ...step('BackupVerified', message), verified: { key: result.key, revision: result.revision } };
  }
  const problem = { reason: result.reason, message: `${result.message}; nothing was changed` };
  const event = { type: 'Warning' as const, ...problem };
  if (result.reason === 'S3Unavailable') return { requeueAfterMs: 10_000, event, retrying: problem };
  return { event, failed: problem };
}

async function createSeed(
  context: RestoreExecuteContext,
  action: Extract<RestoreAction, { kind: 'CreateSeedPVC' | 'CreateSeedPod' }>,
): Promise<RestoreOutcome> {
  const { cluster, name, namespace } = target(context);
  try {
    if (action.kind === 'CreateSeedPVC') {
      const body = buildMemberPvc(cluster, action.member, action.token);
      await context.core.createNamespacedPersistentVolumeClaim({ namespace, body });
    } else {
      const member = withPodRevision(
        cluster,
        buildMemberPod(cluster, {
          member: action.member,
          state: 'new',
          initialCluster: [action.member],
          token: action.token,
        }),
      );
      const body = withRestoreInitContainer(member, {
        location: { ...context.restore.spec.backup, key: action.backupKey, latestUnderPrefix: undefined },
        clusterVersion: cluster.spec.version,
        member: action.member,
        peerURL: peerURL(name, namespace, action.member, schemes(cluster.spec.tls).peer),
        token: action.token,
        image: context.image,
      });
      await context.core.createNamespacedPod({ namespace, body });
    }
  } catch (error) {
    if (!isAlreadyExists(error)) throw error;
  }
  const what = action.kind === 'CreateSeedPVC' ? 'PVC' : 'Pod';
  return step(
    'SeedCreated',
    `created seed ${what} for member ${action.member} (restores ${context.restore.status?.backupKey})`,
  );
}

async function kubeStep(action: RestoreAction, context: RestoreExecuteContext): Promise<RestoreOutcome> {
  const namespace = context.restore.metadata.namespace as string;
  const restoreName = context.restore.metadata.name as string;
  switch (action.kind) {
    case 'RetainPVC':
      await context.core.patchNamespacedPersistentVolumeClaim(
        {
          namespace,
          name: action.pvc,
          body: { metadata: { labels: { [RETAINED_BY_RESTORE_LABEL]: restoreName, [MEMBER_LABEL]: null } } },
          fieldManager,
        },
        patchOptions(PatchStrategy.MergePatch),
      );
      return step('PVCRetained', `retained PVC ${action.pvc} (old data, kept until the restore completed)`);
    case 'DeletePod':
      await deleteIgnoringNotFound(() => context.core.deleteNamespacedPod({ namespace, name: action.pod }));
      return step('MemberStopped', `deleted old member Pod ${action.pod}; its PVC is retained`);
    case 'CreateSeedPVC':
    case 'CreateSeedPod':
      return createSeed(context, action);
    case 'DeleteRetainedPVC':
      await deleteIgnoringNotFound(() =>
        context.core.deleteNamespacedPersistentVolumeClaim({ namespace, name: action.pvc }),
      );
      return step('RetainedPVCDeleted', `deleted retained PVC ${action.pvc} (whenScaled: Delete)`);
    default:
      throw new Error(`not a Kubernetes step: ${action.kind}`);
  }
}

async function lockStep(action: RestoreAction, context: RestoreExecuteContext): Promise<RestoreOutcome> {
  const { metadata } = context.restore;
  const patch =
    action.kind === 'TakeLock'
      ? { name: metadata.name, uid: metadata.uid, token: action.token, phase: 'Restoring' }
      : action.kind === 'ReleaseToPlanner'
        ? { ...target(context).cluster.status?.restore, phase: 'Growing' }
        : null;
  if (!(await patchLock(context.kubeConfig, target(context).cluster, patch))) {
    return { requeueAfterMs: RESTORE_REQUEUE.soon, notDone: true };
  }
  const messages: Record<string, [string, string]> = {
    TakeLock: [
      'RestoreStarted',
      `took cluster ${target(context).name} for the restore; old PVCs will be retained`,
    ],
    ReleaseToPlanner: [
      'SeedReady',
      'the seed serves the restored data; the cluster grows to its declared size',
    ],
    ReleaseLock: ['ClusterReleased', `released cluster ${target(context).name}`],
  };
  const [reason, message] = messages[action.kind] ?? ['', ''];
  return step(reason, message);
}

/** Performs `action` (at most one side effect) and reports what happened. */
export async function executeRestore(
  action: RestoreAction,
  context: RestoreExecuteContext,
): Promise<RestoreOutcome> {
  switch (action.kind) {
    case 'Refuse':
      return { event: { type: 'Warning', reason: action.reason, message: action.message } };
    case 'Wait':
      return {
        requeueAfterMs: action.requeueAfterMs,
        ...(action.degraded || action.reason === 'WaitingForRestore'
          ? {
              event: {
                type: action.degraded ? 'Warning' : 'Normal',
                reason: action.reason,
                message: action.message,
              },
            }
          : {}),
      };
    case 'StartVerifying':
      return { requeueAfterMs: 0 };
    case 'Verify':
      return verify(context);
    case 'TakeLock':
    case 'ReleaseToPlanner':
    case 'ReleaseLock':
      return lockStep(action, context);
    case 'Complete':
      return step(
        'RestoreCompleted',
        `cluster ${target(context).name} is Ready at its declared size with the restored data`,
      );
    case 'MarkAbandonedPVC':
    case 'ReleaseOrphanedLock':
      return executeOrphanStep(action, { ...context, cluster: target(context).cluster });
    case 'Done':
      return {};
    default:
      return kubeStep(action, context);
  }
}
