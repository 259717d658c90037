// The facts of an in-place restore that both reconcilers read (docs/design/restore.md, "One derivation of the
// restore's facts"): which Pod and PVC are the seed, which are old, whose Pod runs on as the source, the reasons of a
// restore's progress, and the one flag for a fault only the user clears. Pure; imports neither reconciler.
import type { EtcdClusterRestoreLock } from '../../constructs/imports/etcd.gitops.dev.js';

/** `EtcdCluster.status.restore` (docs/design/restore.md, "The lock"). */
export type RestoreLock = EtcdClusterRestoreLock;

/** The reasons of a restore's progress, as both planners' `Wait`s and both objects' conditions carry them. */
export const RESTORE_REASONS = {
  /** The lock has no token or source yet (taken by an older controller); nothing is changed. */
  sourceMissing: 'RestoreSourceMissing',
  /** Old PVCs are being retained, old Pods stopped. */
  stoppingMembers: 'StoppingMembers',
  /** The seed is being created. */
  seeding: 'Seeding',
  /** The seed restores and starts. */
  seedStarting: 'SeedStarting',
  /** The seed's `restore fetch` failed; retried by the kubelet. */
  seedRestoreFailing: 'SeedRestoreFailing',
  /** The seed's Pod is lost (its node died). */
  seedLost: 'SeedLost',
  /** The seed serves; the membership planner hands it the cluster. */
  seedReady: 'SeedReady',
  /** Another restore holds the cluster. */
  waitingForRestore: 'WaitingForRestore',
  /** The cluster was paused while the restore held it. */
  clusterPaused: 'ClusterPaused',
  /** The restored cluster grows to its size. */
  growing: 'Growing',
} as const;

/**
 * The flag both planners' `Wait` carries when nothing the controller does clears the fault until the user changes
 * something: the status says `Stalled=True` and `Progressing=False` (docs/design/conventions.md, "Conditions and
 * health"). Without it a degraded wait is a fault being retried (`Progressing=True`).
 */
export interface StallFlag {
  readonly stalled?: true;
}

/** `{ stalled: true }` when `stalls`, else nothing: spread into a `Wait`. */
export const stallWhen = (stalls: boolean): StallFlag => (stalls ? { stalled: true } : {});

/** A seed whose restore failed stalls unless the failure is one a retry may clear (`S3Unavailable`...). */
export const seedFailureStalls = (failure: { readonly transient?: boolean }): boolean =>
  failure.transient !== true;

interface Tokened {
  /** `etcd.gitops.dev/cluster-token`. */
  readonly token?: string;
}

interface MemberObject extends Tokened {
  readonly member: string;
  readonly terminating: boolean;
}

interface Claim extends MemberObject {
  /** `etcd.gitops.dev/retained-by-restore`, when the PVC carries it (a restore retained its data). */
  readonly retainedBy?: string;
}

/** The seed's Pod or PVC: it carries the lock's token. */
export function isSeed(object: Tokened, lock: RestoreLock): boolean {
  return lock.token !== undefined && object.token === lock.token;
}

/** The member whose data a survivor restore copies: its Pod runs until the seed serves. */
export function survivorOf(lock: RestoreLock): string | undefined {
  return lock.source?.member?.name;
}

/** PVCs of the members the restore replaces, still to retain: not retained, not terminating, not the seed's. */
export function oldPvcs<T extends Claim>(pvcs: readonly T[], lock: RestoreLock): T[] {
  return pvcs.filter((pvc) => pvc.retainedBy === undefined && !pvc.terminating && !isSeed(pvc, lock));
}

/** Pods of the members the restore replaces: every Pod but the seed's and the survivor's (the source). */
export function oldPods<T extends MemberObject>(pods: readonly T[], lock: RestoreLock): T[] {
  const survivor = survivorOf(lock);
  return pods.filter((pod) => !isSeed(pod, lock) && pod.member !== survivor);
}
