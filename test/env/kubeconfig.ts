// Writes a kubeconfig file (JSON is valid YAML) with the certificates embedded, and loads it (connections reused, as the
// controller's are).
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { reuseConnections } from '../../controller/runtime/kube.js';
import { issueCertificate, type Pki } from './certs.js';

export interface KubeconfigSpec {
  path: string;
  server: string;
  caCert: string;
  clientCert: string;
  clientKey: string;
  /** Name of the cluster, user and context. @default 'etcd-gitops-test' */
  name?: string;
}

export async function writeKubeconfig(spec: KubeconfigSpec): Promise<KubeConfig> {
  const name = spec.name ?? 'etcd-gitops-test';
  const base64 = async (file: string) => (await readFile(file)).toString('base64');
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      { name, cluster: { server: spec.server, 'certificate-authority-data': await base64(spec.caCert) } },
    ],
    users: [
      {
        name,
        user: {
          'client-certificate-data': await base64(spec.clientCert),
          'client-key-data': await base64(spec.clientKey),
        },
      },
    ],
    contexts: [{ name, context: { cluster: name, user: name, namespace: 'default' } }],
    'current-context': name,
    preferences: {},
  };
  await writeFile(spec.path, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(spec.path);
  return reuseConnections(kubeConfig);
}

/**
 * A client identity of its own for a component: a certificate for `subject` (e.g. `/CN=system:kube-proxy`) signed by
 * the PKI's CA, in `dir`, and `<dir>/kubeconfig` that presents it to `server`. Returns the kubeconfig's path.
 */
export async function writeClientKubeconfig(spec: {
  dir: string;
  pki: Pki;
  server: string;
  subject: string;
  name: string;
}): Promise<string> {
  await mkdir(spec.dir, { recursive: true });
  const cert = join(spec.dir, 'client.crt');
  const key = join(spec.dir, 'client.key');
  await issueCertificate(spec.pki, { subject: spec.subject, usage: 'client', cert, key });
  const path = join(spec.dir, 'kubeconfig');
  await writeKubeconfig({
    path,
    server: spec.server,
    caCert: spec.pki.caCert,
    clientCert: cert,
    clientKey: key,
    name: spec.name,
  });
  return path;
}

/**
 * A kubeconfig at `path` presenting a token of the ServiceAccount `namespace/name` (TokenRequest, as the kubelet
 * mints them for Pods; valid 6 hours, longer than any test file) to the admin kubeconfig's API server.
 */
export async function writeServiceAccountKubeconfig(
  admin: KubeConfig,
  serviceAccount: { namespace: string; name: string },
  path: string,
): Promise<KubeConfig> {
  const { status } = await admin.makeApiClient(CoreV1Api).createNamespacedServiceAccountToken({
    ...serviceAccount,
    body: { spec: { audiences: [], expirationSeconds: 6 * 3600 } },
  });
  if (!status?.token) throw new Error(`TokenRequest for ${serviceAccount.name} returned no token`);
  const cluster = admin.getCurrentCluster();
  if (!cluster) throw new Error('the admin kubeconfig has no current cluster');
  const { name } = serviceAccount;
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster: { server: cluster.server, 'certificate-authority-data': cluster.caData } }],
    users: [{ name, user: { token: status.token } }],
    contexts: [{ name, context: { cluster: name, user: name } }],
    'current-context': name,
  };
  await writeFile(path, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(path);
  return reuseConnections(kubeConfig);
}
