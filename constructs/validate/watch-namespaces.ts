// EtcdOperator's `watchNamespaces`: undefined (every namespace) or a non-empty list of distinct namespace names.
import { validateDnsLabel } from './names.js';

/** Throws unless `namespaces` is undefined or a non-empty list of distinct DNS-label namespace names. */
export function validateWatchNamespaces(
  namespaces: readonly string[] | undefined,
): readonly string[] | undefined {
  if (namespaces === undefined) return undefined;
  if (namespaces.length === 0) {
    throw new Error(
      `'watchNamespaces' must name at least one namespace (leave it unset to watch every namespace), got []`,
    );
  }
  namespaces.forEach((namespace, i) => {
    validateDnsLabel(`watchNamespaces[${i}]`, namespace);
  });
  const repeated = namespaces.find((namespace, i) => namespaces.indexOf(namespace) !== i);
  if (repeated !== undefined) {
    throw new Error(`'watchNamespaces' names '${repeated}' twice, got ${JSON.stringify(namespaces)}`);
  }
  return [...namespaces];
}
