#!/usr/bin/env node
// Runs the compiled tests layer by layer and prints one closing line for the whole run.
//   unit         pure logic and synthesized YAML, two files at a time, seconds
//   integration  real etcd and MinIO processes, no Kubernetes, two files at a time
//   e2e          the local Kubernetes (test/env), two files at a time, each file in its own environment
// Files of one layer run side by side: each e2e file has its own environment (its own network namespaces, so the
// same Pod and Service addresses in two of them never meet) and asks for free loopback ports.
// Their waits are partly on timers (schedules, grace periods), so two at a time overlap them. On a fast machine of
// this kind three at a time took 5 min where one at a time took 11.5; on one 2-3x slower (2026-11-27) the cores
// were saturated: `cluster-rolling` took 218 s alone and 594 s beside two others (no throughput gained), and
// etcd members starved of CPU lost their leader.
// Usage: node scripts/run-tests.mjs [layer ...]   (default: every layer)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nodeTestArgs } from './node-test-args.mjs';

// `timeoutMin` bounds a whole layer, so a hung file fails the run with a message instead of running into CI's
// limit: unit and integration about three times their measured time, e2e what CI's 90 min leave after the rest
// of a warm run on the slower machine (npm ci, the build from cached binaries, unit and integration: about 11 min;
// its e2e layer took 67.5 min at 71cb740, three failed tests' timeouts included).
const layers = [
  { name: 'unit', dir: 'build/test/unit', concurrency: 2, timeoutMin: 5 },
  { name: 'integration', dir: 'build/test/integration', concurrency: 2, timeoutMin: 10 },
  { name: 'e2e', dir: 'build/test/e2e', concurrency: 2, timeoutMin: 78 },
];
// Node's runner starts a layer's files in name order, whatever order they are given in (checked with Node 20: an
// earlier "longest first" order here had no effect), so a long file late in the alphabet (gitops-argocd) may end a
// layer alone.
const wanted = process.argv.slice(2);
let passed = 0;
let failed = 0;
let skipped = 0;
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

for (const layer of layers) {
  if (wanted.length > 0 && !wanted.includes(layer.name)) continue;
  const files = testFiles(layer.dir);
  if (files.length === 0) {
    console.log(`== ${layer.name}: no test files`);
    continue;
  }
  console.log(`== ${layer.name}: ${files.length} files`);
  const run = spawnSync(process.execPath, [...nodeTestArgs(layer.concurrency), ...files], {
    env: childEnv,
    stdio: ['ignore', 'pipe', 'inherit'],
    encoding: 'utf8',
    maxBuffer: 512 * 1024 * 1024,
    timeout: layer.timeoutMin * 60_000,
  });
  process.stdout.write(run.stdout ?? '');
  if (run.error?.code === 'ETIMEDOUT') {
    console.log(
      `\n✖ the ${layer.name} layer did not finish within ${layer.timeoutMin} minutes and was stopped`,
    );
    failed += 1;
  }
  const count = (label) => Number(run.stdout.match(new RegExp(`^ℹ ${label} (\\d+)$`, 'm'))?.[1] ?? 0);
  passed += count('pass');
  failed += count('fail') + count('cancelled');
  skipped += count('skipped') + count('todo');
  if (run.status !== 0 && run.error?.code !== 'ETIMEDOUT' && count('fail') + count('cancelled') === 0)
    failed += 1;
}

const leftovers = readdirSync(runTmp);
if (leftovers.length > 0) {
  console.log(
    `\n✖ the tests left ${leftovers.length} entries in ${runTmp}: ${leftovers.slice(0, 10).join(', ')}`,
  );
  failed += 1;
}
rmSync(portClaims, { recursive: true, force: true });
try {
  rmSync(runTmp, { recursive: true, force: true });
} catch (error) {
  // A stopped layer's environments may still be tearing down (a network namespace still mounted): say so, and
  // still print the closing line.
  console.log(`\n✖ could not remove ${runTmp}: ${error.message}`);
  failed += 1;
}

console.log(`\n${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
