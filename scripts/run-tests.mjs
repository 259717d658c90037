#!/usr/bin/env node
// Runs the compiled tests layer by layer and prints one closing line for the whole run.
//   unit         pure logic and synthesized YAML, in parallel, seconds
//   integration  real etcd and MinIO processes, no Kubernetes
//   e2e          the local Kubernetes (test/env), one file at a time
// Usage: node scripts/run-tests.mjs [layer ...]   (default: every layer)
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const layers = [
  { name: 'unit', dir: 'build/test/unit', concurrency: 2 },
  { name: 'integration', dir: 'build/test/integration', concurrency: 1 },
  { name: 'e2e', dir: 'build/test/e2e', concurrency: 1 },
];
const wanted = process.argv.slice(2);
let passed = 0;
let failed = 0;
let skipped = 0;

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
  const run = spawnSync(
    process.execPath,
    ['--test', `--test-concurrency=${layer.concurrency}`, '--test-reporter=spec', ...files],
    { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8', maxBuffer: 512 * 1024 * 1024 },
  );
  process.stdout.write(run.stdout);
  const count = (label) => Number(run.stdout.match(new RegExp(`^ℹ ${label} (\\d+)$`, 'm'))?.[1] ?? 0);
  passed += count('pass');
  failed += count('fail') + count('cancelled');
  skipped += count('skipped') + count('todo');
  if (run.status !== 0 && count('fail') + count('cancelled') === 0) failed += 1;
}

console.log(`\n${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
