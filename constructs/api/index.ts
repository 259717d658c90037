export * from './common-schemas.js';
export * from './crds.js';
export * from './etcd-cluster-schema.js';
export * from './etcd-restore-schema.js';
export type * from './json-schema.js';
