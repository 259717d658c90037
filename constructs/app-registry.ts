// What our constructs must know about each other inside one app (one construct tree): the operators the clusters
// talk to, and what may exist only once. Filled by the constructors, read by synth-time validations.
import type { IConstruct } from 'constructs';

/** Where the controller runs and as whom: what a cluster's NetworkPolicy and Secret RoleBinding name. */
export interface OperatorIdentity {
  /** The controller's namespace. */
  readonly namespace: string;
  /** The controller's ServiceAccount, in that namespace. */
  readonly serviceAccountName: string;
  /**
   * The controller's image, when the operator is in this app: the backup and defrag Jobs run the same image.
   * @default - unknown (an operator synthesized elsewhere): the Jobs use the default image unless given one
   */
  readonly image?: string;
  /**
   * The only namespaces the controller watches and may act in (`EtcdOperator`'s `watchNamespaces`).
   * @default - every namespace, or unknown (an operator synthesized elsewhere)
   */
  readonly watchNamespaces?: readonly string[];
}

/**
 * Why `what` in `namespace` would never be reconciled by an operator that watches only `identity.watchNamespaces`;
 * undefined when it would be (or the operator watches every namespace).
 */
export function unwatchedNamespaceProblem(
  identity: OperatorIdentity,
  namespace: string | undefined,
  what: string,
): string | undefined {
  const watched = identity.watchNamespaces;
  if (watched === undefined || (namespace !== undefined && watched.includes(namespace))) return undefined;
  const list = watched.map((name) => `'${name}'`).join(', ');
  return namespace === undefined
    ? `${what} has no namespace at synth time, but its operator watches only ${list} (watchNamespaces): set 'namespace' (or the chart's) to one of them`
    : `${what} is in namespace '${namespace}', but its operator watches only ${list} (watchNamespaces), so no controller would act on it: add '${namespace}' to the EtcdOperator's watchNamespaces or use one of those namespaces`;
}

export interface RegisteredOperator {
  readonly construct: IConstruct;
  readonly identity: OperatorIdentity;
}

export class AppRegistry {
  public readonly operators: RegisteredOperator[] = [];
  public readonly crds: IConstruct[] = [];
  /** Clusters by `<namespace>/<name>` (`<none>/<name>` when the namespace is not known at synth time). */
  public readonly clusters = new Map<string, IConstruct[]>();
  /** Namespaces our constructs create, by name. */
  public readonly namespaces = new Map<string, IConstruct[]>();
}

/**
 * Registries by construct tree root, kept on `globalThis` under a `Symbol.for` key rather than in this module: an
 * app that loads both the ES module and the CommonJS build of the package has two copies of this module, and an
 * operator created through one must still be found by a cluster created through the other.
 */
const REGISTRIES = Symbol.for('etcd-gitops.app-registries');
const shared = globalThis as { [REGISTRIES]?: WeakMap<IConstruct, AppRegistry> };
if (!shared[REGISTRIES]) shared[REGISTRIES] = new WeakMap<IConstruct, AppRegistry>();
const registries = shared[REGISTRIES];

/** The registry of the app (construct tree root) `scope` belongs to. */
export function registryOf(scope: IConstruct): AppRegistry {
  const root = scope.node.root;
  let registry = registries.get(root);
  if (!registry) {
    registry = new AppRegistry();
    registries.set(root, registry);
  }
  return registry;
}

/** The list of `map` under `key`, created empty on first use. */
export function groupOf<T>(map: Map<string, T[]>, key: string): T[] {
  let group = map.get(key);
  if (!group) {
    group = [];
    map.set(key, group);
  }
  return group;
}

/**
 * Adds `self` to `group` (what must exist once per app) with a synth-time validation on `owner`: every later member
 * of the group reports `message(first)`, naming the one it collides with.
 */
export function registerUnique<T>(
  owner: IConstruct,
  group: T[],
  self: T,
  message: (first: T) => string,
): void {
  group.push(self);
  owner.node.addValidation({
    validate: () => {
      const index = group.indexOf(self);
      return index > 0 ? [message(group[0] as T)] : [];
    },
  });
}
