// The EtcdRestore controller as controller/main.ts runs it: EtcdRestore keys, enqueued by changes of the restore
// itself and of the cluster it names (the cluster object, its member Pods and PVCs), plus the restore a cluster's
// lock names even when it no longer exists (so the lock of a deleted restore is abandoned). `observeCluster` is the
// membership reconciler's observation, wired by main.ts (this package does not import controller/etcdcluster).
import type { KubernetesObject } from '@kubernetes/client-node';
import { Controller } from '../runtime/controller.js';
import type { ControllerFlags } from '../runtime/flags.js';
import type { SharedInformers } from '../runtime/informers.js';
import type { Metrics } from '../runtime/metrics.js';
import { clusterKeysOfMember, ownKey } from '../runtime/owner-keys.js';
import type { ReconcilerDeps } from '../runtime/types.js';
import type { ObserveCluster } from './observe.js';
import { createEtcdRestoreReconciler } from './reconciler.js';
import { lockHolderKeys, restoreKeysOfCluster } from './watch-keys.js';

export function createEtcdRestoreController(
  deps: ReconcilerDeps,
  informers: SharedInformers,
  flags: ControllerFlags,
  metrics: Metrics,
  observeCluster: ObserveCluster,
): Controller {
  const restoresOf =
    (clusters: (object: KubernetesObject) => ReturnType<typeof ownKey>) => (object: KubernetesObject) =>
      restoreKeysOfCluster(informers.restores, clusters(object));
  return new Controller({
    name: 'etcdrestore',
    reconciler: createEtcdRestoreReconciler(deps, observeCluster),
    log: deps.log,
    primary: informers.restores,
    secondaries: [
      {
        informer: informers.clusters,
        keysOf: (cluster) => [...restoresOf(ownKey)(cluster), ...lockHolderKeys(cluster)],
      },
      { informer: informers.pods, keysOf: restoresOf(clusterKeysOfMember) },
      { informer: informers.persistentVolumeClaims, keysOf: restoresOf(clusterKeysOfMember) },
    ],
    concurrency: flags.concurrency,
    resyncPeriodMs: flags.resyncPeriodMs,
    observer: metrics.observer('etcdrestore'),
  });
}
