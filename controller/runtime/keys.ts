// ObjectKey <-> string, the queue's internal identity of a key.
import type { ObjectKey } from './types.js';

/** `namespace/name`, the same form as Kubernetes' own cache keys. */
export function keyString(key: ObjectKey): string {
  return `${key.namespace}/${key.name}`;
}

/** The key of a namespaced object, or undefined when it has no name. */
export function keyOf(object: { metadata?: { name?: string; namespace?: string } }): ObjectKey | undefined {
  const name = object.metadata?.name;
  if (!name) return undefined;
  return { namespace: object.metadata?.namespace ?? '', name };
}
