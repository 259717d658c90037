// One level-triggered pass over one EtcdCluster: observe, plan one action, execute it, write status, record
// Events and metrics, requeue. The algorithm is in docs/design/membership.md and plan.ts. A cluster at rest is
// passed quietly (etcd read, nothing else, nothing written) until anything changes: docs/design/controller-runtime.md,
// "Fresh passes and quiet passes".
import { randomBytes } from 'node:crypto';
import { CoreV1Api } from '@kubernetes/client-node';
import type { Logger } from 'pino';
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
import { DEFAULT_RESYNC_PERIOD_MS } from '../runtime/flags.js';
import { keyString } from '../runtime/keys.js';
import { patchStatusUnlessGone } from '../runtime/kube.js';
import { mergePatchChanges } from '../runtime/merge-patch.js';
import { ALARM_KINDS } from '../runtime/metrics.js';
import type { ObjectKey, ReconcileResult, Reconciler, ReconcilerDeps } from '../runtime/types.js';
import { abandonedData } from './abandoned.js';
import type { EtcdClusterStatus } from './api.js';
import {
  type AtRest,
  cachedKubeSide,
  endsAtRest,
  isRestingPlan,
  kubeVersions,
  mayBeQuiet,
} from './at-rest.js';
import { execute, RESTING_OUTCOME } from './execute.js';
import type { ExecuteContext, Outcome } from './execute-context.js';
import { type Observed, observeByKey, observeEtcdOf, planInput } from './observe.js';
import { planMembership } from './plan.js';
import { CLUSTER_REASONS } from './reasons.js';
import { buildStatus } from './status.js';
import { backupEvents, backupPart } from './status-backups.js';
import { alarmReason } from './status-faults.js';
import { describeAction, reportedAction } from './status-progress.js';
import { rollEvents } from './status-roll.js';
import { tlsFindings } from './tls-views.js';
import type { Action, ActionKind } from './types.js';
import { nodeConditionsOnly, toPodView } from './views.js';

const RESOURCE = { group: API_GROUP, version: API_VERSION, plural: ETCD_CLUSTER_PLURAL };

/** An Event one pass records on its cluster. */
interface PassEvent {
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  readonly message: string;
}

/** What one pass reports: the status it built, whether that changes the status read, and its Events. */
interface Report {
  readonly status: EtcdClusterStatus;
  readonly statusChanged: boolean;
  readonly events: readonly PassEvent[];
}

/** Options of the EtcdCluster reconciler beside its dependencies. */
export interface EtcdClusterReconcilerOptions {
  /**
   * How long what a fresh pass read may stand in for a new read while the cluster stays at rest: quiet passes in
   * between take Kubernetes from the informer caches and read etcd alone. controller/main.ts passes
   * `--resync-period`.
   * @default DEFAULT_RESYNC_PERIOD_MS (5 min)
   */
  readonly freshReadEveryMs?: number;
}

export class EtcdClusterReconciler implements Reconciler {
  private readonly core: CoreV1Api;
  private readonly crash: CrashSwitch<ActionKind>;
  private readonly image = operatorImage();
  private readonly freshReadEveryMs: number;
  /** Per cluster key, what the last fresh pass read if it ended at rest (at-rest.ts). */
  private readonly atRest = new Map<string, AtRest>();

  constructor(
    private readonly deps: ReconcilerDeps,
    options: EtcdClusterReconcilerOptions = {},
  ) {
    this.core = deps.kubeConfig.makeApiClient(CoreV1Api);
    this.crash = crashSwitchFromEnv<ActionKind>();
    this.freshReadEveryMs = options.freshReadEveryMs ?? DEFAULT_RESYNC_PERIOD_MS;
  }

  async reconcile(key: ObjectKey, signal: AbortSignal): Promise<ReconcileResult> {
    return (await this.quietPass(key, signal)) ?? this.freshPass(key, signal);
  }

