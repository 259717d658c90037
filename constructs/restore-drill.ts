// A restore drill CronJob for one backup schedule: the newest backup restored into the Pod's own scratch volume and
// served by a throw-away etcd on the Pod's loopback, never touching the cluster (docs/design/restore-drill.md).
import { k8s } from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import { containerResources, memoryLimitBytes, nodeOptionsEnv } from './cluster/container-resources.js';
import {
  type CronScheduleOptions,
  NAMESPACE_ENV,
  namespaceEnv,
  operatorCronJob,
} from './cluster/operator-cronjob.js';
import { TERMINATION_LOG_PATH } from './conventions/backup.js';
import { drillCheck, drillFetch } from './conventions/cli/drill.js';
import {
  DEFAULT_DRILL_WAIT,
  DRILL_CHECK_CONTAINER,
  DRILL_CLIENT_URL,
  DRILL_DATA_DIR,
  DRILL_DIR,
  DRILL_ETCD_CONTAINER,
  DRILL_FETCH_CONTAINER,
  DRILL_MEMBER,
  DRILL_PEER_URL,
} from './conventions/drill.js';
import { DEFAULT_OPERATOR_IMAGE, ETCD_BINARY, OPERATOR_ENTRYPOINT } from './conventions/images.js';
import { BACKUP_SCHEDULE_LABEL } from './conventions/labels.js';
import { DEFAULT_BACKUP_RESOURCES, jobNodeOptions } from './conventions/limits.js';
import { drillCronJobName } from './conventions/names.js';
import type { ChecksumMode } from './conventions/s3.js';
import { type S3CredentialsSource, s3CredentialsPodParts } from './conventions/s3-credentials.js';
import { restrictedContainerSecurityContext } from './security.js';
import { validateCron } from './validate/cron.js';
import { type DurationInput, durationOf } from './validate/duration.js';
import { validateDnsLabel, validateInteger } from './validate/names.js';
import { type QuantityInput, quantityOf, type ResourceQuantities } from './validate/quantity.js';

/** The etcd sidecar's resources unless `etcdResources` says otherwise. */
export const DEFAULT_DRILL_ETCD_RESOURCES = {
  requests: { cpu: '50m', memory: '128Mi' },
  limits: { memory: '1Gi' },
} as const;

/** A restore drill of a backup schedule (`EtcdBackupSchedule.addRestoreDrill`). */
export interface EtcdRestoreDrillOptions extends CronScheduleOptions {
  /**
   * Resources of the `fetch` and `check` containers (our image), as a backup schedule's `resources`.
   * @default - a backup Job's: requests cpu 50m, memory 160Mi; limit memory 256Mi
   */
  readonly resources?: ResourceQuantities;
  /**
   * Resources of the throw-away etcd; its memory holds the restored database's working set.
   * @default - requests cpu 50m, memory 128Mi; limit memory 1Gi
   */
  readonly etcdResources?: ResourceQuantities;
  /**
   * Size limit of the scratch volume, which holds the downloaded snapshot and the restored data dir at once.
   * @default - twice the cluster's backend quota
   */
  readonly scratchSize?: QuantityInput;
  /**
   * How long the check waits for the restored etcd to answer: `'2m'`, `'90s'` or a `Duration`.
   * @default '2m'
   */
  readonly wait?: DurationInput;
  /**
   * Seconds a drill Job may run before it is stopped.
   * @default 3600
   */
  readonly activeDeadlineSeconds?: number;
  /**
   * Finished Jobs kept, each.
   * @default - 1 successful, 3 failed
   */
  readonly historyLimit?: { readonly successful?: number; readonly failed?: number };
}

/** Where a backup schedule's backups are, defaults applied: what `drill fetch` looks under. */
export interface EtcdBackupLocation {
  /** S3 bucket. */
  readonly bucket: string;
  /** The key template, the schedule's prefix included; the newest backup is looked for under its fixed part. */
  readonly keyTemplate: string;
  /**
   * S3 endpoint URL, for S3-compatible stores.
   * @default - AWS S3
   */
  readonly s3Endpoint?: string;
  /** S3 region. */
  readonly region: string;
  /**
   * Path-style addressing.
   * @default false
   */
  readonly forcePathStyle?: boolean;
  /** SDK checksums (`CHECKSUM_MODES`). */
  readonly checksumMode: ChecksumMode;
}

/** What a drill needs to know about the schedule it drills and its cluster. */
export interface EtcdRestoreDrillTarget {
  /** The cluster's name (`metadata.name` of its EtcdCluster). */
  readonly clusterName: string;
  /** Namespace, or undefined to read it from the Pod at run time. */
  readonly namespace?: string;
  /** The drilled backup CronJob: the drill is `<backupCronJob>-drill`, its Pods labelled with this schedule. */
  readonly backupCronJob: string;
  /** The backup Jobs' ServiceAccount (no API rights), which the drill runs as too. */
  readonly serviceAccountName: string;
  /** The drilled schedule's S3 credentials: its Secret or its web identity. */
  readonly credentials: S3CredentialsSource;
  /** Where the schedule's backups are. */
  readonly location: EtcdBackupLocation;
  /** The cluster's etcd version: the restore tool's, and the newest a backup may come from. */
  readonly etcdVersion: string;
  /** The cluster's etcd image, which the drill's sidecar runs. */
  readonly etcdImage: string;
  /** The cluster's effective backend quota: the default scratch size is twice it. */
  readonly quotaBackendBytes: number;
  /**
   * The image of the `fetch` and `check` containers unless the drill names one.
   * @default - DEFAULT_OPERATOR_IMAGE
   */
  readonly image?: string;
}

