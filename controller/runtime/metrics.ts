// The controller's Prometheus registry: default process metrics (RSS, CPU, heap, event loop lag) plus ours.
// Implements ControllerMetrics for the reconcilers and ReconcileObserver for the work queue.
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { keyString } from './keys.js';
import type { ReconcileObserver, ReconcileOutcome } from './queue.js';
import type { ControllerMetrics, ObjectKey } from './types.js';

/** The etcd alarm kinds `etcd_gitops_alarms` has a series for. */
export const ALARM_KINDS = ['NOSPACE', 'CORRUPT'] as const;

export interface MetricsOptions {
  /** Register Node.js process metrics (`process_resident_memory_bytes`, ...). @default true */
  readonly processMetrics?: boolean;
}

export class Metrics implements ControllerMetrics {
  readonly registry = new Registry();
  private readonly reconcileDuration: Histogram<'controller' | 'result'>;
  private readonly reconcileErrors: Counter<'controller'>;
  private readonly membershipChanges: Counter<'namespace' | 'cluster' | 'action'>;
  private readonly membersReadyGauge: Gauge<'namespace' | 'cluster'>;
  private readonly membersDesiredGauge: Gauge<'namespace' | 'cluster'>;
  private readonly membersUpdatedGauge: Gauge<'namespace' | 'cluster'>;
  private readonly quorumLostGauge: Gauge<'namespace' | 'cluster'>;
  private readonly alarmsGauge: Gauge<'namespace' | 'cluster' | 'alarm'>;
  private readonly dbSizeGauge: Gauge<'namespace' | 'cluster' | 'member'>;
  private readonly dbSizeInUseGauge: Gauge<'namespace' | 'cluster' | 'member'>;
  /** Members with DB size series per cluster, so that removed members and `forget` drop theirs. */
  private readonly membersSeen = new Map<string, Set<string>>();
  private readonly drillFailedGauge: Gauge<'namespace' | 'cluster' | 'schedule'>;
  /** Drilled schedules with a series per cluster, so that drills removed and `forget` drop theirs. */
  private readonly drillsSeen = new Map<string, Set<string>>();
  private readonly leaderGauge: Gauge;
  /** Actions seen per cluster, so `forget` can remove every series of the membership counter. */
  private readonly actionsSeen = new Map<string, Set<string>>();

