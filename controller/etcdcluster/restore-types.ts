// What the restore branch of the membership planner reads and decides (docs/design/membership.md, step 2): the
// lock `status.restore` as the generated API type (its shape is the one fact it shares with the EtcdRestore
// reconciler), and the actions only this branch takes. It also takes `CreatePVC`, `CreatePod` and `DeletePod`.
export type { RestoreLock } from '../restore/facts.js';

export type RestoreLockAction =
  /** 2.2: label an old PVC retained by the restore and remove its member label. */
  | { readonly kind: 'RetainPVC'; readonly member: string; readonly pvc: string; readonly restore: string }
  /** 2.5: the seed serves; the lock's phase becomes `Growing` and steps 3-16 take over. */
  | { readonly kind: 'ReleaseToPlanner'; readonly member: string; readonly restore: string }
  /** 2.8: a PVC the completed restore retained, under `whenScaled: Delete`. */
  | { readonly kind: 'DeleteRetainedPVC'; readonly pvc: string; readonly restore: string }
  /** 2.10: a PVC the deleted restore retained gets `etcd.gitops.dev/abandoned-by-restore`. */
  | { readonly kind: 'MarkAbandonedPVC'; readonly pvc: string; readonly restore: string }
  /** 2.9, 2.11: the lock is removed; `retained` are the PVCs of that restore that stay, sorted. */
  | {
      readonly kind: 'ClearRestoreLock';
      readonly restore: string;
      readonly outcome: 'Completed' | 'Abandoned';
      readonly retained: readonly string[];
    };

export type RestoreLockActionKind = RestoreLockAction['kind'];

export const RESTORE_LOCK_ACTIONS: ReadonlySet<string> = new Set<RestoreLockActionKind>([
  'RetainPVC',
  'ReleaseToPlanner',
  'DeleteRetainedPVC',
  'MarkAbandonedPVC',
  'ClearRestoreLock',
]);

export function isRestoreLockAction(action: { readonly kind: string }): action is RestoreLockAction {
  return RESTORE_LOCK_ACTIONS.has(action.kind);
}
