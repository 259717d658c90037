// The short seeded soak `npm test` runs (issue 23; docs/design/soak.md, "In npm test"): the soak program itself, as
// `npm run soak` runs it, on its own environment (real nodes, MinIO, cert-manager, the controller under the shipped
// RBAC, both clusters with writer and watcher), for a few operations of one fixed seed. It must run every planned
// step and report no violation; its table is printed. The long runs (200 operations and more) are `npm run soak`.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { repoRoot } from '../env/binaries.js';
import { soakOptions } from '../soak/options.js';
import { planSoak, SOAK_CLUSTERS } from '../soak/plan.js';
import { type SoakSummary, summaryTable } from '../soak/summary.js';

/** The seed and length of the run (docs/design/soak.md says why these). */
const SEED = 167;
const OPERATIONS = 10;
const OVERLAP = 0.35;
/** About twice the run's longest measured time (824 s beside another file); on expiry the soak is interrupted (it
 *  stops after its step and reports, and the test fails for the steps that did not run). */
const RUN_BOUND_MS = 30 * 60_000;

const dir = mkdtempSync(join(tmpdir(), 'egt-soak-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function runSoak(out: string): Promise<{ code: number | null; output: string }> {
  const child = spawn(
    process.execPath,
    [
      // A URL relative to this module, so the test runner sees what the soak runs (test/env/pending-builds.ts).
      fileURLToPath(new URL('../soak/main.js', import.meta.url)),
      `--seed=${SEED}`,
      `--operations=${OPERATIONS}`,
      `--overlap=${OVERLAP}`,
      `--out=${out}`,
    ],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const bound = setTimeout(() => child.kill('SIGINT'), RUN_BOUND_MS);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(bound);
      resolve({ code, output });
    });
  });
}

test(`GIVEN both soak clusters on the real nodes WHEN seed ${SEED} runs its ${OPERATIONS} operations THEN every planned step runs, the checks run after each and continuously, and no invariant is violated`, async (t) => {
  const plan = planSoak(soakOptions(SEED, OPERATIONS, OVERLAP));
  const out = join(dir, 'soak.json');
  const { code, output } = await runSoak(out);
  const steps = output
    .split('\n')
    .filter((line) => / step \d+ \{/.test(line) || /VIOLATION|INCOMPLETE/.test(line));
  // One diagnostic per line: the reporters print a line break inside one as `\n`.
  for (const line of ["the run's steps:", ...steps]) t.diagnostic(line);
  let summary: SoakSummary;
  try {
    summary = (JSON.parse(readFileSync(out, 'utf8')) as Record<string, SoakSummary>)[
      `seed-${SEED}`
    ] as SoakSummary;
  } catch (error) {
    assert.fail(`no summary (exit ${code}): ${(error as Error).message}\n${output.slice(-4000)}`);
  }
  for (const line of summaryTable(summary).split('\n')) t.diagnostic(line);
  assert.deepEqual(summary.violations, [], 'violations');
  assert.equal(code, 0, `exit code\n${output.slice(-4000)}`);
  assert.equal(
    summary.steps,
    plan.length,
    `every planned step ran (interrupted after ${RUN_BOUND_MS / 60_000} min)`,
  );
  // The steps that did not end in a convergence were either reported incomplete (the world refused them) or are
  // violations; with none of the latter, every step is one or the other.
  assert.equal(
    Object.values(summary.convergence).reduce((n, c) => n + c.count, 0) + summary.incomplete.length,
    plan.length,
  );
  // After each step the next does not overlap (and after the last), every cluster is checked once.
  const checkPoints = plan.filter((s, i) => !s.overlapsNext || i === plan.length - 1).length;
  assert.equal(summary.checks.converged, checkPoints * SOAK_CLUSTERS.length, 'checks after steps');
  assert.ok(summary.checks.continuous > 0, `continuous checks: ${summary.checks.continuous}`);
  for (const [cluster, writes] of Object.entries(summary.writes))
    assert.ok(writes.acknowledged > 0, `${cluster}: acknowledged writes ${writes.acknowledged}`);
});
