// One level-triggered pass over one EtcdRestore: observe, plan one step, execute it, write status, record the
// Event, requeue. The algorithm is in docs/design/restore.md and plan.ts.
import { randomBytes } from 'node:crypto';
import { CoreV1Api } from '@kubernetes/client-node';
import {
  API_GROUP,
  API_GROUP_VERSION,
  API_VERSION,
  ETCD_RESTORE_KIND,
  ETCD_RESTORE_PLURAL,
} from '../../constructs/conventions/index.js';
import { crashSwitchFromEnv } from '../etcdcluster/crash-switch.js';
import { operatorImage } from '../restore/seed-init-container.js';
import { patchStatus } from '../runtime/kube.js';
import type { ObjectKey, ReconcileResult, Reconciler, ReconcilerDeps } from '../runtime/types.js';
import { executeRestore } from './execute.js';
import { credentialsOf, getRestore, observeRestore, restorePlanInput } from './observe.js';
import { clusterSubject, reconcileDeletedRestore } from './orphaned-lock.js';
import { planRestore } from './plan.js';
import { buildRestoreStatus } from './status.js';

const RESOURCE = { group: API_GROUP, version: API_VERSION, plural: ETCD_RESTORE_PLURAL };

export interface RestoreReconcilerOptions {
  /** Our image, for the seed's `restore fetch` init container. @default $ETCD_GITOPS_IMAGE or the package's */
  readonly image?: string;
}

export class EtcdRestoreReconciler implements Reconciler {
  private readonly core: CoreV1Api;
  private readonly image: string;
  /** TEST-ONLY: `ETCD_GITOPS_TEST_RESTORE_CRASH_AFTER=<action kind>[:<n>]` (see etcdcluster/crash-switch.ts). */
  private readonly crash = crashSwitchFromEnv(process.env.ETCD_GITOPS_TEST_RESTORE_CRASH_AFTER);

  constructor(
    private readonly deps: ReconcilerDeps,
    options: RestoreReconcilerOptions = {},
  ) {
    this.core = deps.kubeConfig.makeApiClient(CoreV1Api);
    this.image = options.image ?? operatorImage();
  }

  async reconcile(key: ObjectKey, signal: AbortSignal): Promise<ReconcileResult> {
    const restore = await getRestore(this.deps.kubeConfig, key);
    if (!restore) return reconcileDeletedRestore({ ...this.deps, core: this.core }, key);
    if (restore.metadata.deletionTimestamp) return {};
    const observed = await observeRestore(this.deps.kubeConfig, this.core, restore);
    if (signal.aborted) return {};
    const action = planRestore(restorePlanInput(observed, randomBytes(3).toString('hex')));
    const log = this.deps.log.child({ restore: key.name, namespace: key.namespace, action: action.kind });
    log.debug({ plan: action }, 'Planned restore step');
    const outcome = await executeRestore(action, {
      kubeConfig: this.deps.kubeConfig,
      core: this.core,
      restore,
      cluster: observed.cluster?.cluster,
      credentials: async () => {
        const found = credentialsOf(restore, observed.secret);
        if ('problem' in found) throw new Error(found.problem);
        return found.credentials;
      },
      image: this.image,
      log,
    });
    if (action.kind !== 'Wait' && action.kind !== 'Done')
      log.info({ action, outcome }, 'Performed restore step');
    // The crash switch stops the process right after a step that took effect, never after one that did not.
    if (!outcome.notDone && !outcome.retrying) (this.crash.after as (kind: string) => void)(action.kind);
    const status = buildRestoreStatus(restore, action, outcome, new Date());
    if (status) await patchStatus(this.deps.kubeConfig, RESOURCE, key, { ...status });
    if (outcome.clusterEvent && observed.cluster) {
      const { type, reason, message } = outcome.clusterEvent;
      await this.deps.events.event(clusterSubject(observed.cluster.cluster), type, reason, message);
    }
    if (outcome.event) {
      const subject = { apiVersion: API_GROUP_VERSION, kind: ETCD_RESTORE_KIND, metadata: restore.metadata };
      await this.deps.events.event(subject, outcome.event.type, outcome.event.reason, outcome.event.message);
    }
    return outcome.requeueAfterMs === undefined ? {} : { requeueAfterMs: outcome.requeueAfterMs };
  }
}

/** The reconciler controller/main.ts registers for EtcdRestores. */
export function createEtcdRestoreReconciler(
  deps: ReconcilerDeps,
  options?: RestoreReconcilerOptions,
): Reconciler {
  return new EtcdRestoreReconciler(deps, options);
}
