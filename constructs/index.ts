// The package's public API: the constructs, their props and the types those name, and the few facts an app
// needs beside them (ports, API group and kinds, labels). Everything else (conventions, validators, schemas the
// controller shares) stays internal: the controller imports it by path (docs/adr/0002-two-packages.md).
// docs/api/reference.md is generated from this entry point (npm run docs:api).
export type { OperatorIdentity } from './app-registry.js';
export {
  EtcdBackupSchedule,
  type EtcdBackupScheduleOptions,
  type EtcdBackupTarget,
} from './backup-schedule.js';
export type { EtcdClientCertificate, EtcdConnection } from './cluster/connection.js';
export type {
  EtcdClient,
  EtcdClientIpBlock,
  EtcdClientPeer,
  EtcdLabelSelectorLike,
  EtcdPodSelector,
  EtcdRenderedLabelSelector,
} from './cluster/network-policy.js';
export type { CronScheduleOptions, OperatorJobTarget } from './cluster/operator-cronjob.js';
export type { EtcdPodTemplateProps } from './cluster/pod-template.js';
export type {
  EtcdCertManagerIssuer,
  EtcdClientTls,
  EtcdClientTlsSecrets,
  EtcdPeerTls,
  EtcdPeerTlsSecrets,
  EtcdTlsCertManager,
  EtcdTlsProps,
} from './cluster/tls.js';
export { API_GROUP, API_VERSION, ETCD_CLUSTER_KIND, ETCD_RESTORE_KIND } from './conventions/api.js';
export { COMPRESSIONS, type Compression } from './conventions/backup.js';
export { AUTO_COMPACTION_MODES, type AutoCompactionMode } from './conventions/etcd-backend.js';
export { CLIENT_PORT, METRICS_PORT, PEER_PORT } from './conventions/ports.js';
export { CHECKSUM_MODES, type ChecksumMode, SSE_ALGORITHMS, type SseAlgorithm } from './conventions/s3.js';
export {
  DEFAULT_WEB_IDENTITY_AUDIENCE,
  type S3CredentialsSource,
  type WebIdentity,
} from './conventions/s3-credentials.js';
export { MEMBER_ANTI_AFFINITIES, type MemberAntiAffinity } from './conventions/scheduling.js';
export type { TlsSpec } from './conventions/tls.js';
export {
  EtcdDefragSchedule,
  type EtcdDefragScheduleOptions,
  type EtcdDefragTarget,
} from './defrag-schedule.js';
export { type EtcdClientCertificateOptions, EtcdCluster, type EtcdClusterProps } from './etcd-cluster.js';
export type {
  EtcdAutoCompaction,
  EtcdClusterSpecProps,
  EtcdFailureDetection,
  EtcdStorageProps,
} from './etcd-cluster-spec.js';
export { EtcdCrds } from './etcd-crds.js';
export { EtcdOperator, type EtcdOperatorProps } from './etcd-operator.js';
export type {
  EtcdClusterBootstrap,
  EtcdClusterPodTemplate,
  EtcdClusterResources,
  EtcdClusterSpec,
  EtcdClusterStorage,
  EtcdRestoreSpec,
  PersistentVolumeClaimRetentionPolicy,
  S3Location,
  Toleration,
} from './imports/etcd.gitops.dev.js';
export { KubeEtcdCluster, type KubeEtcdClusterProps } from './kube-etcd-cluster.js';
export { KubeEtcdRestore, type KubeEtcdRestoreProps } from './kube-etcd-restore.js';
export {
  CLUSTER_ALERT_PENDING_FOR,
  type ClusterAlertPendingFor,
  OPERATOR_ALERT_PENDING_FOR,
  type OperatorAlertPendingFor,
} from './monitoring/alerts.js';
export type { MonitoringOptions, PrometheusRuleOptions } from './monitoring/options.js';
export {
  DEFAULT_DRILL_ETCD_RESOURCES,
  type EtcdBackupLocation,
  EtcdRestoreDrill,
  type EtcdRestoreDrillOptions,
  type EtcdRestoreDrillTarget,
} from './restore-drill.js';
export type { DurationInput } from './validate/duration.js';
export type { QuantityInput, ResourceQuantities } from './validate/quantity.js';
