// Shared steps of the controller-runtime end-to-end tests.
import { CoreV1Api, KubeConfig, type V1Pod } from '@kubernetes/client-node';

/** A fresh namespace with a unique name. */
export async function createNamespace(kubeConfig: KubeConfig, prefix: string): Promise<string> {
  const name = `${prefix}-${Math.random().toString(36).slice(2, 8)}`;
  await kubeConfig.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name } } });
  return name;
}

/** A Pod that never runs (no node), enough to be listed and watched. */
export function pod(namespace: string, name: string, labels: Record<string, string>): V1Pod {
  return {
    metadata: { name, namespace, labels },
    spec: { containers: [{ name: 'c', image: 'registry.invalid/none:1' }] },
  };
}

/** A copy of `kubeConfig` whose cluster server is `https://127.0.0.1:<port>` (same CA, same user). */
export function viaPort(kubeConfig: KubeConfig, port: number): KubeConfig {
  const copy = new KubeConfig();
  const cluster = kubeConfig.getCurrentCluster();
  const user = kubeConfig.getCurrentUser();
  if (!cluster || !user) throw new Error('kubeconfig has no current cluster/user');
  copy.loadFromClusterAndUser({ ...cluster, server: `https://127.0.0.1:${port}` }, user);
  return copy;
}
