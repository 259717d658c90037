// What the EtcdRestore planner sees (one observed snapshot) and what it decides (one action).
// docs/design/restore.md, "In-place recovery". It writes no Pod or PVC: after the lock it only reports.
import type { StallFlag } from '../restore/facts.js';
import type { RestoreLock, RestoreSource, S3Location } from './api.js';

export type { RestoreSource } from './api.js';

export type RestorePhase = 'Pending' | 'Verifying' | 'Restoring' | 'Completed' | 'Failed';

/** Condition reasons of a refusal: the restore ends `Failed` and nothing was changed. */
export type RefusalReason =
  | 'ClusterNotFound'
  | 'ClusterDeleting'
  | 'ClusterPaused'
  | 'ClusterHealthy'
  | 'InvalidBackupSource'
  | 'InvalidSurvivor';

/** The EtcdRestore, reduced to what the planner needs. */
export interface RestoreView {
  readonly name: string;
  readonly uid: string;
  readonly phase: RestorePhase;
  readonly clusterName: string;
  readonly allowHealthyCluster: boolean;
  /** `spec.backup` (exactly one of it and `survivor`). */
  readonly backup?: S3Location;
  /** `spec.survivor`: recover from a member that still has its data (docs/design/restore.md). */
  readonly survivor?: { readonly member?: string; readonly newest?: boolean };
  /** `status.sourceMember` and `status.sourceMemberId`: the survivor chosen when verified. */
  readonly sourceMember?: { readonly name: string; readonly id: string };
  /** What is wrong with `spec.backup` (both/neither of key and prefix, ...), checked without S3. */
  readonly sourceProblem?: string;
  /** `status.backupKey`: the exact object verified, so a later "latest" cannot change what is restored. */
  readonly backupKey?: string;
}

export type { RestoreLock } from './api.js';

/** The EtcdCluster named by the restore. */
export interface TargetView {
  readonly name: string;
  readonly uid: string;
  readonly deleting: boolean;
  readonly paused: boolean;
  readonly size: number;
  readonly lock?: RestoreLock;
}

/** A member Pod of the cluster. */
export interface MemberPodView {
  readonly name: string;
  readonly member: string;
  readonly terminating: boolean;
  readonly ready: boolean;
  /** Annotation `etcd.gitops.dev/cluster-token`: set on seed Pods only. */
  readonly token?: string;
  /** The `restore fetch` init container exited with an error at least once: its last message. */
  readonly initFailure?: string;
  /**
   * That failure is one the kubelet's next retry may get past by itself (`isTransientRestoreFailure`,
   * controller/restore/init-failure.ts); otherwise it waits on the user.
   */
  readonly initFailureTransient?: true;
}

/** A PVC of the cluster (member or retained). */
export interface MemberPvcView {
  readonly name: string;
  readonly member: string;
  readonly terminating: boolean;
  readonly token?: string;
  /** Label `etcd.gitops.dev/retained-by-restore`. */
  readonly retainedBy?: string;
}

/** etcd as the membership observation shows it; `undefined` when no member answered. */
export interface TargetEtcdView {
  readonly quorum: boolean;
  readonly members: number;
  readonly healthyVoters: number;
  readonly learners: number;
}

/** A member that answered Status (by itself, no quorum needed): a candidate survivor. */
export interface SurvivorView {
  readonly member: string;
  readonly id: string;
  /** It answered as the member the member list names, in the cluster's recorded cluster id. */
  readonly sameCluster: boolean;
  readonly learner: boolean;
  /** The member's raft index and the store revision it has applied, decimal. */
  readonly raftIndex: string;
  readonly revision: string;
  readonly version: string;
}

export interface RestorePlanInput {
  readonly restore: RestoreView;
  /** `undefined`: no EtcdCluster of that name in the namespace. */
  readonly cluster: TargetView | undefined;
  /** What is wrong with the credentials Secret (missing, keys missing), or `undefined` when usable. */
  readonly credentialsProblem?: string;
  readonly pods: readonly MemberPodView[];
  readonly pvcs: readonly MemberPvcView[];
  readonly etcd: TargetEtcdView | undefined;
  /** The lock is held by another uid and no EtcdRestore with its name and uid exists any more (deleted, or
   *  deleted and created again under the same name). Only looked up when the lock is not this restore's. */
  readonly lockHolderGone?: boolean;
  /** Members that answered Status (for `spec.survivor`), by name. */
  readonly survivors?: readonly SurvivorView[];
  /** The cluster's `spec.version`: a survivor of a newer minor cannot seed it. */
  readonly clusterVersion?: string;
  /** Random hex for a new cluster token (input, so the planner stays pure). */
  readonly nonce: string;
}

export type RestoreAction =
  | { readonly kind: 'Refuse'; readonly reason: RefusalReason; readonly message: string }
  | ({
      readonly kind: 'Wait';
      readonly reason: string;
      readonly message: string;
      readonly requeueAfterMs: number;
      /** Something is wrong and the user may want to look (e.g. the seed's init container fails). */
      readonly degraded?: boolean;
    } & StallFlag)
  | { readonly kind: 'StartVerifying' }
  | { readonly kind: 'Verify' }
  | {
      /** `spec.survivor`: the member to recover from, recorded as the restore's source (its data only read). */
      readonly kind: 'ChooseSurvivor';
      readonly member: string;
      readonly id: string;
      readonly revision: string;
      /** What is recovered and what is lost, for the status and the Event. */
      readonly message: string;
    }
  /** Take the cluster (phase `Restoring`), or complete a lock taken without token or source. */
  | { readonly kind: 'TakeLock'; readonly token: string; readonly source: RestoreSource }
  | { readonly kind: 'Complete' }
  /** Hand the lock back after `Completed` was recorded: its phase becomes `Completed`. */
  | { readonly kind: 'ReleaseLock' }
  /** The restore holding the lock no longer exists: its phase becomes `Abandoned`. */
  | { readonly kind: 'AbandonLock'; readonly holder: string; readonly phase: 'Restoring' | 'Growing' }
  | { readonly kind: 'Done' };

export type RestoreActionKind = RestoreAction['kind'];
