// The EtcdCluster resource as this reconciler reads and writes it: the generated API types (constructs/imports).
import type { EtcdClusterManifest } from '../../constructs/imports/etcd.gitops.dev.js';

export type {
  Condition,
  EtcdClusterSpec,
  EtcdClusterStatus,
  EtcdMemberStatus as MemberStatus,
} from '../../constructs/imports/etcd.gitops.dev.js';

export type EtcdCluster = EtcdClusterManifest;
