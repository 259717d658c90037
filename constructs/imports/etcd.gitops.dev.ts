// Generated from constructs/api/*-schema.ts by `npm run gen:api`. Do not edit by hand.
// A unit test (test/unit/constructs/api-types.test.ts) fails when this file is stale.

/** Desired state, owned by Git. */
export interface EtcdClusterSpec {
  /**
   * Number of voting members (1-9). Odd unless allowEvenSize.
   * @default 3
   */
  size?: number;
  /**
   * Allow an even size, which tolerates no more member failures than the odd size below it.
   * @default false
   */
  allowEvenSize?: boolean;
  /** etcd version as X.Y.Z (3.4.0 or newer). It can go up a patch or one minor at a time, never down; 3.5.26 or newer before 3.6. Each change is checked against status.currentVersion (what the members run) when set, else against the previous value. */
  version: string;
  /** etcd image. Default gcr.io/etcd-development/etcd:v<version>. */
  image?: string;
  /**
   * Member data volumes: one PersistentVolumeClaim per member unless ephemeral.
   * @default {}
   */
  storage?: EtcdClusterStorage;
  /**
   * Compute resources of the etcd container in each member Pod.
   * @default {"requests":{"cpu":"100m","memory":"256Mi"}}
   */
  resources?: EtcdClusterResources;
  /** Overrides merged into every member Pod. */
  podTemplate?: EtcdClusterPodTemplate;
  /** Seed a new cluster from a backup. Immutable. */
  bootstrap?: EtcdClusterBootstrap;
  /**
   * What happens to member PVCs when the cluster is deleted or scaled in.
   * @default {}
   */
  persistentVolumeClaimRetentionPolicy?: PersistentVolumeClaimRetentionPolicy;
  /**
   * When a member that does not answer is replaced (a new member under a new name) because its Pod is lost. A member that answers is never replaced for these reasons.
   * @default {}
   */
  failureDetection?: {
    /**
     * How long the member Pod's Node may be not Ready (NotReady or unreachable) before the member is replaced. A duration such as 30s, 2m or 1m30s. Default 2m.
     * @default "2m"
     */
    nodeNotReady?: string;
    /**
     * How long a member Pod may stay Terminating past its grace period, or unscheduled, before the member is replaced. A duration such as 30s, 2m or 1m30s. Default 5m.
     * @default "5m"
     */
    podStuck?: string;
  };
  /**
   * etcd auto-compaction (--auto-compaction-mode, --auto-compaction-retention): how much history members keep.
   * @default {}
   */
  autoCompaction?: {
    /**
     * periodic: keep history for a duration; revision: keep a number of revisions.
     * @default "periodic"
     */
    mode?: 'periodic' | 'revision';
    /**
     * periodic: a duration such as 30m, 1h or 1d (at least 1s); revision: a whole number such as 10000.
     * @default "1h"
     */
    retention?: string;
  };
  /** etcd backend quota (--quota-backend-bytes). Default: half of the member volume after a WAL reserve of min(256Mi, volume/4), at most 8Gi; etcd's 2Gi with ephemeral storage. */
  quotaBackendBytes?: number | string;
  /** Other etcd flags for every member: the flag name without its leading -- and its value, e.g. {"snapshot-count": "50000"}. Flags the product sets are refused. */
  extraFlags?: Record<string, string>;
  /** TLS for client and peer traffic (docs/design/tls.md). Each side is fixed when the cluster is created; secret names may change (a roll). Without it members serve plain http. */
  tls?: {
    /** https with client-certificate authentication on the client port (2379); the members and everything the product runs against them use these Secrets. */
    client?: {
      /** Secret (kubernetes.io/tls) with the members' serving certificate: tls.crt, tls.key, and ca.crt, the CA client certificates must chain to. Its DNS names must cover <member>.<cluster>-peer.<namespace>.svc for every member (e.g. *.<cluster>-peer.<namespace>.svc) and <cluster>-client.<namespace>.svc. */
      secretName: string;
      /** Secret with the client certificate the controller, backups, defrag and restore present: tls.crt, tls.key, and ca.crt, the CA of the serving certificate. */
      clientSecretName: string;
    };
    /** https with client-certificate authentication between members (2380). */
    peer?: {
      /** Secret (kubernetes.io/tls) with the peer certificate (server and client auth): tls.crt, tls.key, and ca.crt, the CA of peer certificates. Its DNS names must cover <member>.<cluster>-peer.<namespace>.svc for every member and <cluster>-peer.<namespace>.svc. */
      secretName: string;
    };
  };
  /**
   * When true the controller changes nothing and only reports status.
   * @default false
   */
  paused?: boolean;
}

