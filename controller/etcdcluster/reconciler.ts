// One level-triggered pass over one EtcdCluster: observe, plan one action, execute it, write status, record
// Events and metrics, requeue. The algorithm is in docs/design/membership.md and plan.ts.
import { randomBytes } from 'node:crypto';
import { CoreV1Api } from '@kubernetes/client-node';
import {
  API_GROUP,
  API_GROUP_VERSION,
  API_VERSION,
  ETCD_CLUSTER_KIND,
  ETCD_CLUSTER_PLURAL,
} from '../../constructs/conventions/index.js';
import { abandonedData } from '../etcdrestore/abandoned.js';
import { operatorImage } from '../restore/seed-init-container.js';
import { patchStatus } from '../runtime/kube.js';
import type { ObjectKey, ReconcileResult, Reconciler, ReconcilerDeps } from '../runtime/types.js';
import { type CrashSwitch, crashSwitchFromEnv } from './crash-switch.js';
import { execute, type Outcome } from './execute.js';
import { getCluster, type Observed, observe, planInput } from './observe.js';
import { planMembership } from './plan.js';
import { buildStatus, describeAction } from './status.js';
import type { Action } from './types.js';

const RESOURCE = { group: API_GROUP, version: API_VERSION, plural: ETCD_CLUSTER_PLURAL };

export class EtcdClusterReconciler implements Reconciler {
  private readonly core: CoreV1Api;
  private readonly crash: CrashSwitch;
  private readonly image = operatorImage();

  constructor(private readonly deps: ReconcilerDeps) {
    this.core = deps.kubeConfig.makeApiClient(CoreV1Api);
    this.crash = crashSwitchFromEnv();
  }

  async reconcile(key: ObjectKey, signal: AbortSignal): Promise<ReconcileResult> {
    const cluster = await getCluster(this.deps.kubeConfig, key);
    if (!cluster) {
      this.deps.metrics.forget(key);
      return {};
    }
    const observed = await observe(this.core, cluster);
    if (signal.aborted) return {};
    const action = planMembership(planInput(observed, randomBytes(3).toString('hex')));
    const log = this.deps.log.child({ cluster: key.name, namespace: key.namespace, action: action.kind });
    log.debug({ plan: action }, 'Planned membership action');
    const outcome = await execute(action, {
      cluster,
      core: this.core,
      etcd: observed.etcd,
      log,
      crash: this.crash,
      image: this.image,
    });
    await this.report(key, observed, action, outcome);
    return { requeueAfterMs: outcome.requeueAfterMs };
  }

  private async report(key: ObjectKey, observed: Observed, action: Action, outcome: Outcome): Promise<void> {
    const { cluster, etcd } = observed;
    if (!cluster.metadata.deletionTimestamp) {
      await patchStatus(this.deps.kubeConfig, RESOURCE, key, {
        ...buildStatus(cluster, action, etcd, new Date(), abandonedData(observed.pvcs)),
      });
    }
    const subject = { apiVersion: API_GROUP_VERSION, kind: ETCD_CLUSTER_KIND, metadata: cluster.metadata };
    if (outcome.event)
      await this.deps.events.event(subject, 'Normal', outcome.event.reason, outcome.event.message);
    if (action.kind === 'Refuse')
      await this.deps.events.event(subject, 'Warning', 'InvalidSpec', describeAction(action));
    if (action.kind === 'Wait' && action.degraded)
      await this.deps.events.event(subject, 'Warning', action.reason, action.message);
    if (action.kind === 'ReportQuorumLost') {
      await this.deps.events.event(subject, 'Warning', 'QuorumLost', describeAction(action));
    }
    if (outcome.change) this.deps.metrics.membershipChange(key, outcome.change);
    this.deps.metrics.quorumLost(key, action.kind === 'ReportQuorumLost');
    this.deps.metrics.membersReady(key, etcd?.view.members.filter((member) => member.healthy).length ?? 0);
  }
}

/** The reconciler controller/main.ts registers for EtcdClusters. */
export function createEtcdClusterReconciler(deps: ReconcilerDeps): Reconciler {
  return new EtcdClusterReconciler(deps);
}
