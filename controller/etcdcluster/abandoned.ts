// Old member data left by an EtcdRestore that was deleted while it held its cluster (docs/design/restore.md,
// "Failure after the point of no return"): the PVCs it retained carry `etcd.gitops.dev/abandoned-by-restore:
// <restore>` (marked by the restore branch, plan-restore.ts) until the user deletes them or removes the annotation;
// while one exists the cluster reports `Degraded` (reason `RestoreAbandoned`) naming them. Pure.
import type { V1PersistentVolumeClaim } from '@kubernetes/client-node';
import {
  ANNOTATION_ABANDONED_BY_RESTORE,
  RETAINED_BY_RESTORE_LABEL,
} from '../../constructs/conventions/index.js';
import { CLUSTER_REASONS } from './reasons.js';

export const RESTORE_ABANDONED_REASON = CLUSTER_REASONS.restoreAbandoned;

/** The PVCs one deleted restore left behind. */
export interface AbandonedData {
  readonly restore: string;
  /** PVC names, sorted. */
  readonly pvcs: readonly string[];
}

/** The abandoned PVCs among `pvcs`, by restore (sorted by restore name). */
export function abandonedData(pvcs: readonly V1PersistentVolumeClaim[]): AbandonedData[] {
  const byRestore = new Map<string, string[]>();
  for (const pvc of pvcs) {
    const restore = pvc.metadata?.annotations?.[ANNOTATION_ABANDONED_BY_RESTORE];
    if (!restore || pvc.metadata?.deletionTimestamp) continue;
    byRestore.set(restore, [...(byRestore.get(restore) ?? []), pvc.metadata?.name as string]);
  }
  return [...byRestore.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([restore, names]) => ({ restore, pvcs: names.sort() }));
}

/** Where the old data is and what the user can do, for the condition and the Warning Event. */
export function abandonedMessage(restore: string, pvcs: readonly string[]): string {
  if (pvcs.length === 0) {
    return `EtcdRestore ${restore} was deleted while it held the cluster, before it retained any PVC; its lock was released and nothing else was changed`;
  }
  return (
    `EtcdRestore ${restore} was deleted before it completed; the old member data is on the retained ` +
    `PVC${pvcs.length > 1 ? 's' : ''} ${pvcs.join(', ')} (label ${RETAINED_BY_RESTORE_LABEL}=${restore}). ` +
    'If the cluster has no quorum, create a new EtcdRestore; once that data is no longer needed, delete those ' +
    `PVCs or remove their annotation ${ANNOTATION_ABANDONED_BY_RESTORE}`
  );
}
