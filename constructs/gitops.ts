// Argo CD annotations: sync waves in dependency order and sync options.

export const SYNC_WAVE = 'argocd.argoproj.io/sync-wave';
export const SYNC_OPTIONS = 'argocd.argoproj.io/sync-options';

/** CRDs first, then the operator, then clusters. */
export const SyncWave = {
  CRDS: '-2',
  OPERATOR: '-1',
  CLUSTERS: '0',
} as const;

/** Annotations of a CRD: first wave, never pruned or deleted by Argo CD (that would delete every cluster). */
export function crdAnnotations(): Record<string, string> {
  return { [SYNC_WAVE]: SyncWave.CRDS, [SYNC_OPTIONS]: 'Prune=false,Delete=false' };
}

/** Annotations of our custom resources: the cluster wave; dry-run skipped while their CRD does not exist yet. */
export function customResourceAnnotations(): Record<string, string> {
  return { [SYNC_WAVE]: SyncWave.CLUSTERS, [SYNC_OPTIONS]: 'SkipDryRunOnMissingResource=true' };
}
