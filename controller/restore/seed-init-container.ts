// The seed member's `restore fetch` init container (docs/design/restore.md, "The restore command"): added to the
// member Pod of a seed that starts from a backup, for `spec.bootstrap.backup` and for an in-place restore (the
// lock's source). Pure; used by the membership executor only (controller/etcdcluster/pod-for-action.ts).
import type { V1Container, V1Pod } from '@kubernetes/client-node';
import {
  backupServiceAccountName,
  backupSourceOf,
  CLIENT_CERT_TLS_DIR,
  clientCertFiles,
  clientURL,
  DATA_DIR,
  DATA_MOUNT_PATH,
  DEFAULT_OPERATOR_IMAGE,
  OPERATOR_ENTRYPOINT,
  OPERATOR_IMAGE_ENV,
  restoreFetch,
  restoreFromMember,
  s3ConnectionOf,
  s3CredentialsPodParts,
  schemes,
  type TlsSpec,
} from '../../constructs/conventions/index.js';
import type { S3Location } from '../../constructs/imports/etcd.gitops.dev.js';
import { restrictedContainerSecurityContext } from '../../constructs/security.js';

export const RESTORE_INIT_CONTAINER = 'restore';

/**
 * The image the controller runs from, for the init containers it adds: `$ETCD_GITOPS_IMAGE` (the operator
 * construct sets it to the Deployment's own image, so a mirrored or pinned image is used everywhere), else
 * the package's default.
 */
export function operatorImage(env: NodeJS.ProcessEnv = process.env): string {
  return env[OPERATOR_IMAGE_ENV] || DEFAULT_OPERATOR_IMAGE;
}

export interface SeedRestore {
  /** Where the backup is; `key` wins over `latestUnderPrefix` (an in-place restore passes the verified key). */
  readonly location: S3Location;
  /** The cluster's name: a web identity is its `<cluster>-backup` ServiceAccount's (workload-identity.md). */
  readonly clusterName: string;
  /** The cluster's `spec.version`. */
  readonly clusterVersion: string;
  readonly member: string;
  readonly peerURL: string;
  readonly token: string;
  /** Our image. @default DEFAULT_OPERATOR_IMAGE */
  readonly image?: string;
  /** The cluster's `status.revisionFloor`: the restore's bump counts from it too. @default - none (a new cluster) */
  readonly revisionFloor?: string;
}

/** The init container's args (the flag table: constructs/conventions/cli/restore-fetch.ts). */
export function restoreFetchArgs(seed: SeedRestore): string[] {
  const source = backupSourceOf(seed.location);
  const s3 = s3ConnectionOf(seed.location);
  return restoreFetch.args({
    bucket: source.bucket,
    key: source.key,
    latestUnderPrefix: source.latestUnderPrefix,
    s3Endpoint: s3.endpoint,
    region: s3.region,
    forcePathStyle: s3.forcePathStyle,
    etcdVersion: seed.clusterVersion,
    dataDir: DATA_DIR,
    name: seed.member,
    initialAdvertisePeerUrls: seed.peerURL,
    initialClusterToken: seed.token,
    revisionFloor: seed.revisionFloor,
  });
}

/** The S3 credentials of the seed's backup: its Secret, or the cluster's `<cluster>-backup` web identity. */
function seedCredentials(seed: SeedRestore) {
  return s3CredentialsPodParts(seed.location, backupServiceAccountName(seed.clusterName), seed.member);
}

export function restoreInitContainer(seed: SeedRestore): V1Container {
  const credentials = seedCredentials(seed);
  return {
    name: RESTORE_INIT_CONTAINER,
    image: seed.image ?? DEFAULT_OPERATOR_IMAGE,
    command: [OPERATOR_ENTRYPOINT],
    args: restoreFetchArgs(seed),
    ...(credentials.env.length > 0 ? { env: [...credentials.env] } : {}),
    ...(credentials.envFrom.length > 0 ? { envFrom: [...credentials.envFrom] } : {}),
    volumeMounts: [{ name: 'data', mountPath: DATA_MOUNT_PATH }, ...credentials.volumeMounts],
    // The command's last log line (JSON, `code` and `reason`) becomes the terminated state's message, which the
    // controllers report (init-failure.ts).
    terminationMessagePolicy: 'FallbackToLogsOnError',
    resources: { requests: { cpu: '100m', memory: '128Mi' } },
    securityContext: restrictedContainerSecurityContext(),
  };
}