/**
 * Member data volumes: one PersistentVolumeClaim per member unless ephemeral.
 * @default {}
 */
export interface EtcdClusterStorage {
  /**
   * PVC request for each member, as a Kubernetes quantity.
   * @default "1Gi"
   */
  size?: string;
  /** StorageClass of the member PVCs. Immutable. */
  storageClassName?: string;
  /**
   * Explicit opt-in to emptyDir volumes: a member loses its data with its Pod. Immutable.
   * @default false
   */
  ephemeral?: boolean;
}

/**
 * Compute resources of the etcd container in each member Pod.
 * @default {"requests":{"cpu":"100m","memory":"256Mi"}}
 */
export interface EtcdClusterResources {
  /** What the scheduler reserves per resource (cpu, memory). */
  requests?: Record<string, number | string>;
  /** The most the container may use per resource (memory above it is OOM-killed). */
  limits?: Record<string, number | string>;
}

/** Overrides merged into every member Pod. */
export interface EtcdClusterPodTemplate {
  /** Extra Pod labels (the app.kubernetes.io/* labels of the operator win). */
  labels?: Record<string, string>;
  /** Extra Pod annotations. */
  annotations?: Record<string, string>;
  /** core/v1 Affinity, to which the controller adds the member anti-affinity of memberAntiAffinity: both apply. Passed unchanged to member Pods, where the API server validates it. */
  affinity?: Record<string, unknown>;
  /**
   * How members avoid sharing a node (kubernetes.io/hostname). Preferred: on distinct nodes when possible (a preferred pod anti-affinity term). Required: never two on one node (a required term); a member that finds no free node stays Pending. Changing it rolls the members.
   * @default "Preferred"
   */
  memberAntiAffinity?: 'Preferred' | 'Required';
  /** core/v1 Tolerations. */
  tolerations?: Array<Toleration>;
  /** core/v1 nodeSelector: node labels and their values. */
  nodeSelector?: Record<string, string>;
  /** PriorityClass of member Pods. */
  priorityClassName?: string;
  /** core/v1 TopologySpreadConstraints. */
  topologySpreadConstraints?: Array<Record<string, unknown>>;
}

/** A core/v1 Toleration: member Pods may run on nodes with a matching taint. */
export interface Toleration {
  /** Taint key; empty with operator Exists matches every taint. */
  key?: string;
  /** Exists, or Equal to value. */
  operator?: 'Exists' | 'Equal';
  /** Taint value, with operator Equal. */
  value?: string;
  /** Taint effect to match; empty matches every effect. */
  effect?: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
  /** With effect NoExecute: how long the Pod stays on a node after the taint appears. */
  tolerationSeconds?: number;
}

/** Seed a new cluster from a backup. Immutable. */
export interface EtcdClusterBootstrap {
  /** A backup in S3-compatible object storage: a bucket and either an exact key or the newest object under a prefix. */
  backup: S3Location;
}

/**
 * What happens to member PVCs when the cluster is deleted or scaled in.
 * @default {}
 */
export interface PersistentVolumeClaimRetentionPolicy {
  /**
   * Retain or Delete the member PVCs when the EtcdCluster is deleted.
   * @default "Retain"
   */
  whenDeleted?: 'Retain' | 'Delete';
  /**
   * Retain or Delete the member PVCs of members removed by a scale-in.
   * @default "Retain"
   */
  whenScaled?: 'Retain' | 'Delete';
}

/**
 * Observed state, owned by the controller. Before its first write the API server shows observedGeneration 0, so no reader (kstatus, Argo CD, Flux) takes a new object for done.
 * @default {"observedGeneration":0}
 */