const DRILL_VOLUME = 'drill';
const MIB = 1024 * 1024;

function validateOptions(o: EtcdRestoreDrillOptions): void {
  validateCron(o.schedule);
  validateInteger('activeDeadlineSeconds', o.activeDeadlineSeconds ?? 3600, 60, 86_400);
}

/** The etcd sidecar: the cluster's etcd on the restored data dir, on the Pod's loopback only. */
function etcdSidecar(target: EtcdRestoreDrillTarget, o: EtcdRestoreDrillOptions): k8s.Container {
  const resources = o.etcdResources ?? DEFAULT_DRILL_ETCD_RESOURCES;
  return {
    name: DRILL_ETCD_CONTAINER,
    image: target.etcdImage,
    imagePullPolicy: 'IfNotPresent',
    command: [ETCD_BINARY],
    args: [
      `--name=${DRILL_MEMBER}`,
      `--data-dir=${DRILL_DATA_DIR}`,
      `--listen-client-urls=${DRILL_CLIENT_URL}`,
      `--advertise-client-urls=${DRILL_CLIENT_URL}`,
      `--listen-peer-urls=${DRILL_PEER_URL}`,
      `--quota-backend-bytes=${target.quotaBackendBytes}`,
    ],
    resources: containerResources('etcdResources', resources.requests, resources.limits),
    securityContext: restrictedContainerSecurityContext(),
    volumeMounts: [{ name: DRILL_VOLUME, mountPath: DRILL_DIR }],
  };
}

/** A CronJob `<backup CronJob>-drill`; made by `EtcdBackupSchedule.addRestoreDrill()`. */
export class EtcdRestoreDrill extends Construct {
  /** Name of the CronJob; `kubectl create job --from=cronjob/<name> <job>` drills now. */
  public readonly cronJobName: string;
  /** The CronJob. */
  public readonly cronJob: k8s.KubeCronJob;

  public constructor(
    scope: Construct,
    id: string,
    target: EtcdRestoreDrillTarget,
    options: EtcdRestoreDrillOptions,
  ) {
    super(scope, id);
    validateOptions(options);
    this.cronJobName = drillCronJobName(target.backupCronJob);
    validateDnsLabel('backup schedule name', this.cronJobName, 52);
    const image = options.image ?? target.image ?? DEFAULT_OPERATOR_IMAGE;
    const resources = options.resources ?? DEFAULT_BACKUP_RESOURCES;
    const namespace = target.namespace ?? `$(${NAMESPACE_ENV})`;
    const scratch =
      options.scratchSize === undefined
        ? `${Math.ceil((2 * target.quotaBackendBytes) / MIB)}Mi`
        : quantityOf('scratchSize', options.scratchSize);
    const credentials = s3CredentialsPodParts(
      target.credentials,
      target.serviceAccountName,
      this.cronJobName,
    );
    const fetch: k8s.Container = {
      name: DRILL_FETCH_CONTAINER,
      image,
      imagePullPolicy: 'IfNotPresent',
      command: [OPERATOR_ENTRYPOINT],
      args: drillFetch.args({
        namespace,
        cluster: target.clusterName,
        ...target.location,
        etcdVersion: target.etcdVersion,
        terminationLog: TERMINATION_LOG_PATH,
      }),
      terminationMessagePath: TERMINATION_LOG_PATH,
      env: [
        ...namespaceEnv(target),
        ...nodeOptionsEnv(jobNodeOptions(memoryLimitBytes('resources', resources.limits))),
        ...credentials.env,
      ],
      ...(credentials.envFrom.length > 0 ? { envFrom: [...credentials.envFrom] } : {}),
      resources: containerResources('resources', resources.requests, resources.limits),
      securityContext: restrictedContainerSecurityContext(),
      volumeMounts: [
        { name: 'tmp', mountPath: '/tmp' },
        { name: DRILL_VOLUME, mountPath: DRILL_DIR },
        ...credentials.volumeMounts,
      ],
    };
    this.cronJob = operatorCronJob(this, 'Resource', {
      ...options,
      name: this.cronJobName,
      namespace: target.namespace,
      clusterName: target.clusterName,
      component: 'restore-drill',
      serviceAccountName: target.serviceAccountName,
      defaultImage: target.image,
      startingDeadlineSeconds: 600,
      activeDeadlineSeconds: options.activeDeadlineSeconds ?? 3600,
      // A drill that fails once is a finding, not something to retry away.
      backoffLimit: 0,
      historyLimit: {
        successful: options.historyLimit?.successful ?? 1,
        failed: options.historyLimit?.failed ?? 3,
      },
      defaultResources: DEFAULT_BACKUP_RESOURCES,
      podLabels: { [BACKUP_SCHEDULE_LABEL]: target.backupCronJob },
      initContainers: [fetch],
      sidecars: [etcdSidecar(target, options)],
      volumes: [
        { name: DRILL_VOLUME, emptyDir: { sizeLimit: k8s.Quantity.fromString(scratch) } },
        ...credentials.volumes,
      ],
      container: {
        name: DRILL_CHECK_CONTAINER,
        args: drillCheck.args({
          wait: durationOf('wait', options.wait ?? DEFAULT_DRILL_WAIT),
          terminationLog: TERMINATION_LOG_PATH,
        }),
        terminationMessagePath: TERMINATION_LOG_PATH,
        volumeMounts: [{ name: DRILL_VOLUME, mountPath: DRILL_DIR, readOnly: true }],
      },
    });
  }
}
