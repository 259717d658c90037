// The API group, version and kinds of our custom resources: the names every part of the project shares.

/** The API group of the custom resources. */
export const API_GROUP = 'etcd.gitops.dev';
/** The API version of the custom resources. */
export const API_VERSION = 'v1alpha1';
/** `etcd.gitops.dev/v1alpha1` */
export const API_GROUP_VERSION = `${API_GROUP}/${API_VERSION}`;

/** Kind of the cluster custom resource. */
export const ETCD_CLUSTER_KIND = 'EtcdCluster';
export const ETCD_CLUSTER_PLURAL = 'etcdclusters';
/** Kind of the restore custom resource. */
export const ETCD_RESTORE_KIND = 'EtcdRestore';
export const ETCD_RESTORE_PLURAL = 'etcdrestores';

/** A resource of ours as API paths and watches name it. */
export interface OurResource {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
}

export const ETCD_CLUSTER_RESOURCE: OurResource = {
  group: API_GROUP,
  version: API_VERSION,
  kind: ETCD_CLUSTER_KIND,
  plural: ETCD_CLUSTER_PLURAL,
};

export const ETCD_RESTORE_RESOURCE: OurResource = {
  group: API_GROUP,
  version: API_VERSION,
  kind: ETCD_RESTORE_KIND,
  plural: ETCD_RESTORE_PLURAL,
};

/** `<plural>.etcd.gitops.dev`, the name of a CRD of ours. */
export function crdName(plural: string): string {
  return `${plural}.${API_GROUP}`;
}

/** True when `apiVersion` (`group/version`) is in our API group, whatever the version. */
export function isOurApiVersion(apiVersion: string | undefined): boolean {
  return apiVersion?.split('/')[0] === API_GROUP;
}
