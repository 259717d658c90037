// Our own app.kubernetes.io/* labels and member labels; selectors use only name, instance and component.
import { API_GROUP } from './api.js';

export const LABEL_NAME = 'app.kubernetes.io/name';
export const LABEL_INSTANCE = 'app.kubernetes.io/instance';
export const LABEL_COMPONENT = 'app.kubernetes.io/component';
export const LABEL_MANAGED_BY = 'app.kubernetes.io/managed-by';
export const LABEL_PART_OF = 'app.kubernetes.io/part-of';
/** Value of managed-by and part-of on everything we make, and the name/instance of the operator. */
export const MANAGED_BY = 'etcd-gitops';
/** `app.kubernetes.io/name` of everything that belongs to an etcd cluster. */
export const ETCD_APP_NAME = 'etcd';

/** `etcd.gitops.dev/member: <member>` on member Pods and PVCs. */
export const MEMBER_LABEL = `${API_GROUP}/member`;
/** On old member PVCs kept by an in-place restore, instead of the member label: the restore's name. */
export const RETAINED_BY_RESTORE_LABEL = `${API_GROUP}/retained-by-restore`;
/** On a backup Job's Pod: the CronJob (the schedule) it ran for, which the controller reports it under
 *  (docs/design/backup-status.md). */
export const BACKUP_SCHEDULE_LABEL = `${API_GROUP}/backup-schedule`;

export type Component = 'member' | 'backup' | 'defrag' | 'restore' | 'restore-drill' | 'controller';

/** The labels that select one component of one instance (immutable selectors use exactly these). */
export function selectorLabels(name: string, instance: string, component: Component): Record<string, string> {
  return { [LABEL_NAME]: name, [LABEL_INSTANCE]: instance, [LABEL_COMPONENT]: component };
}

/** Selector labels plus managed-by and part-of, for object metadata and Pod templates. */
export function objectLabels(name: string, instance: string, component: Component): Record<string, string> {
  return {
    ...selectorLabels(name, instance, component),
    [LABEL_MANAGED_BY]: MANAGED_BY,
    [LABEL_PART_OF]: MANAGED_BY,
  };
}

/** Labels of the objects that belong to etcd cluster `cluster`. */
export function clusterLabels(cluster: string, component: Component = 'member'): Record<string, string> {
  return objectLabels(ETCD_APP_NAME, cluster, component);
}

/** Selector of the member Pods (and PVCs) of etcd cluster `cluster`. */
export function memberSelector(cluster: string): Record<string, string> {
  return selectorLabels(ETCD_APP_NAME, cluster, 'member');
}

/** Selector of the backup Job Pods of etcd cluster `cluster`. */
export function backupSelector(cluster: string): Record<string, string> {
  return selectorLabels(ETCD_APP_NAME, cluster, 'backup');
}

/** Selector of the defrag Job Pods of etcd cluster `cluster` (let in on the client port). */
export function defragSelector(cluster: string): Record<string, string> {
  return selectorLabels(ETCD_APP_NAME, cluster, 'defrag');
}

/** The components whose CronJobs and Pods make a cluster's backups status: its backups and their restore drills. */
export const BACKUP_STATUS_COMPONENTS = ['backup', 'restore-drill'] as const satisfies readonly Component[];

const inBackupStatusComponents = `${LABEL_COMPONENT} in (${BACKUP_STATUS_COMPONENTS.join(',')})`;

/** Selector of every cluster's backup and drill CronJobs (and their Jobs' Pods): what the controller watches. */
export const backupSchedulesSelector = `${selectorString({ [LABEL_MANAGED_BY]: MANAGED_BY })},${inBackupStatusComponents}`;

/** One cluster's backup and drill CronJobs and Pods, as label maps (an object matches one of them). */
export function backupStatusSelectors(cluster: string): Record<string, string>[] {
  return BACKUP_STATUS_COMPONENTS.map((component) => selectorLabels(ETCD_APP_NAME, cluster, component));
}

/** One cluster's backup and drill CronJobs and Pods, as the API's selector string. */
export function backupStatusSelectorString(cluster: string): string {
  return `${selectorString({ [LABEL_NAME]: ETCD_APP_NAME, [LABEL_INSTANCE]: cluster })},${inBackupStatusComponents}`;
}

/** Labels of the operator's objects (CRDs, RBAC, Deployment, Services). */
export function operatorLabels(): Record<string, string> {
  return objectLabels(MANAGED_BY, MANAGED_BY, 'controller');
}

/** Selector of the controller Pods. */
export function controllerSelector(): Record<string, string> {
  return selectorLabels(MANAGED_BY, MANAGED_BY, 'controller');
}

/** A label selector as the API's string form: `a=b,c=d`. */
export function selectorString(labels: Readonly<Record<string, string>>): string {
  return Object.entries(labels)
    .map(([key, value]) => `${key}=${value}`)
    .join(',');
}

/** The label selector of everything the controller makes (member Pods and PVCs). */
export const managedBySelector = selectorString({ [LABEL_MANAGED_BY]: MANAGED_BY });

/** The label selector of the clusters' PodDisruptionBudgets (docs/design/disruption-budget.md). */
export const memberBudgetSelector = selectorString({
  [LABEL_MANAGED_BY]: MANAGED_BY,
  [LABEL_COMPONENT]: 'member',
});

/** Labels of a member's Pod and PVC: the member selector, managed-by and the member label. */
export function memberLabels(cluster: string, member: string): Record<string, string> {
  return { ...memberSelector(cluster), [LABEL_MANAGED_BY]: MANAGED_BY, [MEMBER_LABEL]: member };
}

/** The member selector as a string (`status.selector`, list calls). */
export function memberSelectorString(cluster: string): string {
  return selectorString(memberSelector(cluster));
}
