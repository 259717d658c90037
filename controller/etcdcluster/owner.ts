// The ownerReference every object the controller makes for a cluster carries.
import type { V1OwnerReference } from '@kubernetes/client-node';
import { API_GROUP_VERSION, ETCD_CLUSTER_KIND } from '../../constructs/conventions/index.js';
import type { EtcdCluster } from './api.js';

export function clusterOwnerReference(cluster: EtcdCluster): V1OwnerReference {
  return {
    apiVersion: API_GROUP_VERSION,
    kind: ETCD_CLUSTER_KIND,
    name: cluster.metadata.name as string,
    uid: cluster.metadata.uid as string,
    controller: true,
    blockOwnerDeletion: true,
  };
}