/**
 * `pod` with the restore init container first; with a web identity the Pod runs as `<cluster>-backup` (still
 * without the API token mounted) and has the projected token's volume.
 */
export function withRestoreInitContainer(pod: V1Pod, seed: SeedRestore): V1Pod {
  const spec = pod.spec ?? { containers: [] };
  const credentials = seedCredentials(seed);
  return {
    ...pod,
    spec: {
      ...spec,
      ...(credentials.serviceAccountName ? { serviceAccountName: credentials.serviceAccountName } : {}),
      initContainers: [restoreInitContainer(seed), ...(spec.initContainers ?? [])],
      ...(credentials.volumes.length > 0
        ? { volumes: [...(spec.volumes ?? []), ...credentials.volumes] }
        : {}),
    },
  };
}

/** The seed moment of the membership planner (`CreatePod`, reason `seed`). */
export interface SeedMoment {
  readonly member: string;
  readonly reason: string;
  readonly token?: string;
  /** Member names of `--initial-cluster`: more than one for the members of a static bootstrap. */
  readonly initialCluster?: readonly string[];
}

/** A surviving member a seed copies (`restore from-member`, docs/design/restore.md). */
export interface SurvivorSource {
  readonly name: string;
  readonly id: string;
}

/** What a seed starts from: a backup or a surviving member. */
export type SeedSource = { readonly backup: S3Location } | { readonly member: SurvivorSource };

/** What of the EtcdCluster decides whether a seed starts from a backup or a survivor. */
export interface SeedCluster {
  readonly metadata: { readonly name?: string; readonly namespace?: string };
  readonly spec: {
    readonly version: string;
    readonly bootstrap?: { readonly backup?: S3Location };
    readonly tls?: TlsSpec;
  };
  readonly status?: {
    readonly clusterID?: string;
    /** The highest revision the controller saw the cluster give out (docs/design/restore.md, "The revision floor"). */
    readonly revisionFloor?: string;
    readonly restore?: {
      readonly token?: string;
      readonly source?: { readonly backup?: S3Location; readonly member?: SurvivorSource };
    };
  };
}

/**
 * What a seed Pod restores before etcd starts, or `undefined` for a plain member Pod (restore.md). Only a seed
 * (`reason: 'seed'`): the seed of an in-place restore (its token is the lock's `status.restore.token`) restores the
 * lock's source (a backup, or a surviving member); otherwise the seed of a cluster with `spec.bootstrap.backup`
 * that never had an id (`status.clusterID`) restores that ({@link bootstrapBackup}). The members of a static
 * bootstrap (more than one in `--initial-cluster`) restore nothing: that path starts empty clusters only, and a
 * `spec.bootstrap.backup` written after it began is not applied (docs/design/bootstrap.md). A recreated seed whose data dir exists is safe either
 * way: both commands skip a data dir that holds `member/`. Throws for a restore's seed whose lock names no source.
 */
export function seedSource(cluster: SeedCluster, moment: SeedMoment): SeedSource | undefined {
  if (moment.reason !== 'seed') return undefined;
  const lock = cluster.status?.restore;
  if (lock?.token !== undefined && moment.token === lock.token) {
    // An in-place restore's seed without its source would start an empty cluster: never build one.
    if (lock.source?.backup) return { backup: lock.source.backup };
    if (lock.source?.member) return { member: lock.source.member };
    throw new Error(`restore seed ${moment.member}: status.restore has no source`);
  }
  if ((moment.initialCluster?.length ?? 1) > 1) return undefined;
  const backup = bootstrapBackup(cluster);
  return backup ? { backup } : undefined;
}

