import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import { type ReconcileOutcome, type Scheduler, WorkQueue } from '../../../controller/runtime/queue.js';
import type { ObjectKey, ReconcileResult } from '../../../controller/runtime/types.js';

const log = pino({ level: 'silent' });
const key = (name: string): ObjectKey => ({ namespace: 'ns', name });

interface Call {
  readonly name: string;
  readonly signal: AbortSignal;
  finish(result?: ReconcileResult): void;
  fail(error: Error): void;
}

/** A reconciler whose every pass stays open until the test finishes or fails it. */
function controlledReconciler() {
  const calls: Call[] = [];
  const waiters: Array<() => void> = [];
  let active = 0;
  let maxActive = 0;
  const reconciler = {
    reconcile(k: ObjectKey, signal: AbortSignal): Promise<ReconcileResult> {
      active += 1;
      maxActive = Math.max(maxActive, active);
      return new Promise((resolve, reject) => {
        calls.push({
          name: k.name,
          signal,
          finish: (result = {}) => {
            active -= 1;
            resolve(result);
          },
          fail: (error) => {
            active -= 1;
            reject(error);
          },
        });
        for (const wake of waiters.splice(0)) wake();
      });
    },
  };
  /** Resolves when the n-th call (1-based) has started. */
  const started = (n: number): Promise<Call> =>
    calls.length >= n
      ? Promise.resolve(calls[n - 1]!)
      : new Promise((resolve) => waiters.push(() => void started(n).then(resolve)));
  return { reconciler, calls, started, maxActive: () => maxActive, active: () => active };
}

/** A scheduler that records delays and fires only when the test says so. */
function manualScheduler() {
  const scheduled: Array<{ ms: number; fire: () => void; cancelled: boolean }> = [];
  const schedule: Scheduler = (fn, ms) => {
    const entry = { ms, fire: fn, cancelled: false };
    scheduled.push(entry);
    return () => {
      entry.cancelled = true;
    };
  };
  const live = () => scheduled.filter((entry) => !entry.cancelled);
  return { schedule, scheduled, live };
}

