// TLS facts shared by the constructs (cert-manager Certificates, CronJob mounts) and the controller (member Pods,
// its own client, the Secret checks): docs/design/tls.md.
import { clientServiceName, peerServiceName } from './names.js';

/** `http` or `https`: the scheme of one side of a cluster. */
export type Scheme = 'http' | 'https';

/** The shape of `spec.tls` both halves read. */
export interface TlsSpec {
  /** The client port's serving certificate Secret and the controller's client certificate Secret. */
  readonly client?: { readonly secretName: string; readonly clientSecretName: string };
  /** The peer certificate Secret. */
  readonly peer?: { readonly secretName: string };
}

/** The scheme of the client port (2379) and of the peer port (2380). */
export function schemes(tls: TlsSpec | undefined): { client: Scheme; peer: Scheme } {
  return { client: tls?.client ? 'https' : 'http', peer: tls?.peer ? 'https' : 'http' };
}

/** The keys of every TLS Secret (cert-manager's `kubernetes.io/tls` shape with its CA). */
export const TLS_CERT_KEY = 'tls.crt';
export const TLS_KEY_KEY = 'tls.key';
export const TLS_CA_KEY = 'ca.crt';
export const TLS_SECRET_KEYS = [TLS_CERT_KEY, TLS_KEY_KEY, TLS_CA_KEY] as const;

/** Where a member Pod mounts `spec.tls.client.secretName`. */
export const MEMBER_CLIENT_TLS_DIR = '/etc/etcd/tls/client';
/** Where a member Pod mounts `spec.tls.peer.secretName`. */
export const MEMBER_PEER_TLS_DIR = '/etc/etcd/tls/peer';
/** Where backup, defrag and restore Pods mount `spec.tls.client.clientSecretName`. */
export const CLIENT_CERT_TLS_DIR = '/etc/etcd-gitops/tls';

/** The `--cacert`/`--cert`/`--key` files of a client certificate Secret mounted at `dir`. */
export function clientCertFiles(dir: string = CLIENT_CERT_TLS_DIR): {
  cacert: string;
  cert: string;
  key: string;
} {
  return { cacert: `${dir}/${TLS_CA_KEY}`, cert: `${dir}/${TLS_CERT_KEY}`, key: `${dir}/${TLS_KEY_KEY}` };
}

/** The common name of the client certificate the cert-manager form makes (what the controller and the Jobs
 *  present). */
export const CLIENT_CERT_COMMON_NAME = 'etcd-gitops';

/** The cluster domain the DNS names of certificates end in unless told otherwise. */
export const DEFAULT_CLUSTER_DOMAIN = 'cluster.local';

/** `<cluster>-peer.<namespace>.svc`: the name etcd requires in a peer's certificate
 *  (`--peer-cert-allowed-hostname`), so a certificate of the client CA never speaks raft. */
export function peerAllowedHostname(cluster: string, namespace: string): string {
  return `${peerServiceName(cluster)}.${namespace}.svc`;
}

/** The address every member also listens on for clients, so that `etcdctl` run in its container (`kubectl exec`)
 *  reaches it at its default endpoint. */
export const MEMBER_LOOPBACK = '127.0.0.1';

/** IP addresses the serving certificates we request carry: the loopback, for `etcdctl` in a member's container. */
export function servingIpAddresses(): string[] {
  return [MEMBER_LOOPBACK];
}

/** DNS names the members' serving certificate must have (a wildcard covers every member name the cluster will
 *  ever use; member names are not known at synth time). */
export function servingDnsNames(
  cluster: string,
  namespace: string,
  clusterDomain = DEFAULT_CLUSTER_DOMAIN,
): string[] {
  const peer = peerServiceName(cluster);
  const client = clientServiceName(cluster);
  return [
    `*.${peer}.${namespace}.svc`,
    `*.${peer}.${namespace}.svc.${clusterDomain}`,
    client,
    `${client}.${namespace}`,
    `${client}.${namespace}.svc`,
    `${client}.${namespace}.svc.${clusterDomain}`,
  ];
}

/** DNS names the peer certificate must have: every member, and the peer Service (what etcd checks a peer's
 *  certificate against, see {@link peerAllowedHostname}). */
export function peerDnsNames(
  cluster: string,
  namespace: string,
  clusterDomain = DEFAULT_CLUSTER_DOMAIN,
): string[] {
  const peer = peerServiceName(cluster);
  return [
    `*.${peer}.${namespace}.svc`,
    `*.${peer}.${namespace}.svc.${clusterDomain}`,
    `${peer}.${namespace}.svc`,
    `${peer}.${namespace}.svc.${clusterDomain}`,
  ];
}

/** The etcd flags of `spec.tls` for a member (files in the mounts above). */
export function memberTlsFlags(tls: TlsSpec | undefined, cluster: string, namespace: string): string[] {
  const flags: string[] = [];
  if (tls?.client)
    flags.push(
      `--cert-file=${MEMBER_CLIENT_TLS_DIR}/${TLS_CERT_KEY}`,
      `--key-file=${MEMBER_CLIENT_TLS_DIR}/${TLS_KEY_KEY}`,
      `--trusted-ca-file=${MEMBER_CLIENT_TLS_DIR}/${TLS_CA_KEY}`,
      '--client-cert-auth',
    );
  if (tls?.peer)
    flags.push(
      `--peer-cert-file=${MEMBER_PEER_TLS_DIR}/${TLS_CERT_KEY}`,
      `--peer-key-file=${MEMBER_PEER_TLS_DIR}/${TLS_KEY_KEY}`,
      `--peer-trusted-ca-file=${MEMBER_PEER_TLS_DIR}/${TLS_CA_KEY}`,
      '--peer-client-cert-auth',
      `--peer-cert-allowed-hostname=${peerAllowedHostname(cluster, namespace)}`,
    );
  return flags;
}
