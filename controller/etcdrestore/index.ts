export { createEtcdRestoreReconciler, EtcdRestoreReconciler } from './reconciler.js';
export { restoreKeysOfCluster } from './watch-keys.js';
