// The per-key work queue (controller-runtime's workqueue semantics, as in Pepr's queue):
// - a key is pending at most once (adds of a pending key are merged);
// - a key runs at most once at a time; a key added while it runs runs again right after;
// - up to `concurrency` different keys run in parallel;
// - a thrown error requeues the key after an exponential backoff (1 s doubling to 5 min), a success resets it;
// - `requeueAfterMs` schedules the next run; an earlier scheduled run wins over a later one;
// - `addUnlessScheduled` (the resync) queues only a key with no run scheduled: one that has will run then anyway;
// - `shutdown` stops taking keys, waits for running reconciles up to a deadline, then aborts their signal.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { type BackoffOptions, PerKeyBackoff } from './backoff.js';
import { keyString } from './keys.js';
import type { ObjectKey, Reconciler } from './types.js';

/** Runs `fn` after `ms`; returns a function that cancels it. */
export type Scheduler = (fn: () => void, ms: number) => () => void;

/** How a reconcile pass ended. */
export type ReconcileOutcome = 'success' | 'requeue' | 'error';

/** Told about every finished reconcile (metrics). */
export interface ReconcileObserver {
  reconciled(key: ObjectKey, outcome: ReconcileOutcome, seconds: number): void;
}

export interface WorkQueueOptions {
  readonly reconciler: Reconciler;
  readonly log: Logger;
  /** Different keys reconciled in parallel. @default 4 */
  readonly concurrency?: number;
  /** Retry delays after errors. @default - 1 s doubling to 5 min */
  readonly backoff?: BackoffOptions;
  readonly observer?: ReconcileObserver;
  /** @default - setTimeout, unref'd so a pending retry never keeps the process alive */
  readonly schedule?: Scheduler;
  /** Collect keys but run none until `resume()` (e.g. until the caches synced). @default false */
  readonly paused?: boolean;
}

/** What `shutdown` achieved. */
export interface ShutdownResult {
  /** True when every running reconcile finished before the deadline. */
  readonly drained: boolean;
}

const defaultSchedule: Scheduler = (fn, ms) => {
  const timer = setTimeout(fn, ms);
  timer.unref();
  return () => clearTimeout(timer);
};

interface Delayed {
  readonly at: number;
  readonly cancel: () => void;
}

export class WorkQueue {
  private readonly concurrency: number;
  private readonly backoff: PerKeyBackoff;
  private readonly schedule: Scheduler;
  private readonly keys = new Map<string, ObjectKey>();
  private readonly pending: string[] = [];
  private readonly dirty = new Set<string>();
  private readonly running = new Map<string, Promise<void>>();
  private readonly delayed = new Map<string, Delayed>();
  private readonly abort = new AbortController();
  private readonly idleWaiters: Array<() => void> = [];
  private stopping = false;
  private paused: boolean;

  constructor(private readonly options: WorkQueueOptions) {
    this.paused = options.paused ?? false;
    this.concurrency = Math.max(1, options.concurrency ?? 4);
    this.backoff = new PerKeyBackoff(options.backoff);
    this.schedule = options.schedule ?? defaultSchedule;
  }

  /** Queue a key now (merged with a pending add of the same key). */
  add(key: ObjectKey): void {
    if (this.stopping) return;
    const id = keyString(key);
    this.keys.set(id, key);
    if (this.dirty.has(id)) return;
    this.dirty.add(id);
    if (this.running.has(id)) return;
    this.pending.push(id);
    this.pump();
  }

  /** Queue a key after `ms`; if a run of that key is already scheduled earlier, that one stands. */
  addAfter(key: ObjectKey, ms: number): void {
    if (this.stopping) return;
    if (ms <= 0) {
      this.add(key);
      return;
    }
    const id = keyString(key);
    const at = Date.now() + ms;
    const existing = this.delayed.get(id);
    if (existing && existing.at <= at) return;
    existing?.cancel();
    const cancel = this.schedule(() => {
      this.delayed.delete(id);
      this.add(key);
    }, ms);
    this.delayed.set(id, { at, cancel });
  }

