// An EtcdCluster as the API server holds it now: one GET, for tests that read its status.
import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { API_GROUP, API_VERSION, ETCD_CLUSTER_PLURAL } from '../../constructs/conventions/api.js';
import type { EtcdCluster } from '../../controller/etcdcluster/api.js';

export async function readEtcdCluster(
  kubeConfig: KubeConfig,
  namespace: string,
  name: string,
): Promise<EtcdCluster> {
  return (await kubeConfig.makeApiClient(CustomObjectsApi).getNamespacedCustomObject({
    group: API_GROUP,
    version: API_VERSION,
    plural: ETCD_CLUSTER_PLURAL,
    namespace,
    name,
  })) as EtcdCluster;
}
