// `npm run soak -- [--seed N] [--operations N] [--overlap F] [--until-step K] [--out FILE]` (docs/design/soak.md):
// plans a seeded sequence, runs it on the real world step by step (a step marked to overlap lets the next one start
// before it has converged), checks the invariants after every step and continuously, and writes the summary (JSON,
// merged by seed into --out) and a short table. Exits 1 on any violation. The same seed and options replay the
// same operations in the same order (--until-step stops after step K).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { repoRoot } from '../env/binaries.js';
import { leaveSignalToCaller } from '../env/cleanup.js';
import {
  type CheckCounts,
  checkConverged,
  checkPods,
  type SoakViolation,
  startContinuousChecks,
} from './checks.js';
import { soakOptions } from './options.js';
import { planSoak } from './plan.js';
import { act, CONVERGE_TIMEOUT_MS, IncompleteOperation } from './steps.js';
import { firstSighting, type StepOutcome, summarize, summaryTable } from './summary.js';
import { startSoakWorld } from './world.js';

const { values } = parseArgs({
  options: {
    seed: { type: 'string', default: '1' },
    operations: { type: 'string', default: '200' },
    overlap: { type: 'string', default: '0.35' },
    'until-step': { type: 'string' },
    out: { type: 'string', default: join(repoRoot, 'bench', 'results', 'soak.json') },
  },
});

/** The commit the run's code came from, `+changes` when the working tree differs from it. */
function commitOf(): string {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repoRoot, encoding: 'utf8' }).trim();
  try {
    return `${git('rev-parse', '--short=12', 'HEAD')}${git('status', '--porcelain', '--untracked-files=no') ? '+changes' : ''}`;
  } catch {
    return 'unknown';
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: no end within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

async function main(): Promise<number> {
  const options = soakOptions(Number(values.seed), Number(values.operations), Number(values.overlap));
  const all = planSoak(options);
  const untilStep = values['until-step'] ? Number(values['until-step']) : all.length;
  const plan = all.filter((s) => s.index <= untilStep);
  const replay = (step: number) =>
    `npm run soak -- --seed ${options.seed} --operations ${options.operations} --overlap ${options.overlapShare} --until-step ${step}`;
  const log = (text: string) => process.stdout.write(`${new Date().toISOString()} ${text}\n`);

  const startedAt = new Date();
  // Read now: the code that runs is what was built from the tree as it is at the start; a commit made while a long
  // run goes on must not be named as the run's (seed 3 on 2026-11-29 named one made during it).
  const commit = commitOf();
  log(`soak seed ${options.seed}: ${plan.length} steps; starting the world`);
  const world = await startSoakWorld({
    nodes: options.nodes,
    initialSize: options.initialSize,
    version: options.versions[0] as string,
  });
  const violations: SoakViolation[] = [];
  const reported = new Set<string>();
  const report = (v: SoakViolation) => {
    if (!firstSighting(reported, v)) return;
    violations.push(v);
    log(`VIOLATION step ${v.step} ${v.invariant}${v.cluster ? ` ${v.cluster}` : ''}: ${v.detail}`);
  };
  const counts: CheckCounts = { converged: 0, continuous: 0, drilled: 0 };
  const outcomes: StepOutcome[] = [];
  const incomplete: { step: number; kind: string; reason: string }[] = [];
  let current = 0;
  const continuous = startContinuousChecks(world, () => current, report, counts);
  try {
    /** Steps started and not yet converged (those marked to overlap the next). */
    let pending: {
      index: number;
      kind: StepOutcome['kind'];
      overlapsNext: boolean;
      done: Promise<number>;
    }[] = [];
    /** A step since the last check left a fault in place (the clusters may still be catching up with it). */
    let faultSince = false;
    let interrupted = false;
    leaveSignalToCaller('SIGINT');
    process.once('SIGINT', () => {
      interrupted = true;
      log('SIGINT: stopping after this step; the summary says how far it got');
    });
    for (const step of plan) {
      if (interrupted) break;
      current = step.index;
      const started = Date.now();
      log(`step ${step.index} ${JSON.stringify(step.op)}${step.overlapsNext ? ' (overlaps the next)' : ''}`);
      // The step itself (a fault in place, a request made, a restore completed) always ends before the next starts;
      // what the next may overtake is its convergence.
      let done: Promise<number>;
      try {
        const run = await withTimeout(
          act(world, step.op, step.index),
          CONVERGE_TIMEOUT_MS,
          `step ${step.index} ${step.op.kind}`,
        );
        if (run.until === 'fault') faultSince = true;
        // A minute beyond the convergence's own bound, so that it fails first, saying what had not converged.
        done = withTimeout(
          run.converged().then(() => Date.now() - started),
          CONVERGE_TIMEOUT_MS + 60_000,
          `step ${step.index} ${step.op.kind} converging`,
        );
        // Judged when awaited below; until then its failure must not count as unhandled.
        done.catch(() => undefined);
      } catch (error) {
        done = Promise.reject(error);
        done.catch(() => undefined);
      }
      pending.push({ index: step.index, kind: step.op.kind, overlapsNext: step.overlapsNext, done });
      if (step.overlapsNext && step !== plan.at(-1)) continue;
      for (const p of pending) {
        try {
          outcomes.push({
            index: p.index,
            kind: p.kind,
            overlapsNext: p.overlapsNext,
            convergeMs: await p.done,
          });
        } catch (error) {
          if (error instanceof IncompleteOperation) {
            incomplete.push({ step: p.index, kind: p.kind, reason: error.message });
            log(`INCOMPLETE step ${p.index} ${p.kind}: ${error.message}`);
          } else report({ step: p.index, invariant: 'convergence', detail: (error as Error).message });
        }
      }
      pending = [];
      const ready = !faultSince;
      faultSince = false;
      for (const cluster of Object.values(world.clusters)) {
        log(`checking ${cluster.name} after step ${step.index}`);
        await world.stopWriter(cluster);
        try {
          for (const v of await checkConverged(world, cluster, step.index, ready, counts)) report(v);
        } catch (error) {
          report({
            step: step.index,
            invariant: 'convergence',
            cluster: cluster.name,
            detail: `checks could not read: ${(error as Error).message}`,
          });
        }
        counts.converged += 1;
        log(`checked ${cluster.name}; traffic again`);
        await world.startTraffic(cluster);
      }
      for (const v of await checkPods(world, step.index).catch(() => [])) report(v);
    }
  } finally {
    await continuous.stop();
    const writes = Object.fromEntries(
      Object.values(world.clusters).map((c) => [
        c.name,
        { acknowledged: c.record.ackedTotal(), unknown: c.record.unknownTotal() },
      ]),
    );
    const summary = summarize({
      options,
      commit,
      // The steps that ran (all of them unless interrupted or stopped by an error).
      plan: plan.filter((s) => s.index <= current),
      outcomes,
      startedAt,
      endedAt: new Date(),
      checks: counts,
      writes,
      incomplete,
      runbook: world.runbook,
      violations,
      replay,
    });
    const previous = existsSync(values.out as string)
      ? (JSON.parse(readFileSync(values.out as string, 'utf8')) as Record<string, unknown>)
      : {};
    writeFileSync(
      values.out as string,
      `${JSON.stringify({ ...previous, [`seed-${options.seed}`]: summary }, null, 2)}\n`,
    );
    process.stdout.write(`${summaryTable(summary)}\n`);
    await world.stop();
  }
  return violations.length === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`soak failed: ${(error as Error).stack ?? error}\n`);
    process.exit(2);
  },
);
