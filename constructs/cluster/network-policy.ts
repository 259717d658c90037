// The NetworkPolicy of one etcd cluster: the peer port from members only, the client port from members, the controller,
// this cluster's backup and defrag Jobs and the clients the user allows (label selectors or cdk8s-plus workloads).
import { type IPodSelector, k8s, type NamespaceSelectorConfig } from 'cdk8s-plus-27';
import type { OperatorIdentity } from '../app-registry.js';
import { backupSelector, controllerSelector, defragSelector, memberSelector } from '../conventions/labels.js';
import { CLIENT_PORT, MEMBER_METRICS_PORT, PEER_PORT } from '../conventions/ports.js';

/** Pods allowed to reach the client port, by labels: a pod selector, a namespace selector, or both. */
export interface EtcdClientPeer {
  /**
   * Labels of client Pods.
   * @default - every Pod of the selected namespaces
   */
  readonly podSelector?: Record<string, string>;
  /**
   * Labels of client namespaces.
   * @default - the cluster's namespace only
   */
  readonly namespaceSelector?: Record<string, string>;
}

/**
 * A client of the cluster: label selectors, or anything of cdk8s-plus that selects Pods (a `Deployment`,
 * `StatefulSet`, `Job`, `Pod`, `Pods.select(...)`), in its own namespace when it has one.
 */
export type EtcdClient = EtcdClientPeer | IPodSelector;

/** The label every namespace carries with its own name (Kubernetes ≥ 1.22). */
export const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';

function tcp(port: number): k8s.NetworkPolicyPort {
  return { protocol: 'TCP', port: k8s.IntOrString.fromNumber(port) };
}

function labelPeer(client: EtcdClientPeer): k8s.NetworkPolicyPeer {
  return {
    podSelector: client.podSelector
      ? { matchLabels: client.podSelector }
      : client.namespaceSelector
        ? {}
        : undefined,
    namespaceSelector: client.namespaceSelector ? { matchLabels: client.namespaceSelector } : undefined,
  };
}

/** Namespace selectors of a cdk8s-plus selector: one per name, or its label selector, or none (own namespace). */
function namespaceSelectors(config: NamespaceSelectorConfig | undefined): (k8s.LabelSelector | undefined)[] {
  if (config?.names?.length)
    return config.names.map((name) => ({ matchLabels: { [NAMESPACE_NAME_LABEL]: name } }));
  // `_toKube()` is how cdk8s-plus renders its own LabelSelector (its NetworkPolicy does the same).
  if (config?.labelSelector) return [config.labelSelector._toKube()];
  return [undefined];
}

function workloadPeers(client: IPodSelector): k8s.NetworkPolicyPeer[] {
  const config = client.toPodSelectorConfig();
  const podSelector = config.labelSelector._toKube();
  return namespaceSelectors(config.namespaces).map((namespaceSelector) => ({
    podSelector,
    namespaceSelector,
  }));
}

function isPodSelector(client: EtcdClient): client is IPodSelector {
  return typeof (client as IPodSelector).toPodSelectorConfig === 'function';
}

/** The NetworkPolicy peers of one client. */
export function clientPeers(client: EtcdClient): k8s.NetworkPolicyPeer[] {
  return isPodSelector(client) ? workloadPeers(client) : [labelPeer(client)];
}

/**
 * The spec: ingress only, peer port from members, client port from members, controller, backup and defrag Jobs
 * and `clients`, metrics port from `metricsScrapers`.
 */
export function networkPolicySpec(
  cluster: string,
  operator: OperatorIdentity,
  clients: readonly EtcdClient[],
  metricsScrapers: readonly EtcdClient[] = [],
): k8s.NetworkPolicySpec {
  const members: k8s.NetworkPolicyPeer = { podSelector: { matchLabels: memberSelector(cluster) } };
  const controller: k8s.NetworkPolicyPeer = {
    namespaceSelector: { matchLabels: { [NAMESPACE_NAME_LABEL]: operator.namespace } },
    podSelector: { matchLabels: controllerSelector() },
  };
  const backups: k8s.NetworkPolicyPeer = { podSelector: { matchLabels: backupSelector(cluster) } };
  const defrag: k8s.NetworkPolicyPeer = { podSelector: { matchLabels: defragSelector(cluster) } };
  return {
    podSelector: { matchLabels: memberSelector(cluster) },
    policyTypes: ['Ingress'],
    ingress: [
      { from: [members], ports: [tcp(PEER_PORT)] },
      // Members too: the seed of a survivor restore copies the survivor's snapshot over its client port
      // (docs/design/restore.md, "Recovery from a surviving member").
      {
        from: [controller, backups, defrag, members, ...clients.flatMap(clientPeers)],
        ports: [tcp(CLIENT_PORT)],
      },
      // The metrics port only from the scrapers the user names (none: closed).
      ...(metricsScrapers.length > 0
        ? [{ from: metricsScrapers.flatMap(clientPeers), ports: [tcp(MEMBER_METRICS_PORT)] }]
        : []),
    ],
  };
}
