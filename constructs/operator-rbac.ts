// What the controller may do, as data: one list for the resources it acts on in the namespaces it watches (a
// ClusterRole, or a Role in each of `watchNamespaces`), one for Nodes (always cluster-wide), one for its own
// namespace, one for a cluster's namespace. Exactly the calls the controller makes (test/unit/constructs/controller-api-calls.test.ts derives
// them from controller/ and fails on a verb granted but unused, or used but not granted).
import type { k8s } from 'cdk8s-plus-27';
import { API_GROUP, ETCD_CLUSTER_PLURAL, ETCD_RESTORE_PLURAL } from './conventions/api.js';
import { backupServiceAccountName } from './conventions/names.js';

/** What an informer needs: its LIST and its WATCH. */
const WATCH = ['list', 'watch'];

/** The controller's rules in the namespaces it watches (every namespace by default): no wildcards, no Secrets. */
export const CONTROLLER_WATCHED_NAMESPACE_RULES: readonly k8s.PolicyRule[] = [
  // get: each pass reads its object fresh; list: the restore's orphaned-lock check lists clusters.
  { apiGroups: [API_GROUP], resources: [ETCD_CLUSTER_PLURAL, ETCD_RESTORE_PLURAL], verbs: ['get', ...WATCH] },
  // Status is written by merge patch only, never replaced.
  {
    apiGroups: [API_GROUP],
    resources: [`${ETCD_CLUSTER_PLURAL}/status`, `${ETCD_RESTORE_PLURAL}/status`],
    verbs: ['patch'],
  },
  // Member Pods and PVCs carry an ownerReference to their EtcdCluster with blockOwnerDeletion, which the
  // OwnerReferencesPermissionEnforcement admission plugin allows only to who may update the owner's finalizers.
  { apiGroups: [API_GROUP], resources: [`${ETCD_CLUSTER_PLURAL}/finalizers`], verbs: ['update'] },
  // Read through the informers only (never a single GET); patch: the member record annotation (MarkExisting) and
  // the budget recompute request.
  { apiGroups: [''], resources: ['pods'], verbs: [...WATCH, 'create', 'delete', 'patch'] },
  // The clusters' budgets, through an informer: a budget kube-controller-manager failed to compute is asked for
  // again by annotating a member Pod (docs/design/disruption-budget.md).
  { apiGroups: ['policy'], resources: ['poddisruptionbudgets'], verbs: WATCH },
  // A rolling change stops a healthy member by eviction, so the PodDisruptionBudget is honoured.
  { apiGroups: [''], resources: ['pods/eviction'], verbs: ['create'] },
  // patch: the restore labels the PVCs it retains and annotates those it abandons.
  { apiGroups: [''], resources: ['persistentvolumeclaims'], verbs: [...WATCH, 'create', 'delete', 'patch'] },
  { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
  // The clusters' backup CronJobs, through an informer and each fresh pass's LIST: their schedule, creation and
  // last success, for status.backups and BackupReady (docs/design/backup-status.md). Read only.
  { apiGroups: ['batch'], resources: ['cronjobs'], verbs: WATCH },
  // Whether the cluster's peer and client Services exist (ServiceMissing, docs/design/membership.md step 3).
  { apiGroups: [''], resources: ['services'], verbs: ['get'] },
];

/** Cluster-scoped reads, granted by a ClusterRole in every mode. */
export const CONTROLLER_NODE_RULES: readonly k8s.PolicyRule[] = [
  // get: the Node of each member Pod, read each pass to tell a member whose node died (membership.md, "Lost members").
  { apiGroups: [''], resources: ['nodes'], verbs: ['get'] },
];

/** Leader election, in the controller's own namespace only. */
export const CONTROLLER_LEADER_ELECTION_RULES: readonly k8s.PolicyRule[] = [
  { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'create', 'update'] },
];

/**
 * S3 credentials for a restore's verification, in one etcd cluster's Role: reading the credentials Secret, or a
 * token of the cluster's `<cluster>-backup` ServiceAccount (and no other) for a web identity
 * (docs/design/workload-identity.md).
 */
export function controllerCredentialRules(cluster: string): k8s.PolicyRule[] {
  return [
    { apiGroups: [''], resources: ['secrets'], verbs: ['get'] },
    {
      apiGroups: [''],
      resources: ['serviceaccounts/token'],
      verbs: ['create'],
      resourceNames: [backupServiceAccountName(cluster)],
    },
  ];
}
