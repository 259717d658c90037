// Which EtcdCluster a watched object belongs to: the key the work queue reconciles when the object changes.
import type { KubernetesObject } from '@kubernetes/client-node';
import { ETCD_CLUSTER_KIND, isOurApiVersion } from '../../constructs/conventions/api.js';
import { LABEL_INSTANCE } from '../../constructs/conventions/labels.js';
import { keyString } from './keys.js';
import type { ObjectKey } from './types.js';

/**
 * The clusters a Pod or PVC belongs to, in its own namespace: the `app.kubernetes.io/instance` label and every
 * ownerReference to an EtcdCluster (normally the same one; both are kept so a relabelled object still counts).
 */
export function clusterKeysOfMember(object: KubernetesObject): ObjectKey[] {
  const namespace = object.metadata?.namespace ?? '';
  const names = new Set<string>();
  const instance = object.metadata?.labels?.[LABEL_INSTANCE];
  if (instance) names.add(instance);
  for (const owner of object.metadata?.ownerReferences ?? []) {
    if (owner.kind === ETCD_CLUSTER_KIND && isOurApiVersion(owner.apiVersion)) names.add(owner.name);
  }
  return [...names].map((name) => ({ namespace, name }));
}

/** The cluster an EtcdRestore restores (`spec.clusterName`), in the restore's namespace. */
export function clusterKeysOfRestore(object: KubernetesObject): ObjectKey[] {
  const clusterName = (object as { spec?: { clusterName?: unknown } }).spec?.clusterName;
  if (typeof clusterName !== 'string' || clusterName === '') return [];
  return [{ namespace: object.metadata?.namespace ?? '', name: clusterName }];
}

/** The object's own key (for the primary resource of a controller). */
export function ownKey(object: KubernetesObject): ObjectKey[] {
  const name = object.metadata?.name;
  return name ? [{ namespace: object.metadata?.namespace ?? '', name }] : [];
}

/** Keys without duplicates, in first-seen order. */
export function uniqueKeys(keys: ObjectKey[]): ObjectKey[] {
  const seen = new Map(keys.map((key) => [keyString(key), key]));
  return [...seen.values()];
}
