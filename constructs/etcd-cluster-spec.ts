// EtcdCluster construct props → the EtcdCluster spec, validated at synth time.
import { type EtcdPodTemplateProps, renderPodTemplate } from './cluster/pod-template.js';

export type { EtcdPodTemplateProps };

import { type EtcdTlsProps, type RenderedTls, renderTls } from './cluster/tls.js';

export type {
  EtcdCertManagerIssuer,
  EtcdClientTls,
  EtcdClientTlsSecrets,
  EtcdPeerTls,
  EtcdPeerTlsSecrets,
  EtcdTlsCertManager,
  EtcdTlsProps,
} from './cluster/tls.js';

import {
  type AutoCompactionMode,
  backendProblem,
  DEFAULT_AUTO_COMPACTION_MODE,
  describeProblem,
} from './conventions/etcd-backend.js';
import {
  DEFAULT_SIZE,
  DEFAULT_STORAGE_SIZE,
  MAX_SIZE,
  MIN_SIZE,
  MIN_STORAGE_SIZE,
  STORAGE_SIZE_ALLOWED,
} from './conventions/limits.js';
import { quantityBytes } from './conventions/quantity.js';
import type {
  EtcdClusterSpec,
  PersistentVolumeClaimRetentionPolicy,
  S3Location,
} from './imports/etcd.gitops.dev.js';
import { validateS3Location } from './s3-location.js';
import { type DurationInput, durationOf } from './validate/duration.js';
import { validateInteger, validateObjectName } from './validate/names.js';
import {
  type QuantityInput,
  quantityOf,
  type ResourceQuantities,
  renderQuantities,
  validateLimitsCoverRequests,
} from './validate/quantity.js';
import { validateEtcdVersion } from './validate/semver.js';

/** How much history members keep (etcd's `--auto-compaction-mode` and `--auto-compaction-retention`). */
export interface EtcdAutoCompaction {
  /**
   * `periodic` keeps history for `retention` (a duration); `revision` keeps `retention` revisions.
   * @default 'periodic'
   */
  readonly mode?: AutoCompactionMode;
  /**
   * `periodic`: a duration such as `'30m'`, `'1h'`, `'1d'` or `Duration.hours(2)` (at least 1s); `revision`: a
   * whole number of revisions.
   * @default - 1h (periodic)
   */
  readonly retention?: DurationInput | number;
}

/** When a member that does not answer is replaced because its Pod is lost (docs/design/membership.md). */
export interface EtcdFailureDetection {
  /**
   * How long the member Pod's Node may be not Ready (NotReady or unreachable) before the member is replaced by a
   * new one under a new name. Counted from when the Node stopped being Ready.
   * @default '2m'
   */
  readonly nodeNotReady?: DurationInput;
  /**
   * How long a member Pod may stay Terminating past its grace period, or unscheduled, before the member is
   * replaced.
   * @default '5m'
   */
  readonly podStuck?: DurationInput;
}

/** Member data volumes. */
export interface EtcdStorageProps {
  /**
   * PVC request per member: a Kubernetes quantity (`'10Gi'`), a number of bytes or a `Size`; at least `128Mi`
   * (a plain number counts bytes, so `10` is refused at synth).
   * @default '1Gi'
   */
  readonly size?: QuantityInput;
  /**
   * StorageClass of member PVCs; immutable once the cluster exists.
   * @default - the cluster's default StorageClass
   */
  readonly storageClassName?: string;
  /**
   * Explicit opt-in to emptyDir volumes: a member's data is lost with its Pod.
   * @default false
   */
  readonly ephemeral?: boolean;
}

