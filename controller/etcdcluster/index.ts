// The EtcdCluster membership reconciler, as controller/main.ts wires it.
export { observeCluster } from './observe-cluster.js';
export { createEtcdClusterReconciler } from './reconciler.js';
