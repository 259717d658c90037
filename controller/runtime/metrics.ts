// The controller's Prometheus registry: default process metrics (RSS, CPU, heap, event loop lag) plus ours.
// Implements ControllerMetrics for the reconcilers and ReconcileObserver for the work queue.
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { keyString } from './keys.js';
import type { ReconcileObserver, ReconcileOutcome } from './queue.js';
import type { ControllerMetrics, ObjectKey } from './types.js';

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
  private readonly quorumLostGauge: Gauge<'namespace' | 'cluster'>;
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
    this.quorumLostGauge = new Gauge({
      name: 'etcd_gitops_quorum_lost',
      help: '1 while the cluster has lost quorum, else 0.',
      labelNames: ['namespace', 'cluster'],
      registers,
    });
    this.leaderGauge = new Gauge({
      name: 'etcd_gitops_leader',
      help: '1 while this process holds the leader lease (or runs without leader election), else 0.',
      registers,
    });
    this.leaderGauge.set(0);
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

  quorumLost(cluster: ObjectKey, lost: boolean): void {
    this.quorumLostGauge.set({ namespace: cluster.namespace, cluster: cluster.name }, lost ? 1 : 0);
  }

  forget(cluster: ObjectKey): void {
    const labels = { namespace: cluster.namespace, cluster: cluster.name };
    this.membersReadyGauge.remove(labels);
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