  /**
   * A pass of a cluster a fresh pass found at rest and whose watched objects have not changed since: etcd is read
   * afresh, nothing else, and nothing is written. `undefined` when this cannot be a quiet pass or it finds the
   * cluster no longer at rest: a fresh pass then decides.
   */
  private async quietPass(key: ObjectKey, signal: AbortSignal): Promise<ReconcileResult | undefined> {
    const remembered = this.atRest.get(keyString(key));
    const cached = this.deps.listers && remembered ? cachedKubeSide(this.deps.listers, key) : undefined;
    if (!remembered || !cached) return undefined;
    const log = this.deps.log.child({ cluster: key.name, namespace: key.namespace });
    const nowMs = Date.now();
    if (!mayBeQuiet(remembered, cached, nowMs, this.freshReadEveryMs)) {
      const versions = kubeVersions(cached);
      log.debug(
        {
          readAgeMs: nowMs - remembered.readAtMs,
          ...(versions === remembered.versions
            ? {}
            : { versions: { remembered: remembered.versions, cached: versions } }),
        },
        'Fresh pass: the watched objects changed, or the last fresh read is due again',
      );
      return undefined;
    }
    const { nodes, missingServices, tlsSecrets } = remembered;
    const tls = tlsSecrets ? tlsFindings(cached.cluster.spec.tls, tlsSecrets, new Date()) : undefined;
    const etcd = await observeEtcdOf(cached.cluster, cached.pods, tls);
    if (signal.aborted) return {};
    const observed: Observed = {
      ...cached,
      etcd,
      nodes,
      missingServices,
      ...(tls && tlsSecrets ? { tls, tlsSecrets } : {}),
    };
    const action = planMembership(planInput(observed, randomBytes(3).toString('hex')));
    // Never `execute`: a quiet pass performs nothing; a resting plan's outcome is the steady requeue.
    if (!isRestingPlan(action)) {
      log.debug({ plan: action }, 'Quiet pass: not at rest, a fresh pass decides');
      return undefined;
    }
    const report = this.reportOf(observed, action, RESTING_OUTCOME);
    if (!endsAtRest({ action, statusChanged: report.statusChanged, events: report.events.length })) {
      log.debug(
        { statusChanged: report.statusChanged, events: report.events.map((event) => event.reason) },
        'Quiet pass: not at rest, a fresh pass decides',
      );
      return undefined;
    }
    this.recordMetrics(key, observed, action, RESTING_OUTCOME, report);
    log.debug('Quiet pass: at rest');
    return { requeueAfterMs: RESTING_OUTCOME.requeueAfterMs };
  }

  /** A pass that reads everything from the API server and etcd, then acts. */
  private async freshPass(key: ObjectKey, signal: AbortSignal): Promise<ReconcileResult> {
    this.atRest.delete(keyString(key));
    const readAtMs = Date.now();
    const observed = await observeByKey(this.deps.kubeConfig, this.core, key);
    if (!observed) {
      this.deps.metrics.forget(key);
      return {};
    }
    if (signal.aborted) return {};
    const { cluster } = observed;
    const observeMs = Date.now() - readAtMs;
    const action = planMembership(planInput(observed, randomBytes(3).toString('hex')));
    const log = this.deps.log.child({ cluster: key.name, namespace: key.namespace, action: action.kind });
    log.debug({ plan: action, observeMs }, 'Planned membership action');
    const executeAtMs = Date.now();
    const outcome = await execute(action, this.executeContext(observed, log));
    const executeMs = Date.now() - executeAtMs;
    const report = this.reportOf(observed, action, outcome);
    const written =
      !report.statusChanged ||
      (await patchStatusUnlessGone(this.deps.kubeConfig, RESOURCE, key, { ...report.status }));
    if (!written) {
      // The cluster was deleted after this pass read it: nothing is left to report on.
      this.deps.metrics.forget(key);
      return {};
    }
    const subject = { apiVersion: API_GROUP_VERSION, kind: ETCD_CLUSTER_KIND, metadata: cluster.metadata };
    for (const { type, reason, message } of report.events)
      await this.deps.events.event(subject, type, reason, message);
    this.recordMetrics(key, observed, action, outcome, report);
    log.debug(
      { executeMs, reportMs: Date.now() - executeAtMs - executeMs, statusWritten: report.statusChanged },
      'Performed and reported',
    );
    if (endsAtRest({ action, statusChanged: report.statusChanged, events: report.events.length })) {
      this.atRest.set(keyString(key), {
        versions: kubeVersions(observed),
        readAtMs,
        nodes: nodeConditionsOnly(observed.nodes),
        missingServices: observed.missingServices,
        ...(observed.tlsSecrets ? { tlsSecrets: observed.tlsSecrets } : {}),
      });
    }
    return { requeueAfterMs: outcome.requeueAfterMs };
  }

