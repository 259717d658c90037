// The member record the controller writes on member Pods and PVCs and reads to resume (docs/design/membership.md).
import { API_GROUP } from './api.js';

/** Member Pod: the `--initial-cluster` of the member's moment. */
export const ANNOTATION_INITIAL_CLUSTER = `${API_GROUP}/initial-cluster`;
/** Member Pod: `new` (seed) or `existing`. */
export const ANNOTATION_INITIAL_CLUSTER_STATE = `${API_GROUP}/initial-cluster-state`;
/** Seed Pods and seed PVCs: `<cluster>-<first 8 of uid>-<6 hex>`. */
export const ANNOTATION_CLUSTER_TOKEN = `${API_GROUP}/cluster-token`;
/** Seed PVCs of a static bootstrap: the names of every initial member, comma-separated in index order, all started
 *  `new` with one token (docs/design/bootstrap.md). Absent on a lone seed's PVC. */
export const ANNOTATION_INITIAL_MEMBERS = `${API_GROUP}/initial-members`;
/** Member Pod and PVC: the uid of the EtcdCluster incarnation that made it. */
export const ANNOTATION_CLUSTER_UID = `${API_GROUP}/cluster-uid`;
/** Member Pod: the etcd version of its image. */
export const ANNOTATION_VERSION = `${API_GROUP}/version`;
/** Member Pod: the pod revision of the spec it was built from (docs/design/rolling-update.md). */
export const ANNOTATION_POD_REVISION = `${API_GROUP}/pod-revision`;
/** Member Pod, set by a user: this member leaves first on scale-in, and at the same size it is replaced by a new
 *  member (`kubectl annotate pod <member> etcd.gitops.dev/evict=true`; docs/design/membership.md). */
export const ANNOTATION_EVICT = `${API_GROUP}/evict`;
/** Member PVC retained by an in-place restore that was deleted before it completed: that restore's name, set by the
 *  controller and removed by the user once the old data is no longer needed (docs/design/restore.md). */
export const ANNOTATION_ABANDONED_BY_RESTORE = `${API_GROUP}/abandoned-by-restore`;
/** Member Pod, set by the controller while the cluster's PodDisruptionBudget reports `SyncFailed`: when it asked
 *  kube-controller-manager to compute the budget again (RFC 3339; docs/design/disruption-budget.md). */
export const ANNOTATION_BUDGET_RECOMPUTE = `${API_GROUP}/disruption-budget-recompute`;