export interface EtcdClusterStatus {
  /** metadata.generation last acted on. */
  observedGeneration?: number;
  /** metav1.Conditions, one per type. */
  conditions?: Array<Condition>;
  members?: Array<EtcdMemberStatus>;
  /** Members in etcd (scale subresource statusReplicasPath). */
  replicas?: number;
  /** Members that are started and healthy. */
  readyMembers?: number;
  /** Label selector of member Pods (scale subresource). */
  selector?: string;
  /** Lowest etcd version among members, computed only when every member answers (it reaches a new version when the last member runs it); changes of spec.version are checked against it. */
  currentVersion?: string;
  /** Pod revision of the current spec: member Pods at another revision are rolled, one at a time (docs/design/rolling-update.md). */
  updateRevision?: string;
  /** Members whose Pod is at updateRevision, Ready, healthy and caught up. */
  updatedMembers?: number;
  /** etcd cluster id in hex. */
  clusterID?: string;
  /** The highest etcd revision the controller has seen the cluster give out (decimal; raised only, in steps of at least a million): a restore starts at least 10^9 above it, so no watcher is given a revision twice (docs/design/restore.md, "The revision floor"). */
  revisionFloor?: string;
  /** One word for printer columns, e.g. Creating, Running, Scaling. */
  phase?: string;
  /** Set while an EtcdRestore holds this cluster (docs/design/restore.md, "The lock"); the lock is its name. The EtcdRestore reconciler takes it with the token and source; the EtcdCluster reconciler performs the Pod and PVC steps by phase. */
  restore?: EtcdClusterRestoreLock;
  /** Each backup CronJob of the cluster and its newest attempt, success and failure; BackupReady judges them. */
  backups?: Array<EtcdBackupScheduleStatus>;
  /** When a backup of this cluster last succeeded, by any schedule (the printer column Last Backup). */
  lastBackupTime?: string;
}

export interface EtcdMemberStatus {
  /** Member name, also its Pod name. */
  name: string;
  /** etcd member id in hex. */
  id?: string;
  peerURL?: string;
  clientURL?: string;
  learner?: boolean;
  ready?: boolean;
  /** etcd server version the member reports. */
  version?: string;
  /** Pod revision its Pod was built from (annotation etcd.gitops.dev/pod-revision); absent without a Pod or on a Pod made before rolling updates. */
  podRevision?: string;
  /** It answered a linearizable read: it has applied everything the cluster had committed. */
  caughtUp?: boolean;
  /** Size of the member backend file in bytes (what the quota counts). */
  dbSize?: number;
  /** Bytes of the backend in use; dbSize minus this is what defragmentation gives back. */
  dbSizeInUse?: number;
}

export interface EtcdBackupScheduleStatus {
  /** The backup CronJob, <cluster>-backup[-<name>]. */
  schedule: string;
  /** The CronJob's schedule. */
  cron?: string;
  /** The newest backup Pod seen ended. */
  lastAttempt?: {
    /** When its container ended. */
    time?: string;
    job?: string;
    outcome?: 'Succeeded' | 'Failed';
  };
  /** The newest backup Pod seen succeed, with what its report told. */
  lastSuccess?: {
    /** When its container ended. */
    time?: string;
    job?: string;
    /** Object key of the backup it stored. */
    key?: string;
    /** etcd revision the backup holds every write up to. */
    revision?: string;
    /** Size of the stored object. */
    sizeBytes?: number;
    /** How long the save took. */
    durationSeconds?: number;
  };
  /** The newest backup Pod seen fail. */
  lastFailure?: {
    /** When its container ended. */
    time?: string;
    job?: string;
    /** The exit code name (S3_ERROR, ETCD_UNAVAILABLE, ...) or KILLED. */
    code?: string;
    reason?: string;
  };
  /** The newest restore drill of this schedule's newest backup seen ended (docs/design/restore-drill.md): on success what the restored etcd served, on failure why. */
  lastDrill?: {
    /** When the drill ended. */
    time?: string;
    job?: string;
    outcome?: 'Succeeded' | 'Failed';
    /** Object key of the drilled backup. */
    key?: string;
    /** The revision the backup recorded. */
    revision?: string;
    /** The revision the restored etcd served: at least revision plus the restore bump. */
    servedRevision?: string;
    /** Keys the restored etcd counted. */
    keys?: number;
    /** On failure: the exit code name (CHECKSUM_MISMATCH, S3_ERROR, ETCD_UNAVAILABLE, ...) or KILLED. */
    code?: string;
    reason?: string;
  };
}

