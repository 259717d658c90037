// The fault soak's seeded operation plan (test/soak/plan.ts): deterministic per seed, drawn by weight, every
// operation allowed by the world as the plan has left it, every temporary fault undone, the overlap share kept.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DEFAULT_SOAK_WEIGHTS,
  planSoak,
  SOAK_CLUSTERS,
  type SoakCluster,
  type SoakKind,
  type SoakPlanOptions,
  type SoakStep,
} from '../../soak/plan.js';

const options = (over: Partial<SoakPlanOptions> = {}): SoakPlanOptions => ({
  seed: 42,
  operations: 200,
  overlapShare: 0.25,
  nodes: 3,
  sizes: [1, 3, 5],
  initialSize: 3,
  versions: ['3.5.26', '3.5.35', '3.6.16'],
  memories: ['256Mi', '384Mi'],
  undoAfter: [1, 3],
  ...over,
});

const UNDO: ReadonlySet<SoakKind> = new Set(['startNode', 'healNetwork', 'startMinio', 'unpause']);

/** Replays `steps` over an independent model of the world and returns the first step the world does not allow. */
function firstNotAllowed(steps: readonly SoakStep[], o: SoakPlanOptions): string | undefined {
  const down = new Set<number>();
  let minioUp = true;
  const cluster = Object.fromEntries(
    SOAK_CLUSTERS.map((c) => [c, { size: o.initialSize, version: 0, paused: false }]),
  ) as Record<SoakCluster, { size: number; version: number; paused: boolean }>;
  for (const { index, op } of steps) {
    const why = (text: string) => `step ${index} ${JSON.stringify(op)}: ${text}`;
    if ('cluster' in op && op.kind !== 'unpause' && cluster[op.cluster].paused)
      return why('its cluster is paused');
    switch (op.kind) {
      case 'scale':
        if (!o.sizes.includes(op.size) || op.size === cluster[op.cluster].size)
          return why('not a new allowed size');
        cluster[op.cluster].size = op.size;
        break;
      case 'upgrade':
        if (op.version !== o.versions[cluster[op.cluster].version + 1]) return why('not the next version');
        cluster[op.cluster].version += 1;
        break;
      case 'stopNode':
      case 'cutNetwork':
      case 'replaceNode':
        if (down.size > 0) return why('another node is down');
        if (SOAK_CLUSTERS.some((c) => cluster[c].size < 3))
          return why('a cluster of fewer than three members may have its only member on that node');
        if (op.kind !== 'replaceNode') down.add(op.node);
        break;
      case 'startNode':
      case 'healNetwork':
        if (!down.delete(op.node)) return why('the node was not down');
        break;
      case 'stopMinio':
        if (!minioUp) return why('MinIO already stopped');
        minioUp = false;
        break;
      case 'startMinio':
        if (minioUp) return why('MinIO was not stopped');
        minioUp = true;
        break;
      case 'backup':
      case 'restoreBackup':
      case 'fillAndDefrag':
        if (!minioUp) return why('MinIO is stopped');
        break;
      case 'restoreSurvivor':
        if (cluster[op.cluster].size < 3)
          return why('fewer than three members: no quorum to lose with a survivor');
        break;
      case 'wipeVolume':
        if (cluster[op.cluster].size < 3)
          return why('fewer than three members: the volume holds the only copy');
        break;
      case 'pause':
        cluster[op.cluster].paused = true;
        break;
      case 'unpause':
        if (!cluster[op.cluster].paused) return why('not paused');
        cluster[op.cluster].paused = false;
        break;
      default:
        break;
    }
    if ('pick' in op && !(op.pick >= 0 && op.pick < 1)) return why('pick outside [0, 1)');
    if ('node' in op && !(op.node >= 1 && op.node <= o.nodes)) return why('no such node');
  }
  if (down.size > 0 || !minioUp || SOAK_CLUSTERS.some((c) => cluster[c].paused))
    return 'a fault is left at the end';
  return undefined;
}

