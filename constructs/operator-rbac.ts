// What the controller may do, as data: one list for the cluster, one for its own namespace.
import type { k8s } from 'cdk8s-plus-27';
import { API_GROUP, ETCD_CLUSTER_PLURAL, ETCD_RESTORE_PLURAL } from './conventions/api.js';

const READ = ['get', 'list', 'watch'];

/** Cluster-wide rules of the controller: no wildcards, no Secrets. */
export const CONTROLLER_CLUSTER_RULES: readonly k8s.PolicyRule[] = [
  { apiGroups: [API_GROUP], resources: [ETCD_CLUSTER_PLURAL, ETCD_RESTORE_PLURAL], verbs: READ },
  {
    apiGroups: [API_GROUP],
    resources: [`${ETCD_CLUSTER_PLURAL}/status`, `${ETCD_RESTORE_PLURAL}/status`],
    verbs: ['update', 'patch'],
  },
  { apiGroups: [API_GROUP], resources: [`${ETCD_CLUSTER_PLURAL}/finalizers`], verbs: ['update'] },
  { apiGroups: [''], resources: ['pods'], verbs: [...READ, 'create', 'delete', 'patch'] },
  // A rolling change stops a healthy member by eviction, so the PodDisruptionBudget is honoured.
  { apiGroups: [''], resources: ['pods/eviction'], verbs: ['create'] },
  { apiGroups: [''], resources: ['persistentvolumeclaims'], verbs: [...READ, 'create', 'delete', 'patch'] },
  { apiGroups: [''], resources: ['services'], verbs: READ },
  { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
];

/** Leader election, in the controller's own namespace only. */
export const CONTROLLER_LEADER_ELECTION_RULES: readonly k8s.PolicyRule[] = [
  { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'create', 'update'] },
];

/** Reading S3 credentials for bootstrap and restore, in one etcd cluster's namespace only. */
export const CONTROLLER_SECRET_RULES: readonly k8s.PolicyRule[] = [
  { apiGroups: [''], resources: ['secrets'], verbs: ['get'] },
];
