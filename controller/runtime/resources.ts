// The API resources the controller watches, and their list/watch paths.
import { ETCD_CLUSTER_RESOURCE, ETCD_RESTORE_RESOURCE } from '../../constructs/conventions/api.js';

/** A watched resource type. `group` is '' for the core API. */
export interface ResourceType {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  /**
   * The client model the API objects deserialize to, as the typed API clients return them (Dates for
   * timestamps). @default 'KubernetesObject' (metadata typed, the rest as sent)
   */
  readonly model?: string;
}

export const EtcdClusterResource: ResourceType = ETCD_CLUSTER_RESOURCE;
export const EtcdRestoreResource: ResourceType = ETCD_RESTORE_RESOURCE;
export const PodResource: ResourceType = {
  group: '',
  version: 'v1',
  kind: 'Pod',
  plural: 'pods',
  model: 'V1Pod',
};
export const PersistentVolumeClaimResource: ResourceType = {
  group: '',
  version: 'v1',
  kind: 'PersistentVolumeClaim',
  plural: 'persistentvolumeclaims',
  model: 'V1PersistentVolumeClaim',
};

export const PodDisruptionBudgetResource: ResourceType = {
  group: 'policy',
  version: 'v1',
  kind: 'PodDisruptionBudget',
  plural: 'poddisruptionbudgets',
  model: 'V1PodDisruptionBudget',
};

/** The clusters' backup schedules (read only: their schedule, creation and last success; backup-status.md). */
export const CronJobResource: ResourceType = {
  group: 'batch',
  version: 'v1',
  kind: 'CronJob',
  plural: 'cronjobs',
  model: 'V1CronJob',
};

export function apiVersionOf(resource: ResourceType): string {
  return resource.group === '' ? resource.version : `${resource.group}/${resource.version}`;
}

/** `/api/v1/pods`, `/apis/etcd.gitops.dev/v1alpha1/namespaces/db/etcdclusters`, ... */
export function collectionPath(resource: ResourceType, namespace?: string): string {
  const root =
    resource.group === '' ? `/api/${resource.version}` : `/apis/${resource.group}/${resource.version}`;
  const scope = namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  return `${root}${scope}/${resource.plural}`;
}
