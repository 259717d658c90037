// Performs exactly one planned restore action: the verification download or one write of the cluster's lock
// (docs/design/restore.md, "In-place recovery"). Never a Pod or PVC: those are the membership reconciler's. Status
// and Events are written by the reconciler.
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { EtcdCluster, EtcdRestore, RestoreLock } from './api.js';
import { patchLock } from './lock.js';
import type { CredentialsFound } from './observe.js';
import { describeSource, RESTORE_REQUEUE } from './plan.js';
import type { RestoreOutcome } from './status.js';
import type { RestoreAction } from './types.js';

export interface RestoreExecuteContext {
  readonly kubeConfig: KubeConfig;
  readonly restore: EtcdRestore;
  readonly cluster: EtcdCluster | undefined;
  /** The backup's S3 credentials, or why there are none (read when the backup is verified). */
  readonly credentials: () => Promise<CredentialsFound>;
  readonly log: Logger;
}

const step = (reason: string, message: string): RestoreOutcome => ({
  requeueAfterMs: RESTORE_REQUEUE.soon,
  event: { type: 'Normal', reason, message },
});

function target(context: RestoreExecuteContext): { cluster: EtcdCluster; name: string } {
  const cluster = context.cluster;
  if (!cluster) throw new Error('the EtcdCluster vanished during the restore');
  return { cluster, name: cluster.metadata.name as string };
}

async function verify(context: RestoreExecuteContext): Promise<RestoreOutcome> {
  const { cluster } = target(context);
  const backup = context.restore.spec.backup;
  if (!backup) throw new Error('Verify planned for a restore without spec.backup');
  // Loaded on first use: only a restore from a backup needs the AWS SDK, and most controllers never run one (the
  // controller's resident memory right after loading: 146 → 141 MiB, median of 5 on Node 22).
  const { verifyBackup } = await import('./verify.js');
  const found = await context.credentials();
  if ('problem' in found) {
    const problem = { reason: 'InvalidBackupSource', message: `${found.problem}; nothing was changed` };
    return { event: { type: 'Warning', ...problem }, failed: problem };
  }
  const result = await verifyBackup(backup, found.credentials, cluster.spec.version, context.log);
  if (result.ok) {
    const message = `verified s3://${backup.bucket}/${result.key} (revision ${result.revision}, etcd ${result.etcdVersion})`;
    return { ...step('BackupVerified', message), verified: { key: result.key, revision: result.revision } };
  }
  const problem = { reason: result.reason, message: `${result.message}; nothing was changed` };
  const event = { type: 'Warning' as const, ...problem };
  if (result.reason === 'S3Unavailable') return { requeueAfterMs: 10_000, event, retrying: problem };
  return { event, failed: problem };
}

/** The lock after `action`, merged into `status.restore`. */
function lockPatch(
  action: Extract<RestoreAction, { kind: 'TakeLock' | 'ReleaseLock' | 'AbandonLock' }>,
  restore: EtcdRestore,
): Partial<RestoreLock> {
  switch (action.kind) {
    case 'TakeLock': {
      const { name, uid } = restore.metadata as { name: string; uid: string };
      return { name, uid, token: action.token, source: action.source, phase: 'Restoring' };
    }
    case 'ReleaseLock':
      return { phase: 'Completed' };
    case 'AbandonLock':
      return { phase: 'Abandoned' };
  }
}

async function lockStep(
  action: Extract<RestoreAction, { kind: 'TakeLock' | 'ReleaseLock' | 'AbandonLock' }>,
  context: RestoreExecuteContext,
): Promise<RestoreOutcome> {
  const { cluster, name } = target(context);
  if (!(await patchLock(context.kubeConfig, cluster, lockPatch(action, context.restore)))) {
    return { requeueAfterMs: RESTORE_REQUEUE.soon, notDone: true };
  }
  switch (action.kind) {
    case 'TakeLock':
      return step(
        'RestoreStarted',
        `took cluster ${name} to restore ${describeSource(action.source)}; its membership controller retains the old PVCs, stops the old members and seeds from it`,
      );
    case 'ReleaseLock':
      return step(
        'ClusterReleased',
        `handed cluster ${name} back; its membership controller applies whenScaled to the retained PVCs and clears the lock`,
      );
    case 'AbandonLock':
      return { requeueAfterMs: RESTORE_REQUEUE.waiting };
  }
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
        ...(action.degraded || action.reason !== progressReason(context.restore)
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
    case 'ChooseSurvivor':
      return {
        ...step('SurvivorChosen', action.message),
        chosen: { member: action.member, id: action.id, revision: action.revision },
      };
    case 'TakeLock':
    case 'ReleaseLock':
    case 'AbandonLock':
      return lockStep(action, context);
    case 'Complete':
      return step(
        'RestoreCompleted',
        `cluster ${target(context).name} is Ready at its declared size with the restored data`,
      );
    case 'Done':
      return {};
  }
}

/** The reason of the restore's `Progressing` condition: a wait is told (Event) once, when it begins. */
function progressReason(restore: EtcdRestore): string | undefined {
  return restore.status?.conditions?.find((condition) => condition.type === 'Progressing')?.reason;
}
