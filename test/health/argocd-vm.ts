// Argo CD's own health assessment of objects: gitops-engine's health.GetResourceHealth with the resource overrides
// Argo CD's settings manager parses from docs/gitops/argocd-cm.yaml, running our Lua in Argo CD's Lua VM
// (gopher-lua, with Argo CD's library set), at the pinned release (test/env/bin-build/argocd/main.go, `health`).
import { argocdBinary } from '../env/binaries.js';
import { ARGOCD_CM_FILE } from '../env/gitops/argocd.js';
import { throughJsonLines } from './json-lines.js';
import type { HealthStatus } from './lua.js';

/** Argo CD's health of each of `objects`, in order (status '' where no health check applies). */
export function argoCdHealth(objects: readonly unknown[]): HealthStatus[] {
  return throughJsonLines(argocdBinary(), ['health', `--argocd-cm=${ARGOCD_CM_FILE}`], objects);
}
