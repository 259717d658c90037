// Argo CD's own health assessment of objects: gitops-engine's health.GetResourceHealth with the resource overrides
// Argo CD's settings manager parses from docs/gitops/argocd-cm.yaml, running our Lua in Argo CD's Lua VM
// (gopher-lua, with Argo CD's library set), at the pinned release (test/env/bin-build/argocd/main.go, `health`).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { argocdBinary } from '../env/binaries.js';
import { ARGOCD_CM_FILE } from '../env/gitops/argocd.js';
import type { HealthStatus } from './lua.js';

/** Argo CD's health of each of `objects`, in order (status '' where no health check applies). */
export function argoCdHealth(objects: readonly unknown[]): HealthStatus[] {
  if (objects.length === 0) return [];
  const run = spawnSync(argocdBinary(), ['health', `--argocd-cm=${ARGOCD_CM_FILE}`], {
    input: `${objects.map((obj) => JSON.stringify(obj)).join('\n')}\n`,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  assert.ifError(run.error);
  assert.equal(run.status, 0, `argocd health failed: ${run.stderr}`);
  const results = run.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as HealthStatus);
  assert.equal(results.length, objects.length, 'one result per object');
  return results;
}
