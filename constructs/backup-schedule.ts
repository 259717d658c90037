// A backup CronJob for one etcd cluster: streams a snapshot to S3-compatible storage and applies retention.
import type { k8s } from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import {
  type CronScheduleOptions,
  clusterConnectionArgs,
  NAMESPACE_ENV,
  namespaceEnv,
  type OperatorJobTarget,
  operatorCronJob,
} from './cluster/operator-cronjob.js';
import {
  BACKUP_CONTAINER_NAME,
  type Compression,
  DEFAULT_COMPRESSION,
  DEFAULT_KEEP_LAST,
  DEFAULT_KEY_TEMPLATE,
  keyTemplateProblem,
  PART_SIZE_MIB,
  QUEUE_SIZE,
  TERMINATION_LOG_PATH,
} from './conventions/backup.js';
import { backupSave } from './conventions/cli/backup-save.js';
import { BACKUP_SCHEDULE_LABEL } from './conventions/labels.js';
import { DEFAULT_BACKUP_RESOURCES } from './conventions/limits.js';
import { backupCronJobName } from './conventions/names.js';
import {
  type ChecksumMode,
  DEFAULT_CHECKSUM_MODE,
  DEFAULT_S3_REGION,
  type SseAlgorithm,
} from './conventions/s3.js';
import { s3CredentialsPodParts, type WebIdentity } from './conventions/s3-credentials.js';
import { type EtcdBackupLocation, EtcdRestoreDrill, type EtcdRestoreDrillOptions } from './restore-drill.js';
import { validateBucketName } from './validate/bucket.js';
import { validateCron } from './validate/cron.js';
import { type DurationInput, durationOf } from './validate/duration.js';
import { validateDnsLabel, validateInteger } from './validate/names.js';
import { validateS3Credentials } from './validate/s3-credentials.js';
import { validateHttpUrl } from './validate/url.js';

/** A backup schedule: when, where in S3, how long backups are kept (`EtcdCluster.addBackupSchedule`). */
export interface EtcdBackupScheduleOptions extends CronScheduleOptions {
  /**
   * Suffix of the CronJob name: `<cluster>-backup-<name>`.
   * @default - none: the CronJob is `<cluster>-backup`
   */
  readonly name?: string;
  /** S3 bucket. */
  readonly bucket: string;
  /**
   * Prepended to the key template, e.g. `'etcd/'`.
   * @default ''
   */
  readonly prefix?: string;
  /**
   * Object key; placeholders `{namespace}`, `{cluster}`, `{timestamp}`, `{revision}`; must contain `{timestamp}`.
   * @default '{namespace}/{cluster}/{timestamp}-rev{revision}.db'
   */
  readonly keyTemplate?: string;
  /**
   * S3 endpoint URL, for S3-compatible stores.
   * @default - AWS S3
   */
  readonly endpoint?: string;
  /**
   * S3 region.
   * @default 'us-east-1'
   */
  readonly region?: string;
  /**
   * Path-style addressing (`http://host/bucket/key`), as MinIO and most S3-compatible stores need.
   * @default false
   */
  readonly forcePathStyle?: boolean;
  /**
   * Secret in the cluster's namespace with `AWS_ACCESS_KEY_ID` and `AWS_SECRET_ACCESS_KEY` (not made here).
   * Exactly one of this and `webIdentity`.
   * @default - none: `webIdentity` is set
   */
  readonly credentialsSecretName?: string;
  /**
   * A role the Jobs assume with a projected token of the cluster's `<cluster>-backup` ServiceAccount
   * (`AssumeRoleWithWebIdentity`, as IRSA): no key in any Secret. The role's trust policy names the subject
   * `system:serviceaccount:<namespace>:<cluster>-backup`. Exactly one of this and `credentialsSecretName`.
   * @default - none: `credentialsSecretName` is set
   */
  readonly webIdentity?: WebIdentity;
  /**
   * Keep this many newest backups (at least 1: the newest is never deleted).
   * @default 7
   */
  readonly keepLast?: number;
  /**
   * Also delete backups older than this: `'30d'`, `'12h'`, `'1d12h'` or a `Duration`; never the newest.
   * @default - no age limit
   */
  readonly maxAge?: DurationInput;
  /**
   * SDK checksums: `when-required` works with S3-compatible stores that reject the newest AWS checksum headers.
   * @default 'when-required'
   */
  readonly checksumMode?: ChecksumMode;
  /**
   * Compression of the stored snapshot.
   * @default 'none'
   */
  readonly compression?: Compression;
  /**
   * Server-side encryption.
   * @default - none
   */
  readonly sse?: SseAlgorithm;
  /**
   * KMS key id, with `sse: 'aws:kms'`.
   * @default - the bucket's default key
   */
  readonly sseKmsKeyId?: string;
  /**
   * Size of each part of the multipart upload, in MiB (5 to 512). A save holds `queueSize + 1` parts in memory, so
   * with the defaults 24 MiB of its peak are part buffers (the peaks measured: README, "Performance"). Smaller
   * parts lower the peak; at 10 000 parts, S3's limit, they also cap the size of a backup (5 MiB parts: about 49 GiB).
   * @default 8
   */
  readonly partSizeMiB?: number;
  /**
   * Parts uploaded at once (1 to 16). Fewer lower the peak memory by a part each and upload with less parallelism.
   * @default 2
   */
  readonly queueSize?: number;
  /**
   * Seconds after a missed schedule during which the Job may still start.
   * @default 300
   */
  readonly startingDeadlineSeconds?: number;
  /**
   * Seconds a backup Job may run before it is stopped.
   * @default 3600
   */
  readonly activeDeadlineSeconds?: number;
  /**
   * Retries of a failed backup Pod.
   * @default 2
   */
  readonly backoffLimit?: number;
  /**
   * Finished Jobs kept, each.
   * @default - 3 successful, 3 failed
   */
  readonly historyLimit?: { readonly successful?: number; readonly failed?: number };
}