/** Set while an EtcdRestore holds this cluster (docs/design/restore.md, "The lock"); the lock is its name. The EtcdRestore reconciler takes it with the token and source; the EtcdCluster reconciler performs the Pod and PVC steps by phase. */
export interface EtcdClusterRestoreLock {
  /** Name of the EtcdRestore holding the lock. */
  name: string;
  /** uid of that EtcdRestore. */
  uid: string;
  /** Fresh --initial-cluster-token of the restored cluster. */
  token?: string;
  /** What the seed of the restored cluster starts from, exactly one kind. backup: the EtcdRestore's spec.backup with the exact key it verified (never latestUnderPrefix), read by the seed's restore fetch init container. member: a surviving member whose snapshot the seed's restore from-member init container copies. */
  source?: EtcdClusterRestoreSource;
  /** Restoring: old members are stopped and the seed is made from source. Growing: the seed serves and the cluster grows as usual. Completed: the restore is done; retained PVCs follow whenScaled, then the lock is cleared. Abandoned: the EtcdRestore was deleted before it completed; its retained PVCs are marked, then the lock is cleared. */
  phase: 'Restoring' | 'Growing' | 'Completed' | 'Abandoned';
}

/** What the seed of the restored cluster starts from, exactly one kind. backup: the EtcdRestore's spec.backup with the exact key it verified (never latestUnderPrefix), read by the seed's restore fetch init container. member: a surviving member whose snapshot the seed's restore from-member init container copies. */
export interface EtcdClusterRestoreSource {
  /** A backup in S3-compatible object storage: a bucket and either an exact key or the newest object under a prefix. */
  backup?: S3Location;
  /** A surviving member (EtcdRestore spec.survivor): the seed's restore from-member init container copies the snapshot this member serves, after checking it answers with this id. */
  member?: {
    /** Member name (its Pod). */
    name: string;
    /** etcd member id, decimal. */
    id: string;
  };
}

/** Which cluster to restore from which backup. */
export interface EtcdRestoreSpec {
  /** Name of the EtcdCluster in the same namespace. Immutable. */
  clusterName: string;
  /** A backup in S3-compatible object storage: a bucket and either an exact key or the newest object under a prefix. Exactly one of backup and survivor. */
  backup?: {
    /** Bucket name (3-63 characters: lowercase letters, digits, dots and hyphens). */
    bucket: string;
    /** Exact object key of the backup. */
    key?: string;
    /** Use the newest backup whose key starts with this prefix. */
    latestUnderPrefix?: string;
    /** S3 endpoint URL, e.g. http://minio.storage.svc:9000. */
    endpoint?: string;
    /**
     * S3 region.
     * @default "us-east-1"
     */
    region?: string;
    /**
     * Address the bucket as a path (http://host/bucket/key), as MinIO and most S3-compatible stores need.
     * @default false
     */
    forcePathStyle?: boolean;
    /** Secret in the same namespace with AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and optionally AWS_SESSION_TOKEN). */
    credentialsSecretName?: string;
    /** S3 credentials from a role assumed with a projected token of the cluster's <cluster>-backup ServiceAccount (AssumeRoleWithWebIdentity, as IRSA), instead of a Secret. */
    webIdentity?: {
      /** The role to assume, e.g. arn:aws:iam::123456789012:role/etcd-backup. */
      roleArn: string;
      /**
       * The token's audience, which the role's identity provider expects.
       * @default "sts.amazonaws.com"
       */
      audience?: string;
      /** STS endpoint URL for an S3-compatible store (MinIO: its own URL). */
      stsEndpoint?: string;
    };
  };
  /** Recover from a member that still runs with its data instead of a backup (after quorum loss): the controller copies that member's data (a snapshot it serves alone) into a new member, which the cluster then grows from. Every write that member had applied is kept, also writes newer than the last backup; writes it had not applied are lost. Exactly one of backup and survivor. */
  survivor?: {
    /** The member to recover from, e.g. main-2 (its Pod name). */
    member?: string;
    /** Recover from the answering member that has applied the most (the highest raft index). */
    newest?: boolean;
  };
  /**
   * Restore even when the cluster is healthy (its current data is replaced).
   * @default false
   */
  allowHealthyCluster?: boolean;
}

