// The API group, version and kinds of our custom resources: the names every part of the project shares.

export const API_GROUP = 'etcd.gitops.dev';
export const API_VERSION = 'v1alpha1';
/** `etcd.gitops.dev/v1alpha1` */
export const API_GROUP_VERSION = `${API_GROUP}/${API_VERSION}`;

export const ETCD_CLUSTER_KIND = 'EtcdCluster';
export const ETCD_CLUSTER_PLURAL = 'etcdclusters';
export const ETCD_RESTORE_KIND = 'EtcdRestore';
export const ETCD_RESTORE_PLURAL = 'etcdrestores';

/** Longest EtcdCluster name: `<name>-backup` must fit a CronJob name (52) and member names a DNS label. */
export const MAX_CLUSTER_NAME_LENGTH = 45;
