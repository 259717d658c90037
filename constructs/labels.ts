// Our own app.kubernetes.io/* labels; selectors use only name, instance and component.

export const LABEL_NAME = 'app.kubernetes.io/name';
export const LABEL_INSTANCE = 'app.kubernetes.io/instance';
export const LABEL_COMPONENT = 'app.kubernetes.io/component';
export const LABEL_MANAGED_BY = 'app.kubernetes.io/managed-by';
export const LABEL_PART_OF = 'app.kubernetes.io/part-of';
export const MANAGED_BY = 'etcd-gitops';

export type Component = 'member' | 'backup' | 'controller';

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
  return objectLabels('etcd', cluster, component);
}

/** Selector of the member Pods of etcd cluster `cluster`. */
export function memberSelector(cluster: string): Record<string, string> {
  return selectorLabels('etcd', cluster, 'member');
}