/**
 * Observed state, owned by the controller. Before its first write the API server shows observedGeneration 0, so no reader (kstatus, Argo CD, Flux) takes a new object for done.
 * @default {"observedGeneration":0}
 */
export interface EtcdRestoreStatus {
  /** metadata.generation last acted on. */
  observedGeneration?: number;
  /** Where the restore is. */
  phase?: 'Pending' | 'Verifying' | 'Restoring' | 'Completed' | 'Failed';
  /** metav1.Conditions, one per type. */
  conditions?: Array<Condition>;
  /** Object key of the backup being restored. */
  backupKey?: string;
  /** etcd revision of the restored snapshot. */
  revision?: number;
  /** spec.survivor: the member recovered from (its data was copied, never changed). */
  sourceMember?: string;
  /** spec.survivor: the etcd member id of sourceMember, decimal. */
  sourceMemberId?: string;
  startedAt?: string;
  completedAt?: string;
  /** Human-readable detail of the phase. */
  message?: string;
}

/** A backup in S3-compatible object storage: a bucket and either an exact key or the newest object under a prefix. */
export interface S3Location {
  /** Bucket name (3-63 characters: lowercase letters, digits, dots and hyphens). */
  bucket: string;
  /** Exact object key of the backup. */
  key?: string;
  /** Use the newest backup whose key starts with this prefix. */
  latestUnderPrefix?: string;
  /** S3 endpoint URL, e.g. http://minio.storage.svc:9000. */
  endpoint?: string;
  /**
   * S3 region.
   * @default "us-east-1"
   */
  region?: string;
  /**
   * Address the bucket as a path (http://host/bucket/key), as MinIO and most S3-compatible stores need.
   * @default false
   */
  forcePathStyle?: boolean;
  /** Secret in the same namespace with AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and optionally AWS_SESSION_TOKEN). */
  credentialsSecretName?: string;
  /** S3 credentials from a role assumed with a projected token of the cluster's <cluster>-backup ServiceAccount (AssumeRoleWithWebIdentity, as IRSA), instead of a Secret. */
  webIdentity?: {
    /** The role to assume, e.g. arn:aws:iam::123456789012:role/etcd-backup. */
    roleArn: string;
    /**
     * The token's audience, which the role's identity provider expects.
     * @default "sts.amazonaws.com"
     */
    audience?: string;
    /** STS endpoint URL for an S3-compatible store (MinIO: its own URL). */
    stsEndpoint?: string;
  };
}

/** A metav1.Condition. */
export interface Condition {
  /** Condition type: Ready, Available, Progressing, Degraded (plus Reconciling and Stalled for kstatus). */
  type: string;
  status: 'True' | 'False' | 'Unknown';
  observedGeneration?: number;
  lastTransitionTime: string;
  reason: string;
  message: string;
}

/** The metadata fields our code reads; the API server may return more. */
export interface ObjectMeta {
  name?: string;
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  generation?: number;
  uid?: string;
  resourceVersion?: string;
  [key: string]: unknown;
}

/** A whole EtcdCluster object. */
export interface EtcdClusterManifest {
  apiVersion: 'etcd.gitops.dev/v1alpha1';
  kind: 'EtcdCluster';
  metadata: ObjectMeta;
  spec: EtcdClusterSpec;
  status?: EtcdClusterStatus;
}

/** A whole EtcdRestore object. */
export interface EtcdRestoreManifest {
  apiVersion: 'etcd.gitops.dev/v1alpha1';
  kind: 'EtcdRestore';
  metadata: ObjectMeta;
  spec: EtcdRestoreSpec;
  status?: EtcdRestoreStatus;
}
