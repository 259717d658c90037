// One controller: informer events mapped to keys, a per-key work queue running one reconciler, and a periodic
// resync that enqueues every primary object (level-triggered: a missed event costs at most one resync period).
// Workers start only after every informer synced, so a reconciler never decides from an empty cache.
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { BackoffOptions } from './backoff.js';
import { DEFAULT_RESYNC_PERIOD_MS } from './flags.js';
import { ownKey } from './owner-keys.js';
import { type ReconcileObserver, type ShutdownResult, WorkQueue } from './queue.js';
import type { ObjectKey, Reconciler } from './types.js';
import type { Watched } from './watched.js';

/** A watched informer and how its objects map to the controller's keys. */
export interface WatchSource {
  readonly informer: Watched<KubernetesObject>;
  readonly keysOf: (object: KubernetesObject) => ObjectKey[];
}

export interface ControllerOptions {
  /** For logs and the `controller` metric label, e.g. `etcdcluster`. */
  readonly name: string;
  readonly reconciler: Reconciler;
  readonly log: Logger;
  /** The reconciled resource: its keys are the queue's keys, and resync enqueues all of them. */
  readonly primary: Watched<KubernetesObject>;
  /** Other watched resources (Pods, PVCs, ...) mapped to primary keys. */
  readonly secondaries?: readonly WatchSource[];
  /** @default 4 */
  readonly concurrency?: number;
  /** Enqueue every primary object this often. @default DEFAULT_RESYNC_PERIOD_MS (5 min) */
  readonly resyncPeriodMs?: number;
  readonly observer?: ReconcileObserver;
  readonly backoff?: BackoffOptions;
}

export class Controller {
  private readonly queue: WorkQueue;
  private readonly log: Logger;
  private resyncTimer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly options: ControllerOptions) {
    this.log = options.log.child({ controller: options.name });
    this.queue = new WorkQueue({
      reconciler: options.reconciler,
      log: this.log,
      concurrency: options.concurrency,
      backoff: options.backoff,
      observer: options.observer,
      paused: true,
    });
    const sources: WatchSource[] = [
      { informer: options.primary, keysOf: ownKey },
      ...(options.secondaries ?? []),
    ];
    for (const { informer, keysOf } of sources) {
      informer.on((_event, object) => {
        for (const key of keysOf(object)) this.queue.add(key);
      });
    }
  }

  /** Waits for the informers to sync, then runs the queue and the resync timer. Informers are started elsewhere. */
  async start(): Promise<void> {
    const informers = [this.options.primary, ...(this.options.secondaries ?? []).map((s) => s.informer)];
    await Promise.all(informers.map((informer) => informer.whenSynced()));
    if (this.stopped) return;
    this.queue.resume();
    const period = this.options.resyncPeriodMs ?? DEFAULT_RESYNC_PERIOD_MS;
    this.resyncTimer = setInterval(() => this.resync(), period);
    this.resyncTimer.unref();
    this.log.info({ resyncPeriodMs: period }, 'Controller started');
  }

  /** Enqueues every known primary object that has no run scheduled (one that has runs then anyway). */
  resync(): void {
    const objects = this.options.primary.list();
    for (const object of objects) for (const key of ownKey(object)) this.queue.addUnlessScheduled(key);
    this.log.debug({ keys: objects.length }, 'Resync');
  }

  /** Stops the resync and drains the queue (running reconciles get `deadlineMs`, then their signal aborts). */
  async stop(deadlineMs: number): Promise<ShutdownResult> {
    this.stopped = true;
    clearInterval(this.resyncTimer);
    return this.queue.shutdown(deadlineMs);
  }
}