/** What a schedule needs to know about its cluster. */
export interface EtcdBackupTarget extends OperatorJobTarget {
  /** The backup Jobs' ServiceAccount (`<cluster>-backup`, no API rights). */
  readonly serviceAccountName: string;
  /**
   * The cluster's etcd, which a restore drill restores with and serves the backup on.
   * @default - unknown: `addRestoreDrill()` throws
   */
  readonly etcd?: {
    readonly version: string;
    readonly image: string;
    /** The effective backend quota. */
    readonly quotaBackendBytes: number;
  };
}

function validateOptions(o: EtcdBackupScheduleOptions): void {
  validateCron(o.schedule);
  validateBucketName(o.bucket);
  validateS3Credentials('', o);
  validateInteger(
    'keepLast',
    o.keepLast ?? DEFAULT_KEEP_LAST,
    1,
    10_000,
    ' (the newest backup is never deleted)',
  );
  if (o.endpoint !== undefined) validateHttpUrl('endpoint', o.endpoint);
  if (o.prefix?.startsWith('/')) throw new Error(`'prefix' must not start with '/', got '${o.prefix}'`);
  const template = o.keyTemplate ?? DEFAULT_KEY_TEMPLATE;
  const problem = keyTemplateProblem(`${o.prefix ?? ''}${template}`);
  if (problem) throw new Error(`'keyTemplate' ${problem}, got '${template}'`);
  if (o.sseKmsKeyId !== undefined && o.sse !== 'aws:kms') {
    throw new Error(`'sseKmsKeyId' needs sse: 'aws:kms', got sse ${JSON.stringify(o.sse)}`);
  }
  validateInteger(
    'partSizeMiB',
    o.partSizeMiB ?? PART_SIZE_MIB.default,
    PART_SIZE_MIB.min,
    PART_SIZE_MIB.max,
  );
  validateInteger('queueSize', o.queueSize ?? QUEUE_SIZE.default, QUEUE_SIZE.min, QUEUE_SIZE.max);
  validateInteger('startingDeadlineSeconds', o.startingDeadlineSeconds ?? 300, 10, 86_400);
  validateInteger('activeDeadlineSeconds', o.activeDeadlineSeconds ?? 3600, 60, 86_400);
  validateInteger('backoffLimit', o.backoffLimit ?? 2, 0, 10);
}

/** Where a schedule's backups are: the flags `backup save` and `drill fetch` share, defaults applied. */
function scheduleLocation(o: EtcdBackupScheduleOptions): EtcdBackupLocation {
  return {
    bucket: o.bucket,
    keyTemplate: `${o.prefix ?? ''}${o.keyTemplate ?? DEFAULT_KEY_TEMPLATE}`,
    s3Endpoint: o.endpoint,
    region: o.region ?? DEFAULT_S3_REGION,
    forcePathStyle: o.forcePathStyle,
    checksumMode: o.checksumMode ?? DEFAULT_CHECKSUM_MODE,
  };
}

