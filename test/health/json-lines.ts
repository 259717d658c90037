// Runs a health program of test/env/bin-build (health-check, argocd health) over objects: one JSON object per line in,
// one JSON result per line out, in order.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';

/** `command args` with each of `objects` as one JSON line on stdin; its JSON lines, one per object. */
export function throughJsonLines<T>(
  command: string,
  args: readonly string[],
  objects: readonly unknown[],
): T[] {
  if (objects.length === 0) return [];
  const run = spawnSync(command, args, {
    input: `${objects.map((obj) => JSON.stringify(obj)).join('\n')}\n`,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  assert.ifError(run.error);
  assert.equal(run.status, 0, `${command} ${args.join(' ')} failed: ${run.stderr}`);
  const results = run.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as T);
  assert.equal(results.length, objects.length, 'one result per object');
  return results;
}