describe('planSoak', () => {
  it('gives the same plan for the same seed and options, and another for another seed', () => {
    assert.deepEqual(planSoak(options()), planSoak(options()));
    assert.notDeepEqual(planSoak(options()), planSoak(options({ seed: 43 })));
  });

  it('draws exactly the operations asked for, undo operations on top, and numbers the steps from 1', () => {
    for (const seed of [1, 2, 3, 42, 1234]) {
      const steps = planSoak(options({ seed }));
      assert.equal(steps.filter((s) => !UNDO.has(s.op.kind)).length, 200, `seed ${seed}`);
      assert.deepEqual(
        steps.map((s) => s.index),
        steps.map((_, i) => i + 1),
      );
    }
  });

  it('never plans what the world does not allow at that point, and leaves no fault behind, for many seeds', () => {
    for (let seed = 1; seed <= 200; seed += 1) {
      const o = options({ seed, operations: 100 });
      assert.equal(firstNotAllowed(planSoak(o), o), undefined, `seed ${seed}`);
    }
  });

  it('undoes each temporary fault within undoAfter steps of it', () => {
    const steps = planSoak(options({ seed: 7, undoAfter: [2, 4] }));
    const undoOf: Partial<Record<SoakKind, SoakKind>> = {
      stopNode: 'startNode',
      cutNetwork: 'healNetwork',
      stopMinio: 'startMinio',
      pause: 'unpause',
    };
    const lastDrawn = Math.max(...steps.filter((s) => !UNDO.has(s.op.kind)).map((s) => s.index));
    let faults = 0;
    for (const step of steps) {
      const undo = undoOf[step.op.kind];
      if (!undo) continue;
      faults += 1;
      const same = (s: SoakStep) =>
        s.op.kind === undo &&
        JSON.stringify({ ...s.op, kind: undefined }) === JSON.stringify({ ...step.op, kind: undefined });
      const later = steps.slice(step.index).find(same);
      assert.ok(later, `step ${step.index} ${JSON.stringify(step.op)} is undone`);
      // Due 2 to 4 steps after the fault, an undo comes after the step that reaches that point (3 to 5 steps),
      // later by one for each other undo due at once (at most three other kinds of fault are pending); the plan's
      // end undoes what is still pending at once.
      const gap = later.index - step.index;
      if (later.index <= lastDrawn)
        assert.ok(gap >= 3, `step ${step.index}: undone at ${later.index}, too soon`);
      assert.ok(gap <= 5 + 3, `step ${step.index}: undone at ${later.index}, too late`);
    }
    assert.ok(faults > 10, `${faults} faults in 200 operations`);
  });

  it('overlaps about the share of steps asked for, never a restore, an undo, a step before a node fault or the last step', () => {
    const steps = planSoak(options({ seed: 5, operations: 2000, overlapShare: 0.3 }));
    const eligible = steps.filter(
      (s, i) =>
        i < steps.length - 1 &&
        !UNDO.has(s.op.kind) &&
        !['restoreBackup', 'restoreSurvivor'].includes(s.op.kind) &&
        !['stopNode', 'cutNetwork', 'replaceNode'].includes(steps[i + 1]?.op.kind ?? ''),
    );
    const share = eligible.filter((s) => s.overlapsNext).length / eligible.length;
    assert.ok(Math.abs(share - 0.3) < 0.03, `share ${share.toFixed(3)} of ${eligible.length} eligible steps`);
    assert.ok(
      steps.every((s) => !s.overlapsNext || eligible.includes(s)),
      'only eligible steps overlap',
    );
    assert.equal(
      planSoak(options({ overlapShare: 0 })).some((s) => s.overlapsNext),
      false,
    );
  });

  it('draws every weighted kind and none weighted 0; refuses weights that allow nothing', () => {
    const kinds = new Set(planSoak(options({ operations: 1000 })).map((s) => s.op.kind));
    for (const kind of Object.keys(DEFAULT_SOAK_WEIGHTS)) assert.ok(kinds.has(kind as SoakKind), kind);
    const noBackups = planSoak(
      options({ weights: { ...DEFAULT_SOAK_WEIGHTS, backup: 0, restoreBackup: 0 } }),
    );
    assert.equal(
      noBackups.some((s) => s.op.kind === 'backup' || s.op.kind === 'restoreBackup'),
      false,
    );
    assert.throws(() => planSoak(options({ weights: {} })), /at least one operation needs a weight above 0/);
    // Only faults that wait for their undo: the plan undoes them early rather than never ending.
    const onlyFaults = planSoak(options({ operations: 20, weights: { stopNode: 1 } }));
    assert.equal(onlyFaults.filter((s) => s.op.kind === 'stopNode').length, 20);
  });
});
