// Argo CD and Flux annotations: sync waves in dependency order, sync options, and deletion protection.

export const SYNC_WAVE = 'argocd.argoproj.io/sync-wave';
export const SYNC_OPTIONS = 'argocd.argoproj.io/sync-options';
/** Flux: `disabled` keeps an object when it leaves Git or its Kustomization is deleted. */
export const FLUX_PRUNE = 'kustomize.toolkit.fluxcd.io/prune';

/** CRDs first, then the operator, then clusters. */
export const SyncWave = {
  CRDS: '-2',
  OPERATOR: '-1',
  CLUSTERS: '0',
} as const;

/** Argo CD: no dry run of an object whose CRD is not installed yet (it comes in an earlier wave, or from elsewhere). */
const SKIP_DRY_RUN = ['SkipDryRunOnMissingResource=true'];

/** Argo CD never prunes (object gone from Git) or deletes (Application deleted) an object with these options. */
const NEVER_DELETE = ['Prune=false', 'Delete=false'];

/**
 * Neither Argo CD nor Flux deletes the object when it leaves Git or the Application / Kustomization is deleted:
 * for what holds data (the CRDs, which take every cluster with them, `EtcdCluster`s and their namespaces).
 */
export function deletionProtection(syncOptions: readonly string[] = []): Record<string, string> {
  return { [SYNC_OPTIONS]: [...syncOptions, ...NEVER_DELETE].join(','), [FLUX_PRUNE]: 'disabled' };
}

/** Annotations of a CRD: first wave, never pruned or deleted by Argo CD or Flux (that would delete every cluster). */
export function crdAnnotations(): Record<string, string> {
  return { [SYNC_WAVE]: SyncWave.CRDS, ...deletionProtection() };
}

/**
 * Annotations of our custom resources: the cluster wave; dry-run skipped while their CRD does not exist yet;
 * with `protect`, never pruned or deleted by Argo CD or Flux.
 */
export function customResourceAnnotations(protect = false): Record<string, string> {
  return {
    [SYNC_WAVE]: SyncWave.CLUSTERS,
    ...(protect ? deletionProtection(SKIP_DRY_RUN) : { [SYNC_OPTIONS]: SKIP_DRY_RUN.join(',') }),
  };
}

/**
 * Annotations of an object whose CRD someone else installs (the Prometheus Operator's PodMonitor, ServiceMonitor and
 * PrometheusRule): its wave, and Argo CD's dry run skipped while that CRD is missing, so the rest still syncs.
 */
export function foreignResourceAnnotations(
  wave: (typeof SyncWave)[keyof typeof SyncWave],
): Record<string, string> {
  return { [SYNC_WAVE]: wave, [SYNC_OPTIONS]: SKIP_DRY_RUN.join(',') };
}
