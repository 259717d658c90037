// What the membership planner sees (one snapshot of observed state) and what it decides (one action).
import type { BackendSpec } from '../../constructs/conventions/etcd-backend.js';
import type { Scheme } from '../../constructs/conventions/tls.js';
import type { EtcdAlarm } from '../etcd/members.js';
import type { StallFlag } from '../restore/facts.js';
import type { RestoreLock, RestoreLockAction } from './restore-types.js';

/** The cluster resource, reduced to what the planner needs. */
export interface ClusterView {
  readonly name: string;
  readonly namespace: string;
  readonly uid: string;
  readonly deleting: boolean;
  readonly paused: boolean;
  /** `status.restore`: an in-place restore holds the cluster (docs/design/restore.md, "The lock"). */
  readonly restore?: RestoreLock;
  readonly size: number;
  readonly allowEvenSize: boolean;
  readonly version: string;
  readonly storage: {
    readonly size: string | number;
    readonly storageClassName?: string;
    readonly ephemeral: boolean;
  };
  readonly whenScaled: 'Retain' | 'Delete';
  /** Compaction, quota and extra flags as the spec says them (checked by spec-checks before any Pod uses them). */
  readonly backend: BackendSpec & { readonly extraFlags?: Readonly<Record<string, string>> };
  /** `status.currentVersion`: the version the members run, when known. */
  readonly runningVersion?: string;
  /** The pod revision of the spec (`podRevision`, docs/design/rolling-update.md): Pods at another are rolled. */
  readonly revision: string;
  /** The first seed restores `spec.bootstrap.backup` (`bootstrapBackup`: set, and the cluster never formed), so a new
   *  cluster starts from one seed rather than from its whole initial membership (docs/design/bootstrap.md). */
  readonly bootstrapsFromBackup?: true;
  /** Member names in `status.members`: the membership last seen, used when no member answers. */
  readonly knownMembers: readonly string[];
  /** The schemes `spec.tls` asks for (docs/design/tls.md). */
  readonly schemes: { readonly client: Scheme; readonly peer: Scheme };
}

/** A member Pod. */
export interface PodView {
  readonly name: string;
  readonly member: string;
  readonly terminating: boolean;
  /** The etcd container is running (the process started). */
  readonly running: boolean;
  readonly ready: boolean;
  /** Ready for at least `UNREACHABLE_AFTER_READY_MS` (views.ts): the kubelet has found etcd healthy that long. */
  readonly readySettled: boolean;
  /** Phase Failed, or restarted at least the crash-loop threshold, not ready, and etcd last exited by itself
   *  with an error (a kill from outside never counts): see `isCrashLooping` in views.ts. */
  readonly crashLooping: boolean;
  /** Data on an emptyDir rather than a PVC. */
  readonly ephemeral: boolean;
  /** The pod revision it was built from (annotation `etcd.gitops.dev/pod-revision`); none on Pods made before
   *  rolling updates existed, which are out of date. */
  readonly revision?: string;
  /** A user marked it `etcd.gitops.dev/evict=true`: it leaves first on scale-in, else it is replaced. */
  readonly evict: boolean;
  /** Annotation `etcd.gitops.dev/cluster-token`: set on seed Pods only (an in-place restore's seed: the lock's). */
  readonly token?: string;
  /** etcd's last exit, when it exited by itself with an error: `exit code 2: <termination message>`. */
  readonly lastFailure?: string;
  /** The etcd version of the Pod's image (annotation `etcd.gitops.dev/version`). */
  readonly version?: string;
  /** Its `restore` init container (a seed from a backup) last exited with an error: why, in one line. */
  readonly restoreFailure?: string;
  /** That failure may clear on the kubelet's next retry (`isTransientRestoreFailure`). */
  readonly restoreFailureTransient?: true;
  /** Annotation `etcd.gitops.dev/initial-cluster-state`, which etcd reads at its next start. */
  readonly initialState?: 'new' | 'existing';
  /** The schemes its etcd listens with (`--listen-client-urls`, `--listen-peer-urls`), when its args say. */
  readonly schemes?: { readonly client?: Scheme; readonly peer?: Scheme };
  /** Why the Pod is lost (its node died, or it is stuck Terminating or unscheduled past the bound of
   *  `spec.failureDetection`; docs/design/membership.md, "Lost members"), or nothing. */
  readonly lost?: string;
  /** Its node is not Ready, not yet for longer than the bound: one line for the wait. */
  readonly nodeNotReady?: string;
}

