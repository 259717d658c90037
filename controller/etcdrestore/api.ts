// The resources this reconciler reads and writes: the generated API types (constructs/imports). The EtcdCluster is
// only read, apart from its lock `status.restore` (docs/design/restore.md, "The lock").
import type {
  EtcdClusterManifest,
  EtcdClusterRestoreLock,
  EtcdClusterRestoreSource,
  EtcdRestoreManifest,
} from '../../constructs/imports/etcd.gitops.dev.js';

export type {
  Condition,
  EtcdRestoreSpec,
  EtcdRestoreStatus,
  S3Location,
} from '../../constructs/imports/etcd.gitops.dev.js';

export type EtcdRestore = EtcdRestoreManifest;
export type EtcdCluster = EtcdClusterManifest;
/** `EtcdCluster.status.restore`. */
export type RestoreLock = EtcdClusterRestoreLock;
/** What the seed starts from (`status.restore.source`). */
export type RestoreSource = EtcdClusterRestoreSource;
