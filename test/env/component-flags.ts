// Command-line flags of the three control-plane components, as pure functions of their inputs.
// Modelled on controller-runtime's envtest, plus controller-manager and scheduler.
import { join } from 'node:path';
import type { Pki } from './certs.js';

/**
 * Allocation range for Service cluster IPs. Without nodes no packet is ever sent there; with real nodes kube-proxy
 * serves it inside each node's network namespace only.
 */
export const serviceClusterIPRange = '10.0.0.0/24';
/** The `kubernetes` Service's cluster IP: the first address of the range. */
export const kubernetesServiceIP = '10.0.0.1';
export const serviceAccountIssuer = 'https://kubernetes.default.svc.cluster.local';

/**
 * The API server's ServiceAccount issuer documents at an address an OpenID relying party of the environment
 * (MinIO) reaches: the API server itself, on the node-facing address or loopback. The discovery document names
 * `jwksUri` (`--service-account-jwks-uri`); the issuer stays the in-cluster name.
 */
export function issuerEndpoints(
  port: number,
  nodeFacingAddress?: string,
): { discoveryUrl: string; jwksUri: string } {
  const base = `https://${nodeFacingAddress ?? '127.0.0.1'}:${port}`;
  return { discoveryUrl: `${base}/.well-known/openid-configuration`, jwksUri: `${base}/openid/v1/jwks` };
}

export interface ApiServerInput {
  dir: string;
  pki: Pki;
  etcdURL: string;
  port: number;
  /**
   * The address nodes and Pods reach the API server at (the `kubernetes` Service's endpoint), when the control
   * plane runs in an environment namespace with real nodes: then it listens on every address of that namespace,
   * authorizes kubelets with the Node authorizer and reaches them with its kubelet client certificate.
   * @default none: loopback only, no nodes
   */
  nodeFacingAddress?: string;
  /**
   * Write an audit log of these users' requests (one JSON line per request, at its end), e.g. to count what the
   * controller asks of the API server at rest. @default none: no audit log
   */
  audit?: { readonly policyFile: string; readonly logPath: string };
}

/**
 * An audit policy recording each request of `users` once, when it completes (metadata only: who, verb, resource,
 * code, times), and nothing of anyone else.
 */
export function auditPolicy(users: readonly string[]): string {
  return JSON.stringify({
    apiVersion: 'audit.k8s.io/v1',
    kind: 'Policy',
    omitStages: ['RequestReceived', 'ResponseStarted'],
    rules: [{ level: 'Metadata', users }, { level: 'None' }],
  });
}

export function apiServerFlags(input: ApiServerInput): string[] {
  const { pki } = input;
  const nodes = input.nodeFacingAddress
    ? [
        '--bind-address=0.0.0.0',
        `--advertise-address=${input.nodeFacingAddress}`,
        '--authorization-mode=Node,RBAC',
        '--enable-admission-plugins=NodeRestriction',
        `--kubelet-client-certificate=${pki.kubeletClientCert}`,
        `--kubelet-client-key=${pki.kubeletClientKey}`,
        '--kubelet-preferred-address-types=InternalIP',
      ]
    : ['--bind-address=127.0.0.1', '--advertise-address=127.0.0.1', '--authorization-mode=RBAC'];
  return [
    `--etcd-servers=${input.etcdURL}`,
    `--secure-port=${input.port}`,
    ...nodes,
    `--cert-dir=${join(input.dir, 'apiserver')}`,
    `--tls-cert-file=${pki.servingCert}`,
    `--tls-private-key-file=${pki.servingKey}`,
    `--client-ca-file=${pki.caCert}`,
    `--service-account-issuer=${serviceAccountIssuer}`,
    `--service-account-jwks-uri=${issuerEndpoints(input.port, input.nodeFacingAddress).jwksUri}`,
    `--service-account-key-file=${pki.serviceAccountPub}`,
    `--service-account-signing-key-file=${pki.serviceAccountKey}`,
    `--service-cluster-ip-range=${serviceClusterIPRange}`,
    // Privileged Pods are allowed by the API server, so only Pod Security admission (enabled by
    // default, like ServiceAccount admission) rejects them in `restricted` namespaces.
    '--allow-privileged=true',
    ...(input.audit
      ? [
          `--audit-policy-file=${input.audit.policyFile}`,
          `--audit-log-path=${input.audit.logPath}`,
          '--audit-log-format=json',
          '--audit-log-maxbackup=1',
        ]
      : []),
    '--profiling=false',
    '--v=1',
  ];
}

/** With real nodes, how long a Node may miss its heartbeats before it is NotReady (20 s; Kubernetes' default 40 s). */
export const NODE_MONITOR_GRACE_SECONDS = 20;

export function controllerManagerFlags(input: {
  dir: string;
  pki: Pki;
  kubeconfig: string;
  port: number;
  /** Real nodes: notice a dead node within about 20 s (kubelets renew their lease every 4 s). @default false */
  nodes?: boolean;
}): string[] {
  const { pki } = input;
  const nodes = input.nodes
    ? ['--node-monitor-period=2s', `--node-monitor-grace-period=${NODE_MONITOR_GRACE_SECONDS}s`]
    : [];
  return [
    ...nodes,
    `--kubeconfig=${input.kubeconfig}`,
    '--bind-address=127.0.0.1',
    `--secure-port=${input.port}`,
    `--cert-dir=${join(input.dir, 'controller-manager')}`,
    '--leader-elect=false',
    // Every default controller: garbagecollector, namespace, job, cronjob, serviceaccount-token,
    // serviceaccount, endpoints, endpointslice, disruption, replicaset, deployment,
    // root-ca-cert-publisher (kube-root-ca.crt), persistentvolume-binder, node-lifecycle, ...
    '--controllers=*',
    '--use-service-account-credentials=false',
    `--service-account-private-key-file=${pki.serviceAccountKey}`,
    `--root-ca-file=${pki.caCert}`,
    `--cluster-signing-cert-file=${pki.caCert}`,
    `--cluster-signing-key-file=${pki.caKey}`,
    `--service-cluster-ip-range=${serviceClusterIPRange}`,
    '--profiling=false',
    '--v=1',
  ];
}

export function schedulerFlags(input: { dir: string; kubeconfig: string; port: number }): string[] {
  return [
    `--kubeconfig=${input.kubeconfig}`,
    '--bind-address=127.0.0.1',
    `--secure-port=${input.port}`,
    `--cert-dir=${join(input.dir, 'scheduler')}`,
    '--leader-elect=false',
    '--profiling=false',
    '--v=1',
  ];
}
