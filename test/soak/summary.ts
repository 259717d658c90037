// The soak's summary (docs/design/soak.md, "Output"): operations by kind, overlaps, convergence percentiles per kind,
// checks run and every violation with the seed and step that replay it; and its short human table. Pure.
import type { CheckCounts, SoakViolation } from './checks.js';
import type { SoakKind, SoakPlanOptions, SoakStep } from './plan.js';
import type { RunbookStep } from './runbook.js';

/** What the runner measured of one step. */
export interface StepOutcome {
  readonly index: number;
  readonly kind: SoakKind;
  readonly overlapsNext: boolean;
  /** From the step's start until it had converged (and, for an overlapping step, until the steps after it had). */
  readonly convergeMs: number;
}

export interface ConvergenceStats {
  readonly count: number;
  readonly p50Ms: number;
  readonly p95Ms: number;
  readonly maxMs: number;
}

export interface SoakSummary {
  readonly seed: number;
  /** The commit whose code ran (`git rev-parse HEAD`; with `+changes` when the tree differed from it). */
  readonly commit: string;
  readonly options: Omit<SoakPlanOptions, 'seed'>;
  readonly startedAt: string;
  readonly durationS: number;
  readonly steps: number;
  readonly drawn: number;
  readonly overlapping: number;
  readonly overlapShare: number;
  readonly operations: Readonly<Record<string, number>>;
  readonly convergence: Readonly<Record<string, ConvergenceStats>>;
  readonly checks: CheckCounts;
  readonly writes: Readonly<Record<string, { readonly acknowledged: number; readonly unknown: number }>>;
  /** Operations the world did not let complete (e.g. a backup Job on a node that died), with the reason. */
  readonly incomplete: readonly { readonly step: number; readonly kind: string; readonly reason: string }[];
  /** What the soak did as the user when the product asked the user to act (runbook.ts). */
  readonly runbook: readonly RunbookStep[];
  readonly violations: readonly (SoakViolation & { readonly seed: number; readonly replay: string })[];
}

/**
 * Whether `violation` is news. The writes and watch invariants judge the whole history so far, so what broke once is
 * found again after every later step; it is reported once, at the first step it was found (the step that replays
 * it). The other invariants judge a moment, and each finding is its own.
 */
export function firstSighting(reported: Set<string>, violation: SoakViolation): boolean {
  if (violation.invariant !== 'writes' && violation.invariant !== 'watch') return true;
  const key = `${violation.invariant}\u0000${violation.cluster ?? ''}\u0000${violation.detail}`;
  if (reported.has(key)) return false;
  reported.add(key);
  return true;
}

/** The nearest-rank percentile `p` (0 < p ≤ 100) of sorted `values`. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

const UNDO_KINDS: ReadonlySet<SoakKind> = new Set(['startNode', 'healNetwork', 'startMinio', 'unpause']);

export function summarize(input: {
  readonly options: SoakPlanOptions;
  readonly plan: readonly SoakStep[];
  readonly outcomes: readonly StepOutcome[];
  readonly commit: string;
  readonly startedAt: Date;
  readonly endedAt: Date;
  readonly checks: CheckCounts;
  readonly writes: Readonly<Record<string, { readonly acknowledged: number; readonly unknown: number }>>;
  readonly incomplete: readonly { readonly step: number; readonly kind: string; readonly reason: string }[];
  readonly runbook: readonly RunbookStep[];
  readonly violations: readonly SoakViolation[];
  /** How to replay a step of this seed (a command line). */
  readonly replay: (step: number) => string;
}): SoakSummary {
  const { seed, ...options } = input.options;
  const operations: Record<string, number> = {};
  for (const step of input.plan) operations[step.op.kind] = (operations[step.op.kind] ?? 0) + 1;
  const byKind = new Map<string, number[]>();
  for (const outcome of input.outcomes)
    byKind.set(outcome.kind, [...(byKind.get(outcome.kind) ?? []), outcome.convergeMs]);
  const convergence: Record<string, ConvergenceStats> = {};
  for (const [kind, times] of [...byKind].sort(([a], [b]) => a.localeCompare(b))) {
    const sorted = [...times].sort((a, b) => a - b);
    convergence[kind] = {
      count: sorted.length,
      p50Ms: Math.round(percentile(sorted, 50)),
      p95Ms: Math.round(percentile(sorted, 95)),
      maxMs: Math.round(sorted.at(-1) ?? 0),
    };
  }
  const overlapping = input.plan.filter((s) => s.overlapsNext).length;
  return {
    seed,
    commit: input.commit,
    options,
    startedAt: input.startedAt.toISOString(),
    durationS: Math.round((input.endedAt.getTime() - input.startedAt.getTime()) / 1000),
    steps: input.plan.length,
    drawn: input.plan.filter((s) => !UNDO_KINDS.has(s.op.kind)).length,
    overlapping,
    overlapShare: input.plan.length ? Math.round((overlapping / input.plan.length) * 1000) / 1000 : 0,
    operations,
    convergence,
    checks: input.checks,
    writes: input.writes,
    incomplete: input.incomplete,
    runbook: input.runbook,
    violations: input.violations.map((v) => ({ ...v, seed, replay: input.replay(v.step) })),
  };
}

/** The short human table: one line per kind, then the violations. */
export function summaryTable(summary: SoakSummary): string {
  const rows = Object.entries(summary.operations)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([kind, count]) => {
      const c = summary.convergence[kind];
      const s = (ms: number | undefined) => (ms === undefined ? '-' : `${(ms / 1000).toFixed(1)}s`);
      return `${kind.padEnd(18)} ${String(count).padStart(4)}  p50 ${s(c?.p50Ms).padStart(7)}  p95 ${s(c?.p95Ms).padStart(7)}  max ${s(c?.maxMs).padStart(7)}`;
    });
  const head = `soak seed ${summary.seed}: ${summary.steps} steps (${summary.drawn} drawn, ${summary.overlapping} overlapping, ${(summary.overlapShare * 100).toFixed(0)} %) in ${summary.durationS} s; checks ${summary.checks.converged} after steps, ${summary.checks.continuous} continuous, ${summary.checks.drilled} backups restored in drills`;
  const violations = summary.violations.length
    ? summary.violations.map(
        (v) =>
          `VIOLATION step ${v.step} ${v.invariant}${v.cluster ? ` ${v.cluster}` : ''}: ${v.detail} (replay: ${v.replay})`,
      )
    : ['0 violations'];
  const incomplete = summary.incomplete.map(
    (i) => `incomplete: step ${i.step} ${i.kind}: ${i.reason.split('\n')[0]}`,
  );
  const runbook = summary.runbook.map((r) => `runbook: step ${r.step} ${r.cluster}: ${r.what}`);
  return [head, ...rows, ...incomplete, ...runbook, ...violations].join('\n');
}