/** The backup a new cluster's first seed restores: `spec.bootstrap.backup` of a cluster that never had an id. */
export function bootstrapBackup(cluster: SeedCluster): S3Location | undefined {
  return cluster.status?.clusterID ? undefined : cluster.spec.bootstrap?.backup;
}

/** The source in words for Events: `s3://bucket/key` or `member main-2`. */
export function describeSeedSource(source: SeedSource): string {
  if ('member' in source) return `member ${source.member.name}`;
  return `s3://${source.backup.bucket}/${source.backup.key ?? source.backup.latestUnderPrefix}`;
}

const SURVIVOR_CLIENT_TLS_VOLUME = 'restore-client-tls';

/**
 * The `restore from-member` init container of a survivor restore's seed: it asks the survivor's client URL (https
 * with the client certificate of `spec.tls.client`, mounted like the backup Jobs mount it) for its snapshot.
 */
export function fromMemberInitContainer(
  cluster: SeedCluster,
  survivor: SurvivorSource,
  seed: {
    readonly member: string;
    readonly peerURL: string;
    readonly token: string;
    readonly image?: string;
  },
): V1Container {
  const { name, namespace } = cluster.metadata as { name: string; namespace: string };
  const scheme = schemes(cluster.spec.tls).client;
  const tls = scheme === 'https' ? clientCertFiles() : undefined;
  return {
    name: RESTORE_INIT_CONTAINER,
    image: seed.image ?? DEFAULT_OPERATOR_IMAGE,
    command: [OPERATOR_ENTRYPOINT],
    args: restoreFromMember.args({
      memberUrl: clientURL(name, namespace, survivor.name, scheme),
      memberId: survivor.id,
      ...(tls ? { cacert: tls.cacert, cert: tls.cert, key: tls.key } : {}),
      etcdVersion: cluster.spec.version,
      dataDir: DATA_DIR,
      name: seed.member,
      initialAdvertisePeerUrls: seed.peerURL,
      initialClusterToken: seed.token,
      revisionFloor: cluster.status?.revisionFloor,
    }),
    volumeMounts: [
      { name: 'data', mountPath: DATA_MOUNT_PATH },
      ...(tls ? [{ name: SURVIVOR_CLIENT_TLS_VOLUME, mountPath: CLIENT_CERT_TLS_DIR, readOnly: true }] : []),
    ],
    terminationMessagePolicy: 'FallbackToLogsOnError',
    resources: { requests: { cpu: '100m', memory: '128Mi' } },
    securityContext: restrictedContainerSecurityContext(),
  };
}

/** `pod` with the init container of its seed source ({@link seedSource}), first; unchanged for other Pods. */
export function withSeedRestore(
  cluster: SeedCluster,
  pod: V1Pod,
  moment: SeedMoment,
  options: { readonly peerURL: string; readonly image?: string },
): V1Pod {
  const source = seedSource(cluster, moment);
  if (!source) return pod;
  if ('backup' in source) {
    return withRestoreInitContainer(pod, {
      location: source.backup,
      clusterName: cluster.metadata.name as string,
      clusterVersion: cluster.spec.version,
      member: moment.member,
      peerURL: options.peerURL,
      token: moment.token ?? '',
      ...(options.image ? { image: options.image } : {}),
      ...(cluster.status?.revisionFloor ? { revisionFloor: cluster.status.revisionFloor } : {}),
    });
  }
  const init = fromMemberInitContainer(cluster, source.member, {
    member: moment.member,
    peerURL: options.peerURL,
    token: moment.token ?? '',
    ...(options.image ? { image: options.image } : {}),
  });
  const spec = pod.spec ?? { containers: [] };
  const clientSecret = cluster.spec.tls?.client?.clientSecretName;
  const volumes =
    schemes(cluster.spec.tls).client === 'https' && clientSecret
      ? [{ name: SURVIVOR_CLIENT_TLS_VOLUME, secret: { secretName: clientSecret, defaultMode: 0o440 } }]
      : [];
  return {
    ...pod,
    spec: {
      ...spec,
      initContainers: [init, ...(spec.initContainers ?? [])],
      volumes: [...(spec.volumes ?? []), ...volumes],
    },
  };
}
