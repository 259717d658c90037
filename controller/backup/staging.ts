// Staging objects (`<key>.part`): their metadata, and which ones a later save deletes (docs/design/backup.md,
// "Staging objects left by a killed save"). Pure; the listing and deletes are sweep-staging.ts.
import { STAGING_SUFFIX } from '../../constructs/conventions/backup.js';

/** Value of the staging marker on every `.part` this command uploads. */
export const stagingFormat = 'v1';

const names = {
  marker: 'etcd-gitops-staging',
  namespace: 'etcd-namespace',
  cluster: 'etcd-cluster',
  time: 'backup-time',
} as const;

/** The longest a scheduled save can live (`activeDeadlineSeconds` is at most 86400 s): the default grace. */
export const DEFAULT_STAGING_GRACE_MS = 24 * 3_600_000;

export interface StagingOwner {
  readonly namespace: string;
  readonly cluster: string;
}

/** S3 user metadata of a staging upload; the rename replaces it with the backup's (`MetadataDirective=REPLACE`). */
export function stagingMetadata(owner: StagingOwner, time: Date): Record<string, string> {
  return {
    [names.marker]: stagingFormat,
    [names.namespace]: owner.namespace,
    [names.cluster]: owner.cluster,
    [names.time]: time.toISOString(),
  };
}

/** A `.part` object as listed: its key, the store's `LastModified` and its user metadata (lower-case names). */
export interface StagingObject {
  readonly key: string;
  readonly lastModified?: Date;
  readonly metadata: Record<string, string>;
}

export type StagingDecision =
  | { readonly key: string; readonly delete: true }
  | {
      readonly key: string;
      readonly delete: false;
      readonly reason: 'not-staging' | 'not-ours' | 'other-cluster' | 'within-grace' | 'no-time';
    };

export interface StagingSweepContext extends StagingOwner {
  /** The store's `LastModified` of the backup this save just wrote: "now" on the store's clock. */
  readonly reference: Date;
  readonly graceMs: number;
}

/**
 * Which staging objects to delete: a `.part` key, carrying our staging marker with this save's namespace and
 * cluster, whose `LastModified` is more than `graceMs` before `reference`. Anything else is kept, with why.
 */
export function planStagingSweep(
  objects: readonly StagingObject[],
  context: StagingSweepContext,
): StagingDecision[] {
  if (!Number.isFinite(context.graceMs) || context.graceMs < 0)
    throw new Error(`staging grace must be a duration of 0 or more, got ${context.graceMs} ms`);
  return objects.map((object): StagingDecision => {
    const { key, metadata } = object;
    if (!key.endsWith(STAGING_SUFFIX)) return { key, delete: false, reason: 'not-staging' };
    if (metadata[names.marker] !== stagingFormat) return { key, delete: false, reason: 'not-ours' };
    if (metadata[names.namespace] !== context.namespace || metadata[names.cluster] !== context.cluster)
      return { key, delete: false, reason: 'other-cluster' };
    const modified = object.lastModified?.getTime();
    if (modified === undefined || Number.isNaN(modified)) return { key, delete: false, reason: 'no-time' };
    if (context.reference.getTime() - modified <= context.graceMs)
      return { key, delete: false, reason: 'within-grace' };
    return { key, delete: true };
  });
}