/** The spec-shaped props of `EtcdCluster`. */
export interface EtcdClusterSpecProps {
  /** etcd version `X.Y.Z`, 3.4.0 or newer, e.g. `'3.6.16'`. */
  readonly version: string;
  /**
   * Voting members, 1-9; odd unless `allowEvenSize`.
   * @default 3
   */
  readonly size?: number;
  /**
   * Allow an even size (it tolerates no more failures than the odd size below it).
   * @default false
   */
  readonly allowEvenSize?: boolean;
  /**
   * etcd image.
   * @default - 'gcr.io/etcd-development/etcd:v<version>' (chosen by the controller)
   */
  readonly image?: string;
  /**
   * Member volumes.
   * @default - a 1Gi PVC per member in the default StorageClass
   */
  readonly storage?: EtcdStorageProps;
  /**
   * etcd container resources (quantities).
   * @default - requests cpu 100m, memory 256Mi
   */
  readonly resources?: ResourceQuantities;
  /**
   * Labels, annotations, affinity, tolerations, nodeSelector, priorityClassName, topologySpreadConstraints
   * merged into member Pods.
   * @default - none
   */
  readonly podTemplate?: EtcdPodTemplateProps;
  /**
   * Seed the new cluster from this backup; immutable.
   * @default - an empty cluster
   */
  readonly bootstrapFromBackup?: S3Location;
  /**
   * What happens to member PVCs on cluster deletion and scale-in.
   * @default - Retain in both cases
   */
  readonly pvcRetentionPolicy?: PersistentVolumeClaimRetentionPolicy;
  /**
   * When a member that does not answer is replaced because its node died or its Pod is stuck. A member that
   * answers is never replaced for these reasons.
   * @default - nodeNotReady 2m, podStuck 5m
   */
  readonly failureDetection?: EtcdFailureDetection;
  /**
   * Stop every change; only status is reported.
   * @default false
   */
  readonly paused?: boolean;
  /**
   * History kept by auto-compaction.
   * @default - periodic, 1h
   */
  readonly autoCompaction?: EtcdAutoCompaction;
  /**
   * etcd's backend quota: when a member's database reaches it, etcd raises NOSPACE and refuses writes. At most
   * the volume size.
   * @default - half of the volume after a WAL reserve of min(256Mi, volume/4), at most 8Gi (384Mi for the default
   * 1Gi volume); etcd's 2Gi with ephemeral storage
   */
  readonly quotaBackendBytes?: QuantityInput;
  /**
   * Other etcd flags for every member, by name without the leading `--`, e.g. `{ 'snapshot-count': '50000' }`.
   * Flags the product sets (identity, addresses, membership, compaction, quota, TLS) are refused naming who sets
   * them.
   * @default - none
   */
  readonly extraFlags?: Readonly<Record<string, string>>;
  /**
   * TLS with client-certificate authentication, per side: `client` (port 2379) and `peer` (2380), each with your
   * Secrets (`{ secretName[, clientSecretName] }`) or `{ certManager: true | { issuer } }` (Certificates made
   * here, cert-manager installed separately). Each side is fixed when the cluster is created (admission refuses
   * adding or removing one). The cert-manager form names its Secrets `<name>-server-tls`, `<name>-client-tls` and
   * `<name>-peer-tls` and needs the namespace at synth time. Refused at synth: a Secret and `certManager` on one
   * side, or neither; `secretName` without `clientSecretName`; a name that is no object name; an issuer kind other
   * than `Issuer` or `ClusterIssuer`; the cert-manager form without a namespace; one of your Secret names equal to
   * one the other side's cert-manager form writes; `clusterDomain` with nothing for cert-manager to issue.
   * @default - none: members serve plain http on both ports
   */
  readonly tls?: EtcdTlsProps;
}

/** Where the cluster is: `spec.tls` names Secrets after the cluster, and certificates name its namespace. */
export interface EtcdClusterPlace {
  readonly name: string;
  readonly namespace?: string;
}

function renderAutoCompaction(props: EtcdAutoCompaction | undefined): EtcdClusterSpec['autoCompaction'] {
  if (!props) return undefined;
  const mode = props.mode ?? DEFAULT_AUTO_COMPACTION_MODE;
  const { retention } = props;
  if (retention === undefined) return { mode };
  if (typeof retention === 'number') return { mode, retention: String(retention) };
  return {
    mode,
    retention: mode === 'periodic' ? durationOf('autoCompaction.retention', retention) : String(retention),
  };
}

function renderFailureDetection(
  props: EtcdFailureDetection | undefined,
): EtcdClusterSpec['failureDetection'] {
  if (!props || (props.nodeNotReady === undefined && props.podStuck === undefined)) return undefined;
  return {
    ...(props.nodeNotReady !== undefined
      ? { nodeNotReady: durationOf('failureDetection.nodeNotReady', props.nodeNotReady) }
      : {}),
    ...(props.podStuck !== undefined
      ? { podStuck: durationOf('failureDetection.podStuck', props.podStuck) }
      : {}),
  };
}

