#!/usr/bin/env node
// Runs the compiled tests layer by layer and prints one closing line for the whole run.
//   unit         pure logic and synthesized YAML, two files at a time, seconds
//   integration  real etcd and MinIO processes, no Kubernetes, two files at a time
//   e2e          the local Kubernetes (test/env), two files at a time, each file in its own environment
// Files run side by side, each in a `node --test` process of its own: each e2e file has its own environment (its own
// network namespaces, so the same Pod and Service addresses in two of them never meet) and asks for free loopback
// ports. Their waits are partly on timers (schedules, grace periods), so two at a time overlap them. On a fast
// machine of this kind three at a time took 5 min where one at a time took 11.5; on one 2-3x slower (2026-11-27) the
// cores were saturated: `cluster-rolling` took 218 s alone and 594 s beside two others (no throughput gained), and
// etcd members starved of CPU lost their leader.
// While `npm test` builds the rest of the binaries beside the tests (scripts/test.mjs, which names its state file in
// ETCD_GITOPS_BUILD_STATE), a file starts only once every binary it uses exists (test/env/pending-builds.ts), and the
// integration and e2e files share one pool of two lanes, integration files first: an e2e file whose binaries are
// built runs while an integration file waits for Argo CD or promtool. A file still waiting when the build has
// failed is not run and counts as failed.
// Usage: node scripts/run-tests.mjs [layer | build/test/<layer>/<file>.test.js ...]   (default: every layer)
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { nodeTestArgs } from './node-test-args.mjs';

// `timeoutMin` bounds a pool, so a hung file fails the run with a message instead of running into CI's limit; a pool
// whose files wait counts it from when the background build has ended (or it started, if later). Unit about three times its
// measured time. Integration and e2e share one pool: what CI's 90 min leave after the rest of a warm run on the
// slower machine (npm ci, the build from cached binaries, lint, the images and unit: about 8 min; its e2e layer
// took 67.5 min at 71cb740, three failed tests' timeouts included, and integration takes 4-6 min).
const layers = [
  { name: 'unit', dir: 'build/test/unit', pool: 'unit' },
  { name: 'integration', dir: 'build/test/integration', pool: 'integration and e2e' },
  { name: 'e2e', dir: 'build/test/e2e', pool: 'integration and e2e' },
];
// `waits`: whether a file waits for the binaries it imports lookups of. Unit files import some (through the modules
// they test) but run none.
const pools = {
  unit: { lanes: 2, timeoutMin: 5, waits: false },
  'integration and e2e': { lanes: 2, timeoutMin: 80, waits: true },
};
// Arguments name layers, or compiled test files (build/test/…/x.test.js), which then run alone in their layer's pool.
const wanted = process.argv.slice(2);
const wantedFiles = wanted.filter((arg) => arg.endsWith('.test.js'));
const wantedLayers = wanted.filter((arg) => !arg.endsWith('.test.js'));
for (const arg of wantedLayers) {
  if (!layers.some((layer) => layer.name === arg)) {
    console.error(
      `run-tests: "${arg}" is neither a layer (${layers.map((l) => l.name).join(', ')}) nor a .test.js file`,
    );
    process.exit(2);
  }
}
// Checked before the run's temp dirs exist: an exit here leaves nothing behind.
const filesOf = new Map(layers.map((layer) => [layer.name, testFiles(layer.dir)]));
const known = [...filesOf.values()].flat();
for (const file of wantedFiles) {
  if (!known.includes(join(file))) {
    console.error(`run-tests: ${file} is not a compiled test file (run \`npm run build\` first?)`);
    process.exit(2);
  }
}
const buildState = process.env.ETCD_GITOPS_BUILD_STATE;
const { lookupsNeededBy, missingLookups } = await import('../build/test/env/pending-builds.js');
let passed = 0;
let failed = 0;
let skipped = 0;
// Each failed file's "failing tests" section (the spec reporter's), printed again before the closing line: a file's
// output is printed when it ends, and a CI log's tail would otherwise not show why a file that ended early failed.
const failures = [];
/** Counts `count` failures for `why`, prints it and keeps it for the recap. */
function fail(why, count = 1) {
  console.log(`\n✖ ${why}`);
  failures.push(why);
  failed += count;
}
// Tests must leave nothing behind, not even a temp dir. The run gets a temp dir of its own (TMPDIR for every test
// process, so os.tmpdir() and mkdtemp land there); anything still in it at the end fails the run. Other programs
// writing into the machine's /tmp meanwhile do not count. (Kept short: Unix socket paths under it, such as a
// node's containerd socket, must stay within 108 bytes.)
const runTmp = mkdtempSync(join(tmpdir(), 'egt-test-'));
// The ports the test processes hand out, claimed in one directory so that two files running side by side never
// hand out the same one (test/env/ports.ts). Beside runTmp, not in it: its files stay until the run ends.
const { PORT_CLAIMS_ENV } = await import('../build/test/env/ports.js');
const portClaims = mkdtempSync(join(tmpdir(), 'egt-ports-'));
const childEnv = { ...process.env, TMPDIR: runTmp, [PORT_CLAIMS_ENV]: portClaims };

function testFiles(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .flatMap((entry) => {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) return testFiles(path);
      return entry.endsWith('.test.js') ? [path] : [];
    })
    .sort();
}

