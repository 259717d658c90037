// The EtcdCluster membership reconciler, as controller/main.ts wires it.
export { createEtcdClusterReconciler } from './reconciler.js';
