// The NetworkPolicy of one etcd cluster: the peer port from members only, the client port from the controller,
// this cluster's backup Jobs and the clients the user allows.
import { k8s } from 'cdk8s-plus-27';
import type { OperatorIdentity } from '../app-registry.js';
import { backupSelector, controllerSelector, memberSelector } from '../conventions/labels.js';
import { CLIENT_PORT, PEER_PORT } from '../conventions/ports.js';

/** Pods allowed to reach the client port: a pod selector, a namespace selector, or both. */
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

/** The label every namespace carries with its own name (Kubernetes ≥ 1.22). */
export const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';

function tcp(port: number): k8s.NetworkPolicyPort {
  return { protocol: 'TCP', port: k8s.IntOrString.fromNumber(port) };
}

function clientPeer(client: EtcdClientPeer): k8s.NetworkPolicyPeer {
  return {
    podSelector: client.podSelector
      ? { matchLabels: client.podSelector }
      : client.namespaceSelector
        ? {}
        : undefined,
    namespaceSelector: client.namespaceSelector ? { matchLabels: client.namespaceSelector } : undefined,
  };
}

/** The spec: ingress only, peer port from members, client port from controller, backups and `clients`. */
export function networkPolicySpec(
  cluster: string,
  operator: OperatorIdentity,
  clients: readonly EtcdClientPeer[],
): k8s.NetworkPolicySpec {
  const members: k8s.NetworkPolicyPeer = { podSelector: { matchLabels: memberSelector(cluster) } };
  const controller: k8s.NetworkPolicyPeer = {
    namespaceSelector: { matchLabels: { [NAMESPACE_NAME_LABEL]: operator.namespace } },
    podSelector: { matchLabels: controllerSelector() },
  };
  const backups: k8s.NetworkPolicyPeer = { podSelector: { matchLabels: backupSelector(cluster) } };
  return {
    podSelector: { matchLabels: memberSelector(cluster) },
    policyTypes: ['Ingress'],
    ingress: [
      { from: [members], ports: [tcp(PEER_PORT)] },
      { from: [controller, backups, ...clients.map(clientPeer)], ports: [tcp(CLIENT_PORT)] },
    ],
  };
}
