export { createEtcdRestoreReconciler, EtcdRestoreReconciler } from './reconciler.js';
export { lockHolderKeys, restoreKeysOfCluster } from './watch-keys.js';