/** One TLS Secret of `spec.tls` as the controller found it (docs/design/tls.md, "Validation"). */
export interface TlsSecretView {
  /** The spec field naming it, e.g. `spec.tls.peer.secretName`. */
  readonly field: string;
  readonly secretName: string;
  /** Why it cannot be used (missing, a key missing, key not matching, expired, not signed by the CA that must
   *  trust it), or nothing. */
  readonly problem?: string;
  /** DNS names of its `tls.crt`. */
  readonly dnsNames: readonly string[];
  /** Which names it must cover: a members' serving or a peer certificate; none for the client certificate. */
  readonly covers: 'serving' | 'peer' | 'none';
}

/** A member PVC. */
export interface PvcView {
  readonly name: string;
  readonly member: string;
  readonly terminating: boolean;
  /** Annotation `etcd.gitops.dev/cluster-uid`: the incarnation of the cluster that made it. */
  readonly clusterUid?: string;
  /** Annotation `etcd.gitops.dev/cluster-token`: set on seed PVCs only. */
  readonly token?: string;
  /** Annotation `etcd.gitops.dev/initial-members`: a static bootstrap's whole initial membership, on each of its
   *  seed PVCs (docs/design/bootstrap.md). */
  readonly initialCluster?: readonly string[];
  readonly storageClassName?: string;
  readonly size?: string | number;
  /** Labelled `etcd.gitops.dev/retained-by-restore`: old data kept by a restore, nobody's member any more. */
  readonly retained: boolean;
  /** The value of that label: the restore that retained it. */
  readonly retainedBy?: string;
  /** Annotation `etcd.gitops.dev/abandoned-by-restore`: that restore was deleted before it completed. */
  readonly abandonedBy?: string;
}

/** One etcd member as the member list and its own Status call show it. */
export interface EtcdMemberView {
  /** The 64-bit member id, as a decimal string. */
  readonly id: string;
  /** The member name derived from its peer URL; `undefined` for a peer URL that is not ours. */
  readonly member: string | undefined;
  /** It has served at least once (published its client URLs: `hasServed`), so it has data. */
  readonly started: boolean;
  readonly learner: boolean;
  /** Answered Status with its own id, the cluster id and a leader. */
  readonly healthy: boolean;
  /** Its client URL answered as another member or another cluster (e.g. a seed restarted on empty data). */
  readonly wrongIdentity: boolean;
  /** Answered Status as itself in this cluster but named no leader: it stands in a raft election (raft clears the
   *  leader a member knew once its election timeout passes without hearing from it). */
  readonly electing: boolean;
  /** Healthy, and a linearizable read sent to it answered in time: it has applied what the cluster committed
   *  (docs/design/rolling-update.md). */
  readonly caughtUp: boolean;
}

/** What etcd says, or `undefined` in PlanInput when no member answered. */
export interface EtcdView {
  readonly members: readonly EtcdMemberView[];
  readonly leaderId?: string;
  /** Healthy voters agreeing on one leader are a majority of the voters; the member list came from the leader. */
  readonly quorum: boolean;
  /** The active alarms, read after the member list; absent when not read (no quorum answered, or none answered). */
  readonly alarms?: readonly EtcdAlarm[];
}

export interface PlanInput {
  readonly cluster: ClusterView;
  readonly pods: readonly PodView[];
  readonly pvcs: readonly PvcView[];
  readonly etcd: EtcdView | undefined;
  /** Random hex the planner may use for a new cluster token (kept as input so the planner is pure). */
  readonly nonce: string;
  /** The Secrets of `spec.tls` as found (none without `spec.tls`). */
  readonly tls?: readonly TlsSecretView[];
  /** The cluster's Services that do not exist, once it is older than `SERVICE_MISSING_AFTER_MS` (plan step 3). */
  readonly missingServices?: readonly string[];
}

export type RemoveReason = 'scale-in' | 'dead' | 'lost' | 'undo' | 'roll' | 'evict';
export type CreatePodReason = 'seed' | 'join' | 'recreate';

