// Command-line flags of the three control-plane components, as pure functions of their inputs.
// Modelled on controller-runtime's envtest, plus controller-manager and scheduler.
import { join } from 'node:path';
import type { Pki } from './certs.js';

/** Allocation range for Service cluster IPs; no packet is ever sent there. */
export const serviceClusterIPRange = '10.0.0.0/24';
export const serviceAccountIssuer = 'https://kubernetes.default.svc.cluster.local';

export function apiServerFlags(input: { dir: string; pki: Pki; etcdURL: string; port: number }): string[] {
  const { pki } = input;
  return [
    `--etcd-servers=${input.etcdURL}`,
    `--secure-port=${input.port}`,
    '--bind-address=127.0.0.1',
    '--advertise-address=127.0.0.1',
    `--cert-dir=${join(input.dir, 'apiserver')}`,
    `--tls-cert-file=${pki.servingCert}`,
    `--tls-private-key-file=${pki.servingKey}`,
    `--client-ca-file=${pki.caCert}`,
    `--service-account-issuer=${serviceAccountIssuer}`,
    `--service-account-key-file=${pki.serviceAccountPub}`,
    `--service-account-signing-key-file=${pki.serviceAccountKey}`,
    `--service-cluster-ip-range=${serviceClusterIPRange}`,
    '--authorization-mode=RBAC',
    // Privileged Pods are allowed by the API server, so only Pod Security admission (enabled by
    // default, like ServiceAccount admission) rejects them in `restricted` namespaces.
    '--allow-privileged=true',
    '--profiling=false',
    '--v=1',
  ];
}

export function controllerManagerFlags(input: {
  dir: string;
  pki: Pki;
  kubeconfig: string;
  port: number;
}): string[] {
  const { pki } = input;
  return [
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
