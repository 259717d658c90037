// The soak's summary and table (test/soak/summary.ts), and how a step's `pick` names a member (plan.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pickMember, type SoakPlanOptions, type SoakStep } from '../../soak/plan.js';
import { firstSighting, percentile, summarize, summaryTable } from '../../soak/summary.js';

const options: SoakPlanOptions = {
  seed: 7,
  operations: 3,
  overlapShare: 0.5,
  nodes: 3,
  sizes: [1, 3, 5],
  initialSize: 3,
  versions: ['3.5.35', '3.6.16'],
  memories: ['128Mi'],
  undoAfter: [2, 4],
};
const plan: SoakStep[] = [
  { index: 1, op: { kind: 'stopMinio' }, overlapsNext: true },
  { index: 2, op: { kind: 'deletePod', cluster: 'plain', pick: 0.5 }, overlapsNext: false },
  { index: 3, op: { kind: 'deletePod', cluster: 'tls', pick: 0.1 }, overlapsNext: false },
  { index: 4, op: { kind: 'startMinio' }, overlapsNext: false },
];

describe('percentile', () => {
  it('takes the nearest rank: p50 of 1..10 is 5, p95 is 10, p100 is the max; nothing gives 0', () => {
    const values = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    assert.equal(percentile(values, 50), 5);
    assert.equal(percentile(values, 95), 10);
    assert.equal(percentile(values, 100), 10);
    assert.equal(percentile([4], 50), 4);
    assert.equal(percentile([], 95), 0);
  });
});

describe('summarize', () => {
  const summary = summarize({
    options,
    plan,
    outcomes: [
      { index: 1, kind: 'stopMinio', overlapsNext: true, convergeMs: 100 },
      { index: 2, kind: 'deletePod', overlapsNext: false, convergeMs: 3_000 },
      { index: 3, kind: 'deletePod', overlapsNext: false, convergeMs: 5_000 },
      { index: 4, kind: 'startMinio', overlapsNext: false, convergeMs: 900 },
    ],
    commit: 'abc1234',
    startedAt: new Date('2026-11-29T05:00:00Z'),
    endedAt: new Date('2026-11-29T05:01:40Z'),
    checks: { converged: 6, continuous: 40, drilled: 2 },
    writes: { plain: { acknowledged: 10, unknown: 1 } },
    incomplete: [],
    runbook: [{ step: 2, cluster: 'plain', what: 'SeedLost: deleted plain-3', podUid: 'u1' }],
    violations: [
      { step: 3, invariant: 'writes', cluster: 'tls', detail: 'lost soak/1/4: expected v4, found -' },
    ],
    replay: (step) => `replay ${step}`,
  });

  it('counts operations by kind, drawn ones apart from undo ones, and the overlapping share of all steps', () => {
    assert.deepEqual(summary.operations, { stopMinio: 1, deletePod: 2, startMinio: 1 });
    assert.equal(summary.steps, 4);
    assert.equal(summary.drawn, 3);
    assert.equal(summary.overlapping, 1);
    assert.equal(summary.overlapShare, 0.25);
    assert.equal(summary.durationS, 100);
    assert.equal(summary.seed, 7);
    assert.equal(summary.commit, 'abc1234');
    assert.equal('seed' in summary.options, false);
  });

  it('gives each kind its convergence count, p50, p95 and max', () =>
    assert.deepEqual(summary.convergence.deletePod, { count: 2, p50Ms: 3_000, p95Ms: 5_000, maxMs: 5_000 }));

  it('carries each violation with its seed and the command that replays its step, and the table names it', () => {
    assert.deepEqual(summary.violations, [
      {
        step: 3,
        invariant: 'writes',
        cluster: 'tls',
        detail: 'lost soak/1/4: expected v4, found -',
        seed: 7,
        replay: 'replay 3',
      },
    ]);
    const table = summaryTable(summary);
    assert.match(
      table,
      /^soak seed 7: 4 steps \(3 drawn, 1 overlapping, 25 %\) in 100 s; checks 6 after steps, 40 continuous, 2 backups restored in drills$/m,
    );
    assert.match(table, /^deletePod +2 {2}p50 +3\.0s {2}p95 +5\.0s {2}max +5\.0s$/m);
    assert.match(table, /^runbook: step 2 plain: SeedLost: deleted plain-3$/m);
    assert.match(
      table,
      /^VIOLATION step 3 writes tls: lost soak\/1\/4: expected v4, found - \(replay: replay 3\)$/m,
    );
  });
});

describe('pickMember', () => {
  it('maps [0, 1) onto the members in order, and names none when none is live', () => {
    const members = ['m-0', 'm-1', 'm-3'];
    assert.equal(pickMember(members, 0), 'm-0');
    assert.equal(pickMember(members, 0.34), 'm-1');
    assert.equal(pickMember(members, 0.999999), 'm-3');
    assert.equal(pickMember([], 0.5), undefined);
  });
});

describe('firstSighting', () => {
  it('reports a writes or watch finding once, at its first step; a finding of a moment every time', () => {
    const reported = new Set<string>();
    const watch = (step: number) =>
      ({
        step,
        invariant: 'watch',
        cluster: 'tls',
        detail: 'resynced at revision 7, below revision 8 seen before',
      }) as const;
    const membership = (step: number) =>
      ({ step, invariant: 'membership', cluster: 'tls', detail: 'PVCs a' }) as const;
    assert.equal(firstSighting(reported, watch(71)), true);
    assert.equal(firstSighting(reported, watch(72)), false);
    assert.equal(firstSighting(reported, { ...watch(72), cluster: 'plain' }), true, 'another cluster');
    assert.equal(firstSighting(reported, { ...watch(72), invariant: 'writes' }), true, 'another invariant');
    assert.equal(firstSighting(reported, membership(67)), true);
    assert.equal(firstSighting(reported, membership(68)), true);
  });
});
