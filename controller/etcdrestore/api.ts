// The EtcdRestore resource as this reconciler reads and writes it: the generated API types (constructs/imports).
import type { EtcdRestoreManifest } from '../../constructs/imports/etcd.gitops.dev.js';

export type {
  Condition,
  EtcdRestoreSpec,
  EtcdRestoreStatus,
  S3Location,
} from '../../constructs/imports/etcd.gitops.dev.js';

export type EtcdRestore = EtcdRestoreManifest;
