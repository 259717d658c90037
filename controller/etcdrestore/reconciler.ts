// One level-triggered pass over one EtcdRestore: observe, plan one step, execute it, write status, record the
// Event, requeue. The algorithm is in docs/design/restore.md and plan.ts. It writes the restore's status and the
// cluster's lock, never a Pod or PVC (the membership reconciler does those).
import { randomBytes } from 'node:crypto';
import { CoreV1Api } from '@kubernetes/client-node';
import {
  API_GROUP,
  API_GROUP_VERSION,
  API_VERSION,
  ETCD_RESTORE_KIND,
  ETCD_RESTORE_PLURAL,
  s3ConnectionOf,
} from '../../constructs/conventions/index.js';
import { crashSwitchFromEnv } from '../runtime/crash-switch.js';
import { patchStatus } from '../runtime/kube.js';
import type { ObjectKey, ReconcileResult, Reconciler, ReconcilerDeps } from '../runtime/types.js';
import type { EtcdRestore } from './api.js';
import { executeRestore } from './execute.js';
import {
  type CredentialsFound,
  credentialsOf,
  getRestore,
  type ObserveCluster,
  observeRestore,
  type RestoreObserved,
  restorePlanInput,
} from './observe.js';
import { reconcileDeletedRestore } from './orphaned-lock.js';
import { planRestore } from './plan.js';
import { buildRestoreStatus } from './status.js';
import type { RestoreActionKind } from './types.js';

const RESOURCE = { group: API_GROUP, version: API_VERSION, plural: ETCD_RESTORE_PLURAL };

export class EtcdRestoreReconciler implements Reconciler {
  private readonly core: CoreV1Api;
  /** TEST-ONLY: `ETCD_GITOPS_TEST_RESTORE_CRASH_AFTER=<action kind>[:<n>]` (runtime/crash-switch.ts). */
  private readonly crash = crashSwitchFromEnv<RestoreActionKind>(
    process.env.ETCD_GITOPS_TEST_RESTORE_CRASH_AFTER,
  );

  constructor(
    private readonly deps: ReconcilerDeps,
    private readonly observeCluster: ObserveCluster,
  ) {
    this.core = deps.kubeConfig.makeApiClient(CoreV1Api);
  }

  async reconcile(key: ObjectKey, signal: AbortSignal): Promise<ReconcileResult> {
    const restore = await getRestore(this.deps.kubeConfig, key);
    if (!restore) return reconcileDeletedRestore(this.deps, key);
    if (restore.metadata.deletionTimestamp) return {};
    const observed = await observeRestore(this.deps.kubeConfig, this.core, this.observeCluster, restore);
    if (signal.aborted) return {};
    const action = planRestore(restorePlanInput(observed, randomBytes(3).toString('hex')));
    const log = this.deps.log.child({ restore: key.name, namespace: key.namespace, action: action.kind });
    log.debug({ plan: action }, 'Planned restore step');
    const outcome = await executeRestore(action, {
      kubeConfig: this.deps.kubeConfig,
      restore,
      cluster: observed.cluster?.cluster,
      credentials: () => this.credentials(restore, observed),
      log,
    });
    if (action.kind !== 'Wait' && action.kind !== 'Done')
      log.info({ action, outcome }, 'Performed restore step');
    // The crash switch stops the process right after a step that took effect, never after one that did not.
    if (!outcome.notDone && !outcome.retrying) this.crash.after(action.kind);
    const status = buildRestoreStatus(restore, action, outcome, new Date());
    if (status) await patchStatus(this.deps.kubeConfig, RESOURCE, key, { ...status });
    if (outcome.event) {
      const subject = { apiVersion: API_GROUP_VERSION, kind: ETCD_RESTORE_KIND, metadata: restore.metadata };
      await this.deps.events.event(subject, outcome.event.type, outcome.event.reason, outcome.event.message);
    }
    return outcome.requeueAfterMs === undefined ? {} : { requeueAfterMs: outcome.requeueAfterMs };
  }

  /** The S3 credentials of the restore's backup: the Secret's keys, or the cluster's web identity. */
  private async credentials(restore: EtcdRestore, observed: RestoreObserved): Promise<CredentialsFound> {
    const identity = restore.spec.backup?.webIdentity;
    if (!identity) return credentialsOf(restore, observed.secret);
    const { webIdentityCredentials } = await import('./web-identity.js');
    return webIdentityCredentials(this.core, {
      namespace: restore.metadata.namespace as string,
      cluster: restore.spec.clusterName,
      identity,
      region: s3ConnectionOf(restore.spec.backup ?? {}).region,
      restore: restore.metadata.name as string,
    });
  }
}

/** The reconciler controller/main.ts registers for EtcdRestores; `observeCluster` is the membership reconciler's. */
export function createEtcdRestoreReconciler(
  deps: ReconcilerDeps,
  observeCluster: ObserveCluster,
): Reconciler {
  return new EtcdRestoreReconciler(deps, observeCluster);
}
