// The ownerReference every object the controller makes for a cluster carries.
import type { V1OwnerReference } from '@kubernetes/client-node';
import type { EtcdCluster } from './api.js';
import { GROUP, KIND, VERSION } from './names.js';

export function clusterOwnerReference(cluster: EtcdCluster): V1OwnerReference {
  return {
    apiVersion: `${GROUP}/${VERSION}`,
    kind: KIND,
    name: cluster.metadata.name as string,
    uid: cluster.metadata.uid as string,
    controller: true,
    blockOwnerDeletion: true,
  };
}