  /**
   * Queue a key now unless a run of it is already scheduled (a requeue or a retry): the resync's add. A resync that
   * queued every key at once passed 50 clusters at rest in one 8 s burst beside their own steady requeues (`npm run
   * bench scale`, 2026-11-27, whose reconcile p99 at rest was ≤ 2.5 s).
   */
  addUnlessScheduled(key: ObjectKey): void {
    if (this.delayed.has(keyString(key))) return;
    this.add(key);
  }

  /** Starts running keys when the queue was created paused. */
  resume(): void {
    this.paused = false;
    this.pump();
  }

  /** Keys waiting to run now (not those scheduled for later). */
  get length(): number {
    return this.pending.length;
  }

  /** Consecutive failures of a key (0 after a success). */
  failures(key: ObjectKey): number {
    return this.backoff.failuresOf(keyString(key));
  }

  /** Resolves once nothing runs and nothing waits to run now (scheduled retries do not count). */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * Stops taking keys and drops pending and scheduled ones; waits up to `deadlineMs` for running reconciles,
   * then aborts their signal and waits up to `abortGraceMs` more for them to return.
   */
  async shutdown(deadlineMs: number, abortGraceMs = 1_000): Promise<ShutdownResult> {
    this.stopping = true;
    for (const delayed of this.delayed.values()) delayed.cancel();
    this.delayed.clear();
    this.pending.length = 0;
    this.dirty.clear();
    if (await this.settledWithin(deadlineMs)) return { drained: true };
    this.options.log.warn(
      { running: [...this.running.keys()], deadlineMs },
      'Aborting reconciles at shutdown',
    );
    this.abort.abort(new Error('work queue shut down'));
    await this.settledWithin(abortGraceMs);
    return { drained: false };
  }

  private async settledWithin(ms: number): Promise<boolean> {
    if (this.running.size === 0) return true;
    const timer = new AbortController();
    const all = Promise.allSettled([...this.running.values()]).then(() => true);
    const timeout = sleep(ms, false, { signal: timer.signal }).catch(() => false);
    const settled = await Promise.race([all, timeout]);
    timer.abort();
    return settled;
  }

  private pump(): void {
    while (!this.stopping && !this.paused && this.running.size < this.concurrency) {
      const id = this.pending.shift();
      if (id === undefined) break;
      this.dirty.delete(id);
      this.running.set(id, this.run(id));
    }
    this.notifyIfIdle();
  }

  private async run(id: string): Promise<void> {
    const key = this.keys.get(id) as ObjectKey;
    const started = performance.now();
    let outcome: ReconcileOutcome;
    try {
      const result = await this.options.reconciler.reconcile(key, this.abort.signal);
      this.backoff.reset(id);
      const after = result.requeueAfterMs;
      outcome = after === undefined ? 'success' : 'requeue';
      if (after !== undefined) this.addAfter(key, after);
    } catch (error) {
      outcome = 'error';
      this.retryAfterError(key, id, error);
    }
    const seconds = (performance.now() - started) / 1000;
    this.options.observer?.reconciled(key, outcome, seconds);
    this.options.log.debug({ key: id, outcome, seconds }, 'Reconciled');
    this.running.delete(id);
    if (this.dirty.has(id) && !this.stopping) this.pending.push(id);
    else this.keys.delete(id);
    this.pump();
  }

  private retryAfterError(key: ObjectKey, id: string, error: unknown): void {
    if (this.stopping) {
      this.options.log.info({ key: id, err: error }, 'Reconcile ended by shutdown');
      return;
    }
    const delayMs = this.backoff.next(id);
    this.options.log.error(
      { key: id, err: error, failures: this.backoff.failuresOf(id), retryInMs: delayMs },
      'Reconcile failed',
    );
    this.addAfter(key, delayMs);
  }

  private isIdle(): boolean {
    return this.running.size === 0 && this.pending.length === 0;
  }

  private notifyIfIdle(): void {
    if (!this.isIdle()) return;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }
}