describe('WorkQueue', () => {
  it('runs one reconcile per key at a time and runs a key re-added while running once more after', async () => {
    // GIVEN a queue whose reconciles stay open
    const r = controlledReconciler();
    const queue = new WorkQueue({ reconciler: r.reconciler, log });
    // WHEN a key is added, and added twice more while it runs
    queue.add(key('a'));
    const first = await r.started(1);
    queue.add(key('a'));
    queue.add(key('a'));
    // THEN it is not started again while running
    assert.equal(r.calls.length, 1);
    assert.equal(queue.length, 0);
    // WHEN the first pass ends
    first.finish();
    const second = await r.started(2);
    // THEN exactly one more pass runs (the two re-adds were merged)
    second.finish();
    await queue.idle();
    assert.deepEqual(
      r.calls.map((c) => c.name),
      ['a', 'a'],
    );
  });

  it('merges adds of a key that is pending', async () => {
    // GIVEN a queue with concurrency 1, busy with key a
    const r = controlledReconciler();
    const queue = new WorkQueue({ reconciler: r.reconciler, log, concurrency: 1 });
    queue.add(key('a'));
    const a = await r.started(1);
    // WHEN b is added three times while a runs
    queue.add(key('b'));
    queue.add(key('b'));
    queue.add(key('b'));
    // THEN b is pending once
    assert.equal(queue.length, 1);
    a.finish();
    (await r.started(2)).finish();
    await queue.idle();
    assert.deepEqual(
      r.calls.map((c) => c.name),
      ['a', 'b'],
    );
  });

  it('runs different keys in parallel up to the concurrency bound', async () => {
    // GIVEN a queue with concurrency 2
    const r = controlledReconciler();
    const queue = new WorkQueue({ reconciler: r.reconciler, log, concurrency: 2 });
    // WHEN four keys are added
    for (const name of ['a', 'b', 'c', 'd']) queue.add(key(name));
    await r.started(2);
    // THEN two run and two wait
    assert.equal(r.active(), 2);
    assert.equal(queue.length, 2);
    // WHEN the running ones finish, the rest run, never more than two at once
    r.calls[0]!.finish();
    r.calls[1]!.finish();
    (await r.started(3)).finish();
    (await r.started(4)).finish();
    await queue.idle();
    assert.equal(r.maxActive(), 2);
    assert.deepEqual(
      r.calls.map((c) => c.name),
      ['a', 'b', 'c', 'd'],
    );
  });

  it('requeues a failed key with doubling backoff and resets the backoff after a success', async () => {
    // GIVEN a queue with a manual scheduler
    const r = controlledReconciler();
    const timers = manualScheduler();
    const queue = new WorkQueue({
      reconciler: r.reconciler,
      log,
      schedule: timers.schedule,
      backoff: { initialMs: 1000, maxMs: 3000 },
    });
    queue.add(key('a'));
    // WHEN the key fails three times in a row
    for (let n = 1; n <= 3; n += 1) {
      (await r.started(n)).fail(new Error(`boom ${n}`));
      await queue.idle();
      timers.live().at(-1)!.fire();
    }
    // THEN the retries were scheduled after 1 s, 2 s and 3 s (capped)
    assert.deepEqual(
      timers.scheduled.map((t) => t.ms),
      [1000, 2000, 3000],
    );
    assert.equal(queue.failures(key('a')), 3);
    // WHEN the fourth pass succeeds, THEN nothing more is scheduled and the failures are forgotten
    (await r.started(4)).finish();
    await queue.idle();
    assert.equal(timers.scheduled.length, 3);
    assert.equal(queue.failures(key('a')), 0);
    // WHEN it fails again, THEN the backoff starts over at 1 s
    queue.add(key('a'));
    (await r.started(5)).fail(new Error('again'));
    await queue.idle();
    assert.equal(timers.scheduled.at(-1)!.ms, 1000);
  });

  it('honours requeueAfterMs and keeps the earlier of two scheduled runs', async () => {
    // GIVEN a key that asks to be requeued after 30 s
    const r = controlledReconciler();
    const timers = manualScheduler();
    const queue = new WorkQueue({ reconciler: r.reconciler, log, schedule: timers.schedule });
    queue.add(key('a'));
    (await r.started(1)).finish({ requeueAfterMs: 30_000 });
    await queue.idle();
    assert.deepEqual(
      timers.live().map((t) => t.ms),
      [30_000],
    );
    // WHEN something asks for a later run, THEN the earlier one stands
    queue.addAfter(key('a'), 60_000);
    assert.deepEqual(
      timers.live().map((t) => t.ms),
      [30_000],
    );
    // WHEN something asks for an earlier run, THEN it replaces the later one
    queue.addAfter(key('a'), 5_000);
    assert.deepEqual(
      timers.live().map((t) => t.ms),
      [5_000],
    );
    // WHEN the timer fires, THEN the key runs again
    timers.live()[0]!.fire();
    (await r.started(2)).finish();
    await queue.idle();
    assert.equal(r.calls.length, 2);
  });

  it('addUnlessScheduled (the resync) leaves a key with a scheduled run alone and queues one without', async () => {
    // GIVEN key a requeued after 30 s, and key b that asked for nothing
    const r = controlledReconciler();
    const timers = manualScheduler();
    const queue = new WorkQueue({ reconciler: r.reconciler, log, schedule: timers.schedule });
    queue.add(key('a'));
    (await r.started(1)).finish({ requeueAfterMs: 30_000 });
    queue.add(key('b'));
    (await r.started(2)).finish();
    await queue.idle();
    // WHEN both are added unless scheduled
    queue.addUnlessScheduled(key('a'));
    queue.addUnlessScheduled(key('b'));
    // THEN only b runs now, and a's scheduled run stands
    (await r.started(3)).finish();
    await queue.idle();
    assert.deepEqual(
      r.calls.map((call) => call.name),
      ['a', 'b', 'b'],
    );
    assert.deepEqual(
      timers.live().map((t) => t.ms),
      [30_000],
    );
    // WHEN a's scheduled run fires, THEN a runs, and once nothing is scheduled for it an add unless scheduled queues it
    timers.live()[0]!.fire();
    (await r.started(4)).finish();
    await queue.idle();
    queue.addUnlessScheduled(key('a'));
    (await r.started(5)).finish();
    await queue.idle();
    assert.deepEqual(
      r.calls.map((call) => call.name),
      ['a', 'b', 'b', 'a', 'a'],
    );
  });

  it('reports every outcome to the observer', async () => {
    // GIVEN a queue with an observer
    const r = controlledReconciler();
    const seen: Array<[string, ReconcileOutcome]> = [];
    const queue = new WorkQueue({
      reconciler: r.reconciler,
      log,
      schedule: manualScheduler().schedule,
      observer: {
        reconciled: (k, outcome, seconds) => seen.push([k.name, outcome]) && assert.ok(seconds >= 0),
      },
    });
    // WHEN three keys end in success, requeue and error
    for (const name of ['ok', 'again', 'bad']) queue.add(key(name));
    (await r.started(1)).finish();
    (await r.started(2)).finish({ requeueAfterMs: 10 });
    (await r.started(3)).fail(new Error('x'));
    await queue.idle();
    // THEN each outcome was observed
    assert.deepEqual(seen, [
      ['ok', 'success'],
      ['again', 'requeue'],
      ['bad', 'error'],
    ]);
  });

  it('runs nothing while paused and everything collected once resumed', async () => {
    // GIVEN a queue created paused (caches not synced yet)
    const r = controlledReconciler();
    const queue = new WorkQueue({ reconciler: r.reconciler, log, paused: true });
    // WHEN keys are added
    queue.add(key('a'));
    queue.add(key('b'));
    queue.add(key('a'));
    // THEN none runs, each is pending once
    assert.equal(r.calls.length, 0);
    assert.equal(queue.length, 2);
    // WHEN resumed, THEN both run
    queue.resume();
    (await r.started(1)).finish();
    (await r.started(2)).finish();
    await queue.idle();
    assert.deepEqual(
      r.calls.map((c) => c.name),
      ['a', 'b'],
    );
  });

  it('shutdown waits for running reconciles and drops pending and scheduled keys', async () => {
    // GIVEN one running key, one pending key and one scheduled retry
    const r = controlledReconciler();
    const timers = manualScheduler();
    const queue = new WorkQueue({ reconciler: r.reconciler, log, concurrency: 1, schedule: timers.schedule });
    queue.add(key('running'));
    const running = await r.started(1);
    queue.add(key('pending'));
    queue.addAfter(key('later'), 1000);
    // WHEN shutdown starts and the running pass then finishes
    const result = queue.shutdown(60_000);
    running.finish();
    // THEN it drained, nothing else ran, the timer was cancelled and adds are ignored
    assert.deepEqual(await result, { drained: true });
    queue.add(key('after'));
    assert.equal(r.calls.length, 1);
    assert.equal(timers.live().length, 0);
    assert.equal(running.signal.aborted, false);
  });

  it('fails to drain when a reconcile outlives the deadline, and aborts its signal', async () => {
    // GIVEN a reconcile that only ends when its signal is aborted
    const r = controlledReconciler();
    const queue = new WorkQueue({ reconciler: r.reconciler, log });
    queue.add(key('slow'));
    const slow = await r.started(1);
    slow.signal.addEventListener('abort', () => slow.fail(new Error('aborted')));
    // WHEN shutdown has a deadline of 10 ms
    const result = await queue.shutdown(10);
    // THEN the signal was aborted, the queue reports it did not drain and the key is not retried
    assert.equal(slow.signal.aborted, true);
    assert.deepEqual(result, { drained: false });
    assert.equal(r.calls.length, 1);
  });
});
