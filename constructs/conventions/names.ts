// Derived names (stable, human, never hashed) and the URLs built from them.
import { CLIENT_PORT, PEER_PORT } from './ports.js';

/** `http` or `https` (tls.ts `schemes` says which of a cluster's sides use which). */
type UrlScheme = 'http' | 'https';

/** Namespace of the operator unless its `namespace` prop says otherwise. */
export const DEFAULT_OPERATOR_NAMESPACE = 'etcd-gitops-system';
/** The controller's Deployment, ServiceAccount, ClusterRole(Binding) and leader-election Lease. */
export const CONTROLLER_NAME = 'etcd-gitops-controller';
/** The controller's leader-election Role and RoleBinding. */
export const LEADER_ELECTION_ROLE_NAME = `${CONTROLLER_NAME}-leader-election`;
/** The controller's metrics Service. */
export const METRICS_SERVICE_NAME = `${CONTROLLER_NAME}-metrics`;

/** `<cluster>-client`: the Service clients connect to. */
export function clientServiceName(cluster: string): string {
  return `${cluster}-client`;
}

/** `<cluster>-peer`: the headless Service that gives members their DNS names. */
export function peerServiceName(cluster: string): string {
  return `${cluster}-peer`;
}

/** `<cluster>-backup`: the backup ServiceAccount, and the first backup CronJob. */
export function backupServiceAccountName(cluster: string): string {
  return `${cluster}-backup`;
}

/** `<cluster>-backup`, or `<cluster>-backup-<schedule>` for a named schedule. */
export function backupCronJobName(cluster: string, schedule?: string): string {
  const base = backupServiceAccountName(cluster);
  return schedule === undefined ? base : `${base}-${schedule}`;
}

/** `<backup CronJob>-drill`: the restore drill CronJob of one backup schedule (docs/design/restore-drill.md). */
export function drillCronJobName(backupCronJob: string): string {
  return `${backupCronJob}-drill`;
}

/** `<cluster>-defrag`: the defrag CronJob and its ServiceAccount (no API rights). */
export function defragCronJobName(cluster: string): string {
  return `${cluster}-defrag`;
}

/** `<cluster>-etcd-gitops-controller`: the Role and RoleBinding that let the controller read Secrets there. */
export function controllerSecretsRoleName(cluster: string): string {
  return `${cluster}-${CONTROLLER_NAME}`;
}

/** `<cluster>-server-tls`: the members' serving certificate (Certificate and Secret) the constructs' cert-manager
 *  form makes for `spec.tls.client.secretName`. */
export function serverTlsSecretName(cluster: string): string {
  return `${cluster}-server-tls`;
}

/** `<cluster>-client-tls`: the client certificate (Certificate and Secret) the cert-manager form makes for
 *  `spec.tls.client.clientSecretName`. */
export function clientTlsSecretName(cluster: string): string {
  return `${cluster}-client-tls`;
}

/** `<cluster>-peer-tls`: the peer certificate (Certificate and Secret) the cert-manager form makes for
 *  `spec.tls.peer.secretName`. */
export function peerTlsSecretName(cluster: string): string {
  return `${cluster}-peer-tls`;
}

/** `<cluster>-selfsigned`: the self-signed Issuer that signs the cert-manager form's CA certificates. */
export function selfSignedIssuerName(cluster: string): string {
  return `${cluster}-selfsigned`;
}

/** `<cluster>-client-ca`: the client-port CA of the cert-manager form (CA Certificate, its Secret, its Issuer). */
export function clientCaName(cluster: string): string {
  return `${cluster}-client-ca`;
}

/** `<cluster>-peer-ca`: the peer CA of the cert-manager form (CA Certificate, its Secret, its Issuer). */
export function peerCaName(cluster: string): string {
  return `${cluster}-peer-ca`;
}

/** `<cluster>-<index>`: a member, its Pod and its etcd member name. */
export function memberName(cluster: string, index: number): string {
  return `${cluster}-${index}`;
}

/** The index n of a member name `<cluster>-<n>`, or `undefined`. */
export function memberIndex(cluster: string, member: string): number | undefined {
  if (!member.startsWith(`${cluster}-`)) return undefined;
  const rest = member.slice(cluster.length + 1);
  return /^(0|[1-9][0-9]*)$/.test(rest) ? Number(rest) : undefined;
}

const PVC_SUFFIX = '-data';

/** `<member>-data`: a member's PVC. */
export function pvcName(member: string): string {
  return `${member}${PVC_SUFFIX}`;
}

/** The member a PVC name `<member>-data` belongs to, or `undefined` for another name. */
export function memberOfPvc(pvc: string): string | undefined {
  return pvc.endsWith(PVC_SUFFIX) ? pvc.slice(0, -PVC_SUFFIX.length) : undefined;
}

/** `<cluster>-client.<namespace>.svc`, or `<cluster>-client` when the namespace is not known. */
export function clientServiceHost(cluster: string, namespace?: string): string {
  const service = clientServiceName(cluster);
  return namespace ? `${service}.${namespace}.svc` : service;
}

/** `http(s)://<cluster>-client.<namespace>.svc:2379`: the URL clients use. */
export function clientServiceURL(cluster: string, namespace?: string, scheme: UrlScheme = 'http'): string {
  return `${scheme}://${clientServiceHost(cluster, namespace)}:${CLIENT_PORT}`;
}

/** `<member>.<cluster>-peer.<namespace>.svc`: a member's stable DNS name. */
export function memberHost(cluster: string, namespace: string, member: string): string {
  return `${member}.${peerServiceName(cluster)}.${namespace}.svc`;
}

export function peerURL(cluster: string, namespace: string, member: string, scheme: UrlScheme): string {
  return `${scheme}://${memberHost(cluster, namespace, member)}:${PEER_PORT}`;
}

export function clientURL(cluster: string, namespace: string, member: string, scheme: UrlScheme): string {
  return `${scheme}://${memberHost(cluster, namespace, member)}:${CLIENT_PORT}`;
}

/** The member name a peer URL of this cluster belongs to, or `undefined` for a foreign URL. */
export function memberFromPeerURL(cluster: string, namespace: string, url: string): string | undefined {
  const match = /^https?:\/\/([^.]+)\.([^.]+)\.([^.]+)\.svc(?:\.[a-z.]+)?:\d+$/.exec(url);
  if (!match || match[2] !== peerServiceName(cluster) || match[3] !== namespace) return undefined;
  return match[1];
}

/** `--initial-cluster` value: `name=peerURL` for each member, in the order given. */
export function initialCluster(
  cluster: string,
  namespace: string,
  members: readonly string[],
  scheme: UrlScheme,
): string {
  return members.map((member) => `${member}=${peerURL(cluster, namespace, member, scheme)}`).join(',');
}