/** The background build's state: 'running', or its exit status once it has ended; 'none' without one. */
function backgroundBuild() {
  if (!buildState) return 'none';
  return readFileSync(buildState, 'utf8').trim();
}

const clock = () => new Date().toISOString().slice(11, 19);

/**
 * Runs `files` in one `node --test` process, `concurrency` at a time; its output is printed whole once it ends, with
 * its counts.
 */
function runFiles(files, concurrency) {
  const started = Date.now();
  const child = spawn(process.execPath, [...nodeTestArgs(concurrency), ...files], {
    env: childEnv,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk) => {
    out += chunk;
  });
  const done = new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
  const label = files.length === 1 ? files[0] : `${files.length} files`;
  return {
    child,
    done: done.then(({ code, signal }) => {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      process.stdout.write(`\n== ${label} (${seconds} s, ended ${clock()})\n${out}`);
      const count = (tally) => Number(out.match(new RegExp(`^ℹ ${tally} (\\d+)$`, 'm'))?.[1] ?? 0);
      passed += count('pass');
      failed += count('fail') + count('cancelled');
      skipped += count('skipped') + count('todo');
      if (code !== 0 && count('fail') + count('cancelled') === 0) {
        fail(`${label} exited with ${signal ?? code} and no failed test`);
      } else if (count('fail') + count('cancelled') > 0) {
        failures.push(`${label}:\n${failingSection(out)}`);
      }
    }),
  };
}

/** The spec reporter's closing "✖ failing tests:" section of a file's output, or a note that it printed none. */
function failingSection(out) {
  const at = out.lastIndexOf('✖ failing tests:');
  return at === -1 ? '(the output has no "failing tests" section)' : out.slice(at).trimEnd();
}

const lanesUsed = (running) => [...running].reduce((sum, run) => sum + run.lanes, 0);

/** Runs `files` (in order of preference) in `lanes` lanes, each once the binaries it uses exist if it `waits`. */
async function runPool(name, files, { lanes, timeoutMin, waits }) {
  console.log(`== ${name}: ${files.length} files, ${lanes} at a time (${clock()})`);
  // Each entry runs in one `node --test` process on `lanes` lanes (each file still in a process of its own). Files
  // that wait for nothing share one: a process per file cost the unit files 20 s more.
  const waiting = waits
    ? files.map((file) => ({ files: [file], needs: lookupsNeededBy(file), lanes: 1 }))
    : [{ files, needs: [], lanes }];
  const running = new Set();
  const poolStart = Date.now();
  // A pool whose files wait counts its time bound from when the build has ended.
  let boundStart = waits && backgroundBuild() === 'running' ? undefined : poolStart;
  let timedOut = false;
  while (waiting.length > 0 || running.size > 0) {
    const build = backgroundBuild();
    if (build !== 'running') boundStart ??= Date.now();
    if (!timedOut && boundStart !== undefined && Date.now() > boundStart + timeoutMin * 60_000) {
      timedOut = true;
      fail(
        `the ${name} tests did not finish within ${timeoutMin} minutes and were stopped`,
        1 + waiting.length,
      );
      waiting.length = 0;
      for (const run of running) run.child.kill('SIGTERM');
      // A file that ignores SIGTERM for a minute is killed (its environment's reapers clean up after a SIGKILL).
      setTimeout(() => {
        for (const run of running) run.child.kill('SIGKILL');
      }, 60_000).unref();
    }
    while (lanesUsed(running) < lanes && waiting.length > 0) {
      // Without a background build (run-tests.mjs run by hand), a file runs whatever is built: its lookups say
      // what is missing.
      const next = waiting.findIndex(({ needs }) => build === 'none' || missingLookups(needs).length === 0);
      if (next === -1 && build === 'running') break;
      if (next === -1) {
        // The build ended without making them: say which, and do not run the files.
        for (const entry of waiting.splice(0)) {
          fail(
            `${entry.files.join(', ')} was not run: the background build (exit ${build}) did not make ${missingLookups(entry.needs).join(', ')}`,
          );
        }
        break;
      }
      const [entry] = waiting.splice(next, 1);
      const run = { ...runFiles(entry.files, entry.lanes), lanes: entry.lanes };
      running.add(run);
      run.done.then(() => running.delete(run));
    }
    await Promise.race([sleep(2000), ...[...running].map((run) => run.done)]);
  }
}

for (const [pool, settings] of Object.entries(pools)) {
  const files = layers
    .filter(
      (layer) => layer.pool === pool && (wantedLayers.length === 0 || wantedLayers.includes(layer.name)),
    )
    .flatMap((layer) => filesOf.get(layer.name))
    .filter(
      (file) => wantedFiles.length === 0 || wantedFiles.some((wantedFile) => join(wantedFile) === file),
    );
  if (files.length === 0) continue;
  await runPool(pool, files, settings);
}

const leftovers = readdirSync(runTmp);
if (leftovers.length > 0) {
  fail(`the tests left ${leftovers.length} entries in ${runTmp}: ${leftovers.slice(0, 10).join(', ')}`);
}
rmSync(portClaims, { recursive: true, force: true });
try {
  rmSync(runTmp, { recursive: true, force: true });
} catch (error) {
  // A stopped pool's environments may still be tearing down (a network namespace still mounted): say so, and
  // still print the closing line.
  fail(`could not remove ${runTmp}: ${error.message}`);
}

if (failures.length > 0) console.log(`\n== what failed, again\n${failures.join('\n\n')}`);
console.log(`\n${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
