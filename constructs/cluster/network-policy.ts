// The NetworkPolicy of one etcd cluster: the peer port from members only, the client port from members, the controller,
// this cluster's backup and defrag Jobs and the clients the user allows (label selectors, cdk8s-plus workloads, or
// address blocks outside the Pod network).
import { k8s } from 'cdk8s-plus-27';
import type { OperatorIdentity } from '../app-registry.js';
import { backupSelector, controllerSelector, defragSelector, memberSelector } from '../conventions/labels.js';
import { CLIENT_PORT, MEMBER_METRICS_PORT, PEER_PORT } from '../conventions/ports.js';
import { validateCidr } from '../validate/cidr.js';

/** Addresses allowed in, as a NetworkPolicy `ipBlock`. */
export interface EtcdClientIpBlock {
  /** A CIDR block, e.g. `192.0.2.0/24` or `192.0.2.7/32`. */
  readonly cidr: string;
  /**
   * CIDR blocks inside `cidr` that stay out.
   * @default - none
   */
  readonly except?: readonly string[];
}

/**
 * Clients allowed in, by labels (a pod selector, a namespace selector, or both) or, for clients outside the Pod
 * network (a controller or application run outside Kubernetes, a VM), by address (`ipBlock`, alone).
 */
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
  /**
   * Addresses outside the cluster's Pod network. Kubernetes does not define whether an `ipBlock` matches Pod
   * addresses (most enforcers do not match them after SNAT), so select Pods by labels.
   * @default - none: the client is selected by labels
   */
  readonly ipBlock?: EtcdClientIpBlock;
}

/** A label selector as cdk8s-plus renders it (`LabelSelector._toKube()`), of whichever cdk8s-plus major. */
export interface EtcdRenderedLabelSelector {
  /** Labels a Pod must carry, each with this value. */
  readonly matchLabels?: { readonly [key: string]: string };
  /** Set-based requirements (`In`, `NotIn`, `Exists`, `DoesNotExist`). */
  readonly matchExpressions?: readonly {
    readonly key: string;
    readonly operator: string;
    readonly values?: readonly string[];
  }[];
}

/** A cdk8s-plus `LabelSelector`, by what this library calls on it. */
export interface EtcdLabelSelectorLike {
  /** The selector as Kubernetes JSON. */
  _toKube(): EtcdRenderedLabelSelector;
}

/**
 * What this library reads of a cdk8s-plus workload or `Pods.select(...)` (`IPodSelector.toPodSelectorConfig()`),
 * declared by shape, so a selector of any cdk8s-plus major fits: cdk8s-plus-27, or cdk8s-plus-33, which today's
 * `cdk8s init` installs (cdk8s-plus-27's own `IPodSelector` names its `LabelSelector` class, which another major's
 * class does not match).
 */
export interface EtcdPodSelector {
  /** The Pods' label selector and, when they live elsewhere, their namespaces. */
  toPodSelectorConfig(): {
    readonly labelSelector: EtcdLabelSelectorLike;
    readonly namespaces?: {
      readonly names?: readonly string[];
      readonly labelSelector?: EtcdLabelSelectorLike;
    };
  };
}

/**
 * A client of the cluster: label selectors, or anything of cdk8s-plus (any major) that selects Pods (a
 * `Deployment`, `StatefulSet`, `Job`, `Pod`, `Pods.select(...)`), in its own namespace when it has one.
 */
export type EtcdClient = EtcdClientPeer | EtcdPodSelector;

/** The label every namespace carries with its own name (Kubernetes ≥ 1.22). */
export const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';

function tcp(port: number): k8s.NetworkPolicyPort {
  return { protocol: 'TCP', port: k8s.IntOrString.fromNumber(port) };
}

function labelPeer(client: EtcdClientPeer): k8s.NetworkPolicyPeer {
  if (client.ipBlock) {
    const { cidr, except } = client.ipBlock;
    return { ipBlock: { cidr, ...(except?.length ? { except: [...except] } : {}) } };
  }
  return {
    podSelector: client.podSelector
      ? { matchLabels: client.podSelector }
      : client.namespaceSelector
        ? {}
        : undefined,
    namespaceSelector: client.namespaceSelector ? { matchLabels: client.namespaceSelector } : undefined,
  };
}

/** A selector cdk8s-plus rendered (`_toKube()`, as its own NetworkPolicy does), as our `k8s.LabelSelector`. */
function labelSelector(selector: EtcdLabelSelectorLike): k8s.LabelSelector {
  const { matchLabels, matchExpressions } = selector._toKube();
  return {
    ...(matchLabels ? { matchLabels: { ...matchLabels } } : {}),
    ...(matchExpressions
      ? {
          matchExpressions: matchExpressions.map((e) => ({
            key: e.key,
            operator: e.operator,
            ...(e.values ? { values: [...e.values] } : {}),
          })),
        }
      : {}),
  };
}

/** Namespace selectors of a cdk8s-plus selector: one per name, or its label selector, or none (own namespace). */
function namespaceSelectors(
  config: ReturnType<EtcdPodSelector['toPodSelectorConfig']>['namespaces'],
): (k8s.LabelSelector | undefined)[] {
  if (config?.names?.length)
    return config.names.map((name) => ({ matchLabels: { [NAMESPACE_NAME_LABEL]: name } }));
  if (config?.labelSelector) return [labelSelector(config.labelSelector)];
  return [undefined];
}

function workloadPeers(client: EtcdPodSelector): k8s.NetworkPolicyPeer[] {
  const config = client.toPodSelectorConfig();
  const podSelector = labelSelector(config.labelSelector);
  return namespaceSelectors(config.namespaces).map((namespaceSelector) => ({
    podSelector,
    namespaceSelector,
  }));
}

function isPodSelector(client: EtcdClient): client is EtcdPodSelector {
  return typeof (client as EtcdPodSelector).toPodSelectorConfig === 'function';
}

/**
 * Throws unless `client` selects someone: a label selector, a cdk8s-plus workload, or an `ipBlock` alone with valid
 * CIDR blocks. `prop` names it in the message, e.g. `clients[2]`.
 */
export function validateClient(prop: string, client: EtcdClient): EtcdClient {
  if (client === null || typeof client !== 'object') {
    throw new Error(
      `'${prop}' must be a label selector ({ podSelector, namespaceSelector }), an { ipBlock } or a cdk8s-plus workload, got ${String(client)}`,
    );
  }
  if (isPodSelector(client)) return client;
  const { podSelector, namespaceSelector, ipBlock } = client;
  if (ipBlock !== undefined) {
    if (podSelector !== undefined || namespaceSelector !== undefined) {
      throw new Error(
        `'${prop}' has an ipBlock and a label selector: a NetworkPolicy peer is either an address block or labels, give them as two clients`,
      );
    }
    validateCidr(`${prop}.ipBlock.cidr`, ipBlock.cidr);
    (ipBlock.except ?? []).forEach((cidr, i) => {
      validateCidr(`${prop}.ipBlock.except[${i}]`, cidr);
    });
    return client;
  }
  if (podSelector === undefined && namespaceSelector === undefined) {
    throw new Error(
      `'${prop}' selects nothing: give podSelector (labels of client Pods), namespaceSelector (labels of client namespaces) or ipBlock (addresses outside the Pod network), got ${JSON.stringify(client)}`,
    );
  }
  return client;
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
