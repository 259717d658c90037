// Writes a kubeconfig file (JSON is valid YAML) with the certificates embedded, and loads it.
import { readFile, writeFile } from 'node:fs/promises';
import { KubeConfig } from '@kubernetes/client-node';

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
  return kubeConfig;
}