function validateSize(size: number, allowEven: boolean): number {
  validateInteger(
    'size',
    size,
    MIN_SIZE,
    MAX_SIZE,
    ` (etcd clusters above ${MAX_SIZE} members spend more on replication than they gain)`,
  );
  if (size % 2 === 0 && !allowEven) {
    throw new Error(
      `'size' must be odd to survive a member failure, got ${size} (set allowEvenSize: true to allow it)`,
    );
  }
  return size;
}

/** `storage.size` as text; throws below `MIN_STORAGE_SIZE` (a plain number counts bytes: `10` is 10 bytes). */
function renderStorageSize(size: QuantityInput): string {
  const text = quantityOf('storage.size', size);
  if ((quantityBytes(text) ?? 0) < (quantityBytes(MIN_STORAGE_SIZE) ?? 0)) {
    throw new Error(
      `'storage.size' must be ${STORAGE_SIZE_ALLOWED}; a plain number counts bytes: write '10Gi' or Size.gibibytes(10), got ${text}`,
    );
  }
  return text;
}

/**
 * Validates the props and returns the spec to write, with defaults made explicit for size and storage, and what
 * the `tls` prop's cert-manager form must issue.
 */
export function renderEtcdClusterSpec(
  props: EtcdClusterSpecProps,
  place: EtcdClusterPlace,
): { spec: EtcdClusterSpec; tls: RenderedTls } {
  validateEtcdVersion(props.version);
  const size = validateSize(props.size ?? DEFAULT_SIZE, props.allowEvenSize ?? false);
  const storageSize = renderStorageSize(props.storage?.size ?? DEFAULT_STORAGE_SIZE);
  if (props.storage?.storageClassName !== undefined) {
    validateObjectName('storage.storageClassName', props.storage.storageClassName);
  }
  const requests = renderQuantities('resources.requests', props.resources?.requests);
  const limits = renderQuantities('resources.limits', props.resources?.limits);
  validateLimitsCoverRequests('resources', requests, limits);
  const podTemplate = renderPodTemplate(props.podTemplate);
  if (props.bootstrapFromBackup) validateS3Location('bootstrapFromBackup', props.bootstrapFromBackup);
  const tls = renderTls(props.tls, place.name, place.namespace);
  const spec: EtcdClusterSpec = {
    size,
    version: props.version,
    storage: {
      size: storageSize,
      storageClassName: props.storage?.storageClassName,
      ephemeral: props.storage?.ephemeral ? true : undefined,
    },
  };
  if (props.allowEvenSize) spec.allowEvenSize = true;
  if (props.image !== undefined) spec.image = props.image;
  if (props.resources) spec.resources = { requests, limits };
  if (podTemplate) spec.podTemplate = podTemplate;
  if (props.bootstrapFromBackup) spec.bootstrap = { backup: props.bootstrapFromBackup };
  if (props.pvcRetentionPolicy) spec.persistentVolumeClaimRetentionPolicy = props.pvcRetentionPolicy;
  if (props.paused) spec.paused = true;
  const failureDetection = renderFailureDetection(props.failureDetection);
  if (failureDetection) spec.failureDetection = failureDetection;
  const autoCompaction = renderAutoCompaction(props.autoCompaction);
  if (autoCompaction) spec.autoCompaction = autoCompaction;
  if (props.quotaBackendBytes !== undefined) {
    spec.quotaBackendBytes = quantityOf('quotaBackendBytes', props.quotaBackendBytes);
  }
  if (props.extraFlags && Object.keys(props.extraFlags).length > 0) spec.extraFlags = { ...props.extraFlags };
  if (tls.spec) spec.tls = tls.spec;
  const problem = backendProblem(spec, DEFAULT_STORAGE_SIZE);
  // The spec's field names without `spec.`: the props carry the same names.
  if (problem) throw new Error(describeProblem({ ...problem, field: problem.field.replace(/^spec\./, '') }));
  return { spec, tls };
}
