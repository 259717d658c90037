// Secrets, ConfigMaps, tokens and the cluster CA as the agent reads them from the API server.
import { readFileSync } from 'node:fs';
import type { CoreV1Api, KubeConfig, V1Pod } from '@kubernetes/client-node';
import type { ConfigSources } from './env.js';
import { isNotFound } from './kube.js';
import type { IdentitySources } from './volumes.js';

export function configSources(core: CoreV1Api): ConfigSources {
  return {
    async secret(namespace, name) {
      try {
        const secret = await core.readNamespacedSecret({ namespace, name });
        const data: Record<string, string> = { ...(secret.stringData ?? {}) };
        for (const [key, value] of Object.entries(secret.data ?? {}))
          data[key] = Buffer.from(value, 'base64').toString('utf8');
        return data;
      } catch (error) {
        if (isNotFound(error)) return undefined;
        throw error;
      }
    },
    async configMap(namespace, name) {
      try {
        const map = await core.readNamespacedConfigMap({ namespace, name });
        const data: Record<string, string> = { ...(map.data ?? {}) };
        for (const [key, value] of Object.entries(map.binaryData ?? {}))
          data[key] = Buffer.from(value, 'base64').toString('latin1');
        return data;
      } catch (error) {
        if (isNotFound(error)) return undefined;
        throw error;
      }
    },
  };
}

export function identitySources(core: CoreV1Api, kubeConfig: KubeConfig): IdentitySources {
  return {
    async token(pod: V1Pod, audience, expirationSeconds) {
      const namespace = pod.metadata?.namespace ?? 'default';
      const name = pod.spec?.serviceAccountName ?? 'default';
      const request = await core.createNamespacedServiceAccountToken({
        namespace,
        name,
        body: {
          spec: {
            audiences: audience ? [audience] : [],
            expirationSeconds: expirationSeconds ?? 3607,
            boundObjectRef: {
              apiVersion: 'v1',
              kind: 'Pod',
              name: pod.metadata?.name ?? '',
              uid: pod.metadata?.uid ?? '',
            },
          },
        },
      });
      const token = request.status?.token;
      if (!token) throw new Error(`TokenRequest for serviceaccount ${namespace}/${name} returned no token`);
      return token;
    },
    async rootCA(namespace) {
      try {
        const map = await core.readNamespacedConfigMap({ namespace, name: 'kube-root-ca.crt' });
        const ca = map.data?.['ca.crt'];
        if (ca) return ca;
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
      // Without a controller-manager publishing kube-root-ca.crt, the CA the kubeconfig trusts is the same.
      const cluster = kubeConfig.getCurrentCluster();
      if (cluster?.caData) return Buffer.from(cluster.caData, 'base64').toString('utf8');
      if (cluster?.caFile) return readFileSync(cluster.caFile, 'utf8');
      throw new Error(`configmap "kube-root-ca.crt" not found in namespace ${namespace}`);
    },
  };
}
