// Defaults and limits of an etcd cluster, as the constructs, the CRD schema and the controller apply them.

/** Voting members unless `size` says otherwise. */
export const DEFAULT_SIZE = 3;
export const MIN_SIZE = 1;
/** Above 9 members etcd spends more on replication than it gains. */
export const MAX_SIZE = 9;

/** Longest EtcdCluster name: `<name>-backup` must fit a CronJob name (52) and member names a DNS label. */
export const MAX_CLUSTER_NAME_LENGTH = 45;

/** PVC request per member unless `storage.size` says otherwise. */
export const DEFAULT_STORAGE_SIZE = '1Gi';
/** The smallest member volume the constructs write: etcd preallocates its write-ahead log in 64 MB files. */
export const MIN_STORAGE_SIZE = '128Mi';

/** Resources of the etcd container unless `resources` says otherwise. */
export const DEFAULT_MEMBER_RESOURCES: {
  readonly requests?: Readonly<Record<string, string>>;
  readonly limits?: Readonly<Record<string, string>>;
} = { requests: { cpu: '100m', memory: '256Mi' } };