  private executeContext(observed: Observed, log: Logger): ExecuteContext {
    return {
      cluster: observed.cluster,
      kubeConfig: this.deps.kubeConfig,
      core: this.core,
      etcd: observed.etcd,
      log,
      crash: this.crash,
      image: this.image,
    };
  }

  /** The status this pass builds and the Events it records; writes nothing. */
  private reportOf(observed: Observed, action: Action, outcome: Outcome): Report {
    const { cluster, etcd } = observed;
    const pods = observed.pods.flatMap((pod) => toPodView(pod) ?? []);
    const told = reportedAction(action, outcome);
    const now = new Date();
    const backups = backupPart(cluster.status ?? {}, observed.backups, now);
    const status = buildStatus(cluster, told, etcd, now, abandonedData(observed.pvcs), pods, backups);
    // An identical status is not written again: at rest, every steady pass would PATCH the same bytes.
    const statusChanged =
      !cluster.metadata.deletionTimestamp && mergePatchChanges(cluster.status, { ...status });
    const events: PassEvent[] = [];
    for (const { type, reason, message } of outcome.events ?? [])
      events.push({ type: type ?? 'Normal', reason, message });
    for (const told of rollEvents(cluster.status ?? {}, status))
      events.push({ type: 'Normal', reason: told.reason, message: told.message });
    if (action.kind === 'Refuse')
      events.push({ type: 'Warning', reason: CLUSTER_REASONS.invalidSpec, message: describeAction(action) });
    if (told.kind === 'Wait' && told.degraded)
      events.push({ type: 'Warning', reason: told.reason, message: told.message });
    if (action.kind === 'ReportQuorumLost')
      events.push({ type: 'Warning', reason: CLUSTER_REASONS.quorumLost, message: describeAction(action) });
    // An etcd alarm the Degraded condition tells (docs/design/compaction-quota-defrag.md, "Alarms in the status").
    const alarms = etcd?.alarms ?? [];
    const degraded = status.conditions?.find((condition) => condition.type === 'Degraded');
    if (degraded && alarms.some((alarm) => alarmReason(alarm.alarm) === degraded.reason))
      events.push({ type: 'Warning', reason: degraded.reason, message: degraded.message });
    events.push(...backupEvents(cluster.status?.conditions ?? [], backups));
    return { status, statusChanged, events };
  }

  private recordMetrics(
    key: ObjectKey,
    observed: Observed,
    action: Action,
    outcome: Outcome,
    report: Report,
  ): void {
    const { metrics } = this.deps;
    const { etcd } = observed;
    metrics.membersDesired(key, observed.cluster.spec.size ?? DEFAULT_SIZE);
    metrics.membersUpdated(key, report.status.updatedMembers ?? 0);
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
    metrics.restoreDrills(
      key,
      (report.status.backups ?? []).flatMap((entry) =>
        entry.lastDrill ? [{ schedule: entry.schedule, failed: entry.lastDrill.outcome === 'Failed' }] : [],
      ),
    );
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
export function createEtcdClusterReconciler(
  deps: ReconcilerDeps,
  options?: EtcdClusterReconcilerOptions,
): Reconciler {
  return new EtcdClusterReconciler(deps, options);
}
