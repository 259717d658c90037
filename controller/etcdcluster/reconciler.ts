// One level-triggered pass over one EtcdCluster: observe, plan one action, execute it, write status, record
// Events and metrics, requeue. The algorithm is in docs/design/membership.md and plan.ts.
import { randomBytes } from 'node:crypto';
import { CoreV1Api } from '@kubernetes/client-node';
import {
  API_GROUP,
  API_GROUP_VERSION,
  API_VERSION,
  DEFAULT_SIZE,
  ETCD_CLUSTER_KIND,
  ETCD_CLUSTER_PLURAL,
} from '../../constructs/conventions/index.js';
import { operatorImage } from '../restore/seed-init-container.js';
import { type CrashSwitch, crashSwitchFromEnv } from '../runtime/crash-switch.js';
import { patchStatus } from '../runtime/kube.js';
import { mergePatchChanges } from '../runtime/merge-patch.js';
import { ALARM_KINDS } from '../runtime/metrics.js';
import type { ObjectKey, ReconcileResult, Reconciler, ReconcilerDeps } from '../runtime/types.js';
import { abandonedData } from './abandoned.js';
import { execute } from './execute.js';
import type { Outcome } from './execute-context.js';
import { getCluster, type Observed, observe, planInput } from './observe.js';
import { planMembership } from './plan.js';
import { CLUSTER_REASONS } from './reasons.js';
import { buildStatus } from './status.js';
import { alarmReason } from './status-faults.js';
import { describeAction, reportedAction } from './status-progress.js';
import { rollEvents } from './status-roll.js';
import type { Action, ActionKind } from './types.js';
import { toPodView } from './views.js';

const RESOURCE = { group: API_GROUP, version: API_VERSION, plural: ETCD_CLUSTER_PLURAL };

export class EtcdClusterReconciler implements Reconciler {
  private readonly core: CoreV1Api;
  private readonly crash: CrashSwitch<ActionKind>;
  private readonly image = operatorImage();

  constructor(private readonly deps: ReconcilerDeps) {
    this.core = deps.kubeConfig.makeApiClient(CoreV1Api);
    this.crash = crashSwitchFromEnv<ActionKind>();
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
      kubeConfig: this.deps.kubeConfig,
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
    const pods = observed.pods.flatMap((pod) => toPodView(pod) ?? []);
    const told = reportedAction(action, outcome.notYet);
    const status = buildStatus(cluster, told, etcd, new Date(), abandonedData(observed.pvcs), pods);
    // An identical status is not written again: at rest, every steady pass would PATCH the same bytes.
    if (!cluster.metadata.deletionTimestamp && mergePatchChanges(cluster.status, { ...status })) {
      await patchStatus(this.deps.kubeConfig, RESOURCE, key, { ...status });
    }
    const subject = { apiVersion: API_GROUP_VERSION, kind: ETCD_CLUSTER_KIND, metadata: cluster.metadata };
    const event = (type: 'Normal' | 'Warning', reason: string, message: string) =>
      this.deps.events.event(subject, type, reason, message);
    if (outcome.event)
      await event(outcome.event.type ?? 'Normal', outcome.event.reason, outcome.event.message);
    for (const told of rollEvents(cluster.status ?? {}, status))
      await event('Normal', told.reason, told.message);
    if (action.kind === 'Refuse') await event('Warning', CLUSTER_REASONS.invalidSpec, describeAction(action));
    if (action.kind === 'Wait' && action.degraded) await event('Warning', action.reason, action.message);
    if (action.kind === 'ReportQuorumLost')
      await event('Warning', CLUSTER_REASONS.quorumLost, describeAction(action));
    // An etcd alarm the Degraded condition tells (docs/design/compaction-quota-defrag.md, "Alarms in the status").
    const alarms = etcd?.alarms ?? [];
    const degraded = status.conditions?.find((condition) => condition.type === 'Degraded');
    if (degraded && alarms.some((alarm) => alarmReason(alarm.alarm) === degraded.reason)) {
      await event('Warning', degraded.reason, degraded.message);
    }
    this.recordMetrics(key, action, outcome, etcd);
    this.deps.metrics.membersDesired(key, cluster.spec.size ?? DEFAULT_SIZE);
    this.deps.metrics.membersUpdated(key, status.updatedMembers ?? 0);
  }

  private recordMetrics(key: ObjectKey, action: Action, outcome: Outcome, etcd: Observed['etcd']): void {
    const { metrics } = this.deps;
    if (outcome.change) metrics.membershipChange(key, outcome.change);
    metrics.quorumLost(key, action.kind === 'ReportQuorumLost');
    metrics.membersReady(key, etcd?.view.members.filter((member) => member.healthy).length ?? 0);
    if (etcd?.alarms) {
      const alarms = etcd.alarms;
      metrics.alarms(
        key,
        Object.fromEntries(ALARM_KINDS.map((kind) => [kind, alarms.filter((a) => a.alarm === kind).length])),
      );
    }
    metrics.memberDbSizes(
      key,
      [...(etcd?.statuses ?? new Map()).entries()].map(([member, status]) => ({
        member,
        dbSize: status.dbSize,
        dbSizeInUse: status.dbSizeInUse,
      })),
    );
  }
}

/** The reconciler controller/main.ts registers for EtcdClusters. */
export function createEtcdClusterReconciler(deps: ReconcilerDeps): Reconciler {
  return new EtcdClusterReconciler(deps);
}
