import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { backoffDelay, PerKeyBackoff } from '../../../controller/runtime/backoff.js';

describe('backoffDelay', () => {
  const table: Array<[failures: number, options: Parameters<typeof backoffDelay>[1], expectedMs: number]> = [
    [0, {}, 0],
    [1, {}, 1_000],
    [2, {}, 2_000],
    [9, {}, 256_000],
    [10, {}, 300_000],
    [5000, {}, 300_000],
    [3, { initialMs: 100, maxMs: 250 }, 250],
    [2, { initialMs: 100, maxMs: 250 }, 200],
  ];
  for (const [failures, options, expectedMs] of table) {
    it(`waits ${expectedMs} ms after ${failures} failures with ${JSON.stringify(options)}`, () => {
      assert.equal(backoffDelay(failures, options), expectedMs);
    });
  }
});

describe('PerKeyBackoff', () => {
  it('counts failures per key and forgets a key on reset', () => {
    // GIVEN two keys, one failing twice and one once
    const backoff = new PerKeyBackoff({ initialMs: 10, maxMs: 1000 });
    // WHEN they fail
    const delays = [backoff.next('a'), backoff.next('a'), backoff.next('b')];
    // THEN their delays grow independently, and a reset starts a key over
    assert.deepEqual(delays, [10, 20, 10]);
    backoff.reset('a');
    assert.equal(backoff.failuresOf('a'), 0);
    assert.equal(backoff.next('a'), 10);
    assert.equal(backoff.failuresOf('b'), 1);
  });
});