/** A member's PVC to create (a type, not an interface, so it is a record like every other action). */
export type CreatePvcAction = {
  readonly kind: 'CreatePVC';
  readonly member: string;
  /** A seed's PVC: the cluster token, and the initial membership when it is one of several (a static
   *  bootstrap, docs/design/bootstrap.md). */
  readonly token?: string;
  readonly initialCluster?: readonly string[];
};

/** A member Pod to create (a type, not an interface, so it is a record like every other action). */
export type CreatePodAction = {
  readonly kind: 'CreatePod';
  readonly member: string;
  readonly reason: CreatePodReason;
  readonly state: 'new' | 'existing';
  /** Member names for `--initial-cluster`, in index order. */
  readonly initialCluster: readonly string[];
  readonly token?: string;
};

/** A joiner's writes after its `AddLearner`: its PVC (none when ephemeral), then its Pod. */
export type JoinWrites = { readonly pvc?: CreatePvcAction; readonly pod: CreatePodAction };

export type Action =
  | ({
      readonly kind: 'Wait';
      readonly reason: string;
      readonly message: string;
      readonly requeueAfterMs: number;
      /** Something is wrong that waiting alone may not fix: `Degraded=True` with this reason, a Warning Event. */
      readonly degraded?: true;
    } & StallFlag)
  | { readonly kind: 'Paused' }
  | { readonly kind: 'Refuse'; readonly field: string; readonly value: string; readonly allowed: string }
  | CreatePvcAction
  | {
      /** A static bootstrap's seed PVCs (membership.md step 5.1, bootstrap.md step 2): every initial member without
       *  a PVC gets its PVC in this one pass, as the `CreatePVC` listed for it would make it. */
      readonly kind: 'CreatePVCs';
      readonly pvcs: readonly CreatePvcAction[];
      /** Then, in the same pass and only once every one of `pvcs` is made, the seed Pods of the initial members
       *  without one, as `CreatePods` would make them (bootstrap.md, step 3): the Pods start a pass earlier. */
      readonly pods: readonly CreatePodAction[];
    }
  | CreatePodAction
  | {
      /** A static bootstrap's seed Pods (membership.md step 5.2, bootstrap.md step 3): every initial member without
       *  a Pod gets its Pod in this one pass, as the `CreatePod` listed for it would make it. */
      readonly kind: 'CreatePods';
      readonly pods: readonly CreatePodAction[];
    }
  | { readonly kind: 'MarkExisting'; readonly member: string; readonly pod: string }
  | {
      readonly kind: 'AddLearner';
      readonly member: string;
      /** The joiner's PVC (none when ephemeral) and Pod, made in the same pass once etcd added the learner, as
       *  steps 6.2 and 6.1 would plan them then (membership.md, "A joiner in one pass"). */
      readonly join: JoinWrites;
    }
  | { readonly kind: 'PromoteLearner'; readonly member: string; readonly id: string }
  | {
      readonly kind: 'MoveLeader';
      readonly fromId: string;
      readonly toId: string;
      readonly toMember: string;
      /** Why leadership moves off the leader: it is the scale-in victim, or it is rolled next. */
      readonly purpose: 'scale-in' | 'roll';
    }
  | {
      readonly kind: 'RollMember';
      readonly member: string;
      readonly pod: string;
      /** The Pod's revision (none on Pods made before rolling updates existed). */
      readonly fromRevision?: string;
      readonly toRevision: string;
      /** Evict (the PodDisruptionBudget decides) rather than delete: the member is healthy. */
      readonly evict: boolean;
    }
  | {
      readonly kind: 'RemoveMember';
      readonly member: string;
      readonly id: string;
      readonly reason: RemoveReason;
      /** Why, when the reason alone does not say it (a lost member: what happened to its Pod). */
      readonly detail?: string;
    }
  | { readonly kind: 'DeletePod'; readonly member: string; readonly pod: string }
  | { readonly kind: 'DeletePVC'; readonly member: string; readonly pvc: string }
  /** A `NOSPACE` alarm raised for a member that has left the cluster (membership.md, step 9.3). */
  | { readonly kind: 'DisarmAlarm'; readonly memberId: string; readonly alarm: 'NOSPACE' }
  | { readonly kind: 'ReportQuorumLost'; readonly message: string }
  | RestoreLockAction
  | { readonly kind: 'Steady' };

export type ActionKind = Action['kind'];
