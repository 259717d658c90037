export * from './api/index.js';
export type * from './imports/etcd.gitops.dev.js';