  constructor(options: MetricsOptions = {}) {
    const registers = [this.registry];
    if (options.processMetrics ?? true) collectDefaultMetrics({ register: this.registry });
    this.reconcileDuration = new Histogram({
      name: 'etcd_gitops_reconcile_duration_seconds',
      help: 'Duration of reconcile passes, by controller and result (success, requeue, error).',
      labelNames: ['controller', 'result'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    });
    this.reconcileErrors = new Counter({
      name: 'etcd_gitops_reconcile_errors_total',
      help: 'Reconcile passes that ended in an error (and were retried with backoff).',
      labelNames: ['controller'],
      registers,
    });
    this.membershipChanges = new Counter({
      name: 'etcd_gitops_membership_changes_total',
      help: 'etcd membership changes carried out, by cluster and action.',
      labelNames: ['namespace', 'cluster', 'action'],
      registers,
    });
    this.membersReadyGauge = new Gauge({
      name: 'etcd_gitops_members_ready',
      help: 'Ready etcd members per cluster.',
      labelNames: ['namespace', 'cluster'],
      registers,
    });
    this.membersDesiredGauge = new Gauge({
      name: 'etcd_gitops_members_desired',
      help: 'Members the EtcdCluster spec asks for (spec.size).',
      labelNames: ['namespace', 'cluster'],
      registers,
    });
    this.membersUpdatedGauge = new Gauge({
      name: 'etcd_gitops_members_updated',
      help: 'Members whose Pod runs the current spec (status.updatedMembers): below members_desired while a rolling change is in progress.',
      labelNames: ['namespace', 'cluster'],
      registers,
    });
    this.quorumLostGauge = new Gauge({
      name: 'etcd_gitops_quorum_lost',
      help: '1 while the cluster has lost quorum, else 0.',
      labelNames: ['namespace', 'cluster'],
      registers,
    });
    this.alarmsGauge = new Gauge({
      name: 'etcd_gitops_alarms',
      help: 'Active etcd alarms per cluster and kind (NOSPACE: backend quota reached, writes refused; CORRUPT).',
      labelNames: ['namespace', 'cluster', 'alarm'],
      registers,
    });
    this.dbSizeGauge = new Gauge({
      name: 'etcd_gitops_member_db_size_bytes',
      help: 'Size of each member backend file in bytes (what the quota counts).',
      labelNames: ['namespace', 'cluster', 'member'],
      registers,
    });
    this.dbSizeInUseGauge = new Gauge({
      name: 'etcd_gitops_member_db_size_in_use_bytes',
      help: 'Bytes of each member backend in use (the rest is what defragmentation gives back).',
      labelNames: ['namespace', 'cluster', 'member'],
      registers,
    });
    this.leaderGauge = new Gauge({
      name: 'etcd_gitops_leader',
      help: '1 while this process holds the leader lease (or runs without leader election), else 0.',
      registers,
    });
    this.leaderGauge.set(0);
    this.drillFailedGauge = new Gauge({
      name: 'etcd_gitops_backup_drill_failed',
      help: "1 while the newest restore drill of a backup schedule failed, else 0 (the cluster's status.backups[].lastDrill).",
      labelNames: ['namespace', 'cluster', 'schedule'],
      registers,
    });
  }

  membershipChange(cluster: ObjectKey, action: string): void {
    this.membershipChanges.inc({ namespace: cluster.namespace, cluster: cluster.name, action });
    const id = keyString(cluster);
    const seen = this.actionsSeen.get(id) ?? new Set<string>();
    seen.add(action);
    this.actionsSeen.set(id, seen);
  }

  membersReady(cluster: ObjectKey, ready: number): void {
    this.membersReadyGauge.set({ namespace: cluster.namespace, cluster: cluster.name }, ready);
  }

  membersDesired(cluster: ObjectKey, desired: number): void {
    this.membersDesiredGauge.set({ namespace: cluster.namespace, cluster: cluster.name }, desired);
  }

  membersUpdated(cluster: ObjectKey, updated: number): void {
    this.membersUpdatedGauge.set({ namespace: cluster.namespace, cluster: cluster.name }, updated);
  }

  quorumLost(cluster: ObjectKey, lost: boolean): void {
    this.quorumLostGauge.set({ namespace: cluster.namespace, cluster: cluster.name }, lost ? 1 : 0);
  }

  alarms(cluster: ObjectKey, active: Readonly<Record<string, number>>): void {
    for (const [alarm, count] of Object.entries(active)) {
      this.alarmsGauge.set({ namespace: cluster.namespace, cluster: cluster.name, alarm }, count);
    }
  }

  memberDbSizes(
    cluster: ObjectKey,
    members: readonly { member: string; dbSize: number; dbSizeInUse: number }[],
  ): void {
    const id = keyString(cluster);
    const labels = { namespace: cluster.namespace, cluster: cluster.name };
    const now = new Set(members.map((m) => m.member));
    for (const gone of this.membersSeen.get(id) ?? []) {
      if (!now.has(gone)) this.removeMemberSeries(cluster, gone);
    }
    for (const m of members) {
      this.dbSizeGauge.set({ ...labels, member: m.member }, m.dbSize);
      this.dbSizeInUseGauge.set({ ...labels, member: m.member }, m.dbSizeInUse);
    }
    this.membersSeen.set(id, now);
  }

  private removeMemberSeries(cluster: ObjectKey, member: string): void {
    const labels = { namespace: cluster.namespace, cluster: cluster.name, member };
    this.dbSizeGauge.remove(labels);
    this.dbSizeInUseGauge.remove(labels);
  }

  restoreDrills(cluster: ObjectKey, drills: readonly { schedule: string; failed: boolean }[]): void {
    const id = keyString(cluster);
    const labels = { namespace: cluster.namespace, cluster: cluster.name };
    const now = new Set(drills.map((drill) => drill.schedule));
    for (const gone of this.drillsSeen.get(id) ?? []) {
      if (!now.has(gone)) this.drillFailedGauge.remove({ ...labels, schedule: gone });
    }
    for (const drill of drills)
      this.drillFailedGauge.set({ ...labels, schedule: drill.schedule }, drill.failed ? 1 : 0);
    this.drillsSeen.set(id, now);
  }

  forget(cluster: ObjectKey): void {
    const labels = { namespace: cluster.namespace, cluster: cluster.name };
    this.restoreDrills(cluster, []);
    this.drillsSeen.delete(keyString(cluster));
    for (const alarm of ALARM_KINDS) this.alarmsGauge.remove({ ...labels, alarm });
    for (const member of this.membersSeen.get(keyString(cluster)) ?? [])
      this.removeMemberSeries(cluster, member);
    this.membersSeen.delete(keyString(cluster));
    this.membersReadyGauge.remove(labels);
    this.membersDesiredGauge.remove(labels);
    this.membersUpdatedGauge.remove(labels);
    this.quorumLostGauge.remove(labels);
    const id = keyString(cluster);
    for (const action of this.actionsSeen.get(id) ?? []) this.membershipChanges.remove({ ...labels, action });
    this.actionsSeen.delete(id);
  }

  setLeader(leader: boolean): void {
    this.leaderGauge.set(leader ? 1 : 0);
  }

  /** The queue's observer for one controller: duration histogram and error counter. */
  observer(controller: string): ReconcileObserver {
    this.reconcileErrors.inc({ controller }, 0);
    return {
      reconciled: (_key: ObjectKey, outcome: ReconcileOutcome, seconds: number) => {
        this.reconcileDuration.observe({ controller, result: outcome }, seconds);
        if (outcome === 'error') this.reconcileErrors.inc({ controller });
      },
    };
  }

  /** The exposition text and its content type, for `/metrics`. */
  async expose(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