/** The `backup save` arguments of a schedule (the flag table: conventions/cli/backup-save.ts). */
export function backupArgs(target: EtcdBackupTarget, o: EtcdBackupScheduleOptions): string[] {
  const namespace = target.namespace ?? `$(${NAMESPACE_ENV})`;
  return backupSave.args({
    ...clusterConnectionArgs(target),
    namespace,
    cluster: target.clusterName,
    ...scheduleLocation(o),
    compression: o.compression ?? DEFAULT_COMPRESSION,
    sse: o.sse,
    sseKmsKeyId: o.sseKmsKeyId,
    keepLast: o.keepLast ?? DEFAULT_KEEP_LAST,
    maxAge: o.maxAge === undefined ? undefined : durationOf('maxAge', o.maxAge),
    partSizeMiB: o.partSizeMiB,
    queueSize: o.queueSize,
    terminationLog: TERMINATION_LOG_PATH,
  });
}

/** A CronJob `<cluster>-backup[-<name>]`; made by `EtcdCluster.addBackupSchedule()`. */
export class EtcdBackupSchedule extends Construct {
  /** Name of the CronJob; `kubectl create job --from=cronjob/<name> <job>` runs a backup now. */
  public readonly cronJobName: string;
  /** The CronJob. */
  public readonly cronJob: k8s.KubeCronJob;
  private readonly target: EtcdBackupTarget;
  private readonly options: EtcdBackupScheduleOptions;

  public constructor(
    scope: Construct,
    id: string,
    target: EtcdBackupTarget,
    options: EtcdBackupScheduleOptions,
  ) {
    super(scope, id);
    validateOptions(options);
    this.target = target;
    this.options = options;
    this.cronJobName = backupCronJobName(target.clusterName, options.name);
    validateDnsLabel(options.name === undefined ? 'cluster name' : 'name', this.cronJobName, 52);
    const credentials = s3CredentialsPodParts(options, target.serviceAccountName, this.cronJobName);
    this.cronJob = operatorCronJob(this, 'Resource', {
      ...options,
      name: this.cronJobName,
      namespace: target.namespace,
      clusterName: target.clusterName,
      component: 'backup',
      serviceAccountName: target.serviceAccountName,
      defaultImage: target.image,
      clientCertificateSecretName: target.clientCertificateSecretName,
      startingDeadlineSeconds: options.startingDeadlineSeconds ?? 300,
      activeDeadlineSeconds: options.activeDeadlineSeconds ?? 3600,
      backoffLimit: options.backoffLimit ?? 2,
      defaultResources: DEFAULT_BACKUP_RESOURCES,
      historyLimit: {
        successful: options.historyLimit?.successful ?? 3,
        failed: options.historyLimit?.failed ?? 3,
      },
      podLabels: { [BACKUP_SCHEDULE_LABEL]: this.cronJobName },
      container: {
        name: BACKUP_CONTAINER_NAME,
        args: backupArgs(target, options),
        terminationMessagePath: TERMINATION_LOG_PATH,
        env: [...namespaceEnv(target), ...credentials.env],
        envFrom: credentials.envFrom,
        volumeMounts: credentials.volumeMounts,
      },
      volumes: credentials.volumes,
    });
  }

  /**
   * A CronJob `<this CronJob>-drill` that restores this schedule's newest backup into its own scratch volume, serves
   * it with a throw-away etcd of the cluster's version on the Pod's loopback and counts its keys, never touching the
   * cluster; the controller reports the result as `status.backups[].lastDrill` (docs/design/restore-drill.md).
   * Needs Kubernetes 1.29 or later (the etcd runs as a sidecar). At most one per schedule.
   */
  public addRestoreDrill(options: EtcdRestoreDrillOptions): EtcdRestoreDrill {
    const { etcd } = this.target;
    if (etcd === undefined) {
      throw new Error(
        `backup schedule '${this.cronJobName}': addRestoreDrill() needs the cluster's etcd (the target's 'etcd'); make the schedule with EtcdCluster.addBackupSchedule()`,
      );
    }
    if (this.node.tryFindChild('Drill')) {
      throw new Error(
        `backup schedule '${this.cronJobName}' already has a restore drill: addRestoreDrill() once per schedule`,
      );
    }
    const o = this.options;
    return new EtcdRestoreDrill(
      this,
      'Drill',
      {
        clusterName: this.target.clusterName,
        namespace: this.target.namespace,
        backupCronJob: this.cronJobName,
        serviceAccountName: this.target.serviceAccountName,
        credentials: { credentialsSecretName: o.credentialsSecretName, webIdentity: o.webIdentity },
        location: scheduleLocation(o),
        etcdVersion: etcd.version,
        etcdImage: etcd.image,
        quotaBackendBytes: etcd.quotaBackendBytes,
        image: this.target.image,
      },
      options,
    );
  }
}
