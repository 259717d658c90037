// Names and URLs of member objects, as fixed by docs/design/conventions.md.

export const GROUP = 'etcd.gitops.dev';
export const VERSION = 'v1alpha1';
export const PLURAL = 'etcdclusters';
export const KIND = 'EtcdCluster';

export const MEMBER_LABEL = `${GROUP}/member`;
export const ANNOTATION_INITIAL_CLUSTER = `${GROUP}/initial-cluster`;
export const ANNOTATION_INITIAL_CLUSTER_STATE = `${GROUP}/initial-cluster-state`;
export const ANNOTATION_CLUSTER_TOKEN = `${GROUP}/cluster-token`;
export const ANNOTATION_CLUSTER_UID = `${GROUP}/cluster-uid`;
export const ANNOTATION_VERSION = `${GROUP}/version`;

export const PEER_PORT = 2380;
export const CLIENT_PORT = 2379;

/** The labels every member Pod and PVC of a cluster carries. */
export function memberSelectorLabels(cluster: string): Record<string, string> {
  return {
    'app.kubernetes.io/name': 'etcd',
    'app.kubernetes.io/instance': cluster,
    'app.kubernetes.io/component': 'member',
  };
}

/** The label selector string of a cluster's member Pods (status.selector, list calls). */
export function memberSelector(cluster: string): string {
  return Object.entries(memberSelectorLabels(cluster))
    .map(([key, value]) => `${key}=${value}`)
    .join(',');
}

export function memberName(cluster: string, index: number): string {
  return `${cluster}-${index}`;
}

export function pvcName(member: string): string {
  return `${member}-data`;
}

export function memberHost(cluster: string, namespace: string, member: string): string {
  return `${member}.${cluster}-peer.${namespace}.svc`;
}

export function peerURL(cluster: string, namespace: string, member: string): string {
  return `http://${memberHost(cluster, namespace, member)}:${PEER_PORT}`;
}

export function clientURL(cluster: string, namespace: string, member: string): string {
  return `http://${memberHost(cluster, namespace, member)}:${CLIENT_PORT}`;
}

/** The member name a peer URL of this cluster belongs to, or `undefined` for a foreign URL. */
export function memberFromPeerURL(cluster: string, namespace: string, url: string): string | undefined {
  const match = /^https?:\/\/([^.]+)\.([^.]+)\.([^.]+)\.svc(?:\.[a-z.]+)?:\d+$/.exec(url);
  if (!match || match[2] !== `${cluster}-peer` || match[3] !== namespace) return undefined;
  return match[1];
}

/** The index n of a member name `<cluster>-<n>`, or `undefined`. */
export function memberIndex(cluster: string, member: string): number | undefined {
  if (!member.startsWith(`${cluster}-`)) return undefined;
  const rest = member.slice(cluster.length + 1);
  return /^(0|[1-9][0-9]*)$/.test(rest) ? Number(rest) : undefined;
}

/** `--initial-cluster` value: `name=peerURL` for each member, in the order given. */
export function initialCluster(cluster: string, namespace: string, members: readonly string[]): string {
  return members.map((member) => `${member}=${peerURL(cluster, namespace, member)}`).join(',');
}
