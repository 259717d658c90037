// Namespaces for tests: created with labels, ready for Pods once the `default` ServiceAccount exists.
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { waitFor } from './wait.js';

/**
 * Creates namespace `name` with `labels` and waits until the controller-manager has given it its
 * `default` ServiceAccount and `kube-root-ca.crt` (ServiceAccount admission rejects Pods before that).
 */
export async function createNamespace(
  kubeConfig: KubeConfig,
  name: string,
  labels: Record<string, string> = {},
): Promise<void> {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  await core.createNamespace({ body: { metadata: { name, labels } } });
  await waitFor(
    async () => {
      await core.readNamespacedServiceAccount({ name: 'default', namespace: name });
      await core.readNamespacedConfigMap({ name: 'kube-root-ca.crt', namespace: name });
      return true;
    },
    { what: `ServiceAccount default and ConfigMap kube-root-ca.crt in namespace ${name}`, timeoutMs: 30_000 },
  );
}
