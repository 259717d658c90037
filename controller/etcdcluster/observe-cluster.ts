// The observation of one cluster by its key, for the EtcdRestore reconciler: main.ts hands it over, so "has quorum"
// and "Ready at its size" mean the same to both reconcilers (the same Pods, PVCs, TLS client and etcd view) without
// controller/etcdrestore importing this package (docs/design/restore.md, invariant 7).
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import type { ObjectKey } from '../runtime/types.js';
import { type Observed, observeByKey } from './observe.js';

/** The cluster of `key` as the membership planner sees it, or `undefined` when there is none. */
export async function observeCluster(kubeConfig: KubeConfig, key: ObjectKey): Promise<Observed | undefined> {
  return observeByKey(kubeConfig, kubeConfig.makeApiClient(CoreV1Api), key);
}
