// A CronJob that runs one command of our image against one etcd cluster (backup, defrag): one Pod at a time,
// Pod Security `restricted`, no API token, a writable /tmp only.
import { k8s } from 'cdk8s-plus-27';
import type { Construct } from 'constructs';
import { DEFAULT_OPERATOR_IMAGE, OPERATOR_ENTRYPOINT } from '../conventions/images.js';
import { type Component, clusterLabels } from '../conventions/labels.js';
import { jobNodeOptions } from '../conventions/limits.js';
import { clientServiceURL } from '../conventions/names.js';
import { CLIENT_CERT_TLS_DIR, clientCertFiles } from '../conventions/tls.js';
import { SYNC_WAVE, SyncWave } from '../gitops.js';
import { restrictedContainerSecurityContext, restrictedPodSecurityContext } from '../security.js';
import type { ResourceQuantities } from '../validate/quantity.js';
import { validateTimeZone } from '../validate/time-zone.js';
import { containerResources, memoryLimitBytes, nodeOptionsEnv } from './container-resources.js';

/** Set from the Pod's namespace when the cluster's is not known at synth time. */
export const NAMESPACE_ENV = 'POD_NAMESPACE';

/** `POD_NAMESPACE` from the Pod when the namespace is not known at synth time. */
export function namespaceEnv(target: { readonly namespace?: string }): k8s.EnvVar[] {
  return target.namespace === undefined
    ? [{ name: NAMESPACE_ENV, valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } }]
    : [];
}

/** What every maintenance CronJob knows about its cluster. */
export interface OperatorJobTarget {
  /** The cluster's name (`metadata.name` of its EtcdCluster). */
  readonly clusterName: string;
  /** Namespace, or undefined to read it from the Pod at run time. */
  readonly namespace?: string;
  /**
   * Secret with the client certificate the Job presents (`spec.tls.client.clientSecretName`): the Job then talks
   * https, with the Secret mounted at `CLIENT_CERT_TLS_DIR`.
   * @default - none: the cluster serves plain http
   */
  readonly clientCertificateSecretName?: string;
  /**
   * The image of the Jobs unless a schedule names one: the operator's (rendered at synth time, so an operator added
   * to the app later counts).
   * @default - DEFAULT_OPERATOR_IMAGE
   */
  readonly image?: string;
}

/**
 * How a Job reaches its cluster: the client Service URL (`https` with a client certificate) and the `--cacert`,
 * `--cert`, `--key` files of the mounted client certificate Secret.
 */
export function clusterConnectionArgs(target: OperatorJobTarget): {
  endpoints: string[];
  cacert?: string;
  cert?: string;
  key?: string;
} {
  const namespace = target.namespace ?? `$(${NAMESPACE_ENV})`;
  if (target.clientCertificateSecretName === undefined) {
    return { endpoints: [clientServiceURL(target.clusterName, namespace)] };
  }
  return { endpoints: [clientServiceURL(target.clusterName, namespace, 'https')], ...clientCertFiles() };
}

/** Secret volumes are read by the Pod's user through its group (`fsGroup`), never by others. */
const CLIENT_CERT_MODE = 0o440;
const CLIENT_CERT_VOLUME = 'client-tls';

/** Schedule options every maintenance CronJob takes. */
export interface CronScheduleOptions {
  /** Cron schedule (5 fields or a macro such as `@daily`), e.g. `'0 *\/6 * * *'`. */
  readonly schedule: string;
  /**
   * Time zone of the schedule (IANA name).
   * @default - the kube-controller-manager's time zone (UTC in most clusters)
   */
  readonly timeZone?: string;
  /**
   * Create the CronJob suspended.
   * @default false
   */
  readonly suspend?: boolean;
  /**
   * Image with our commands.
   * @default 'ghcr.io/etcd-gitops/etcd-gitops:<package version>'
   */
  readonly image?: string;
  /**
   * Resources of the Job's container (quantities as strings, numbers or `Size`s); given, they replace the default
   * whole. A memory limit also sets the Job's `NODE_OPTIONS`: V8's old space capped at half of it, 1 MiB
   * semi-spaces (`JOB_SEMI_SPACE_MIB`).
   * @default - backups: requests cpu 50m, memory 160Mi (a backup peaked at 127–133 MiB from 64 MiB to 2 GiB with the
   * default part size and queue, `npm run bench backup`), limit memory 256Mi; defrag: requests cpu 50m, memory 96Mi
   * (it peaked at 73–77 MiB), limit memory 256Mi
   */
  readonly resources?: ResourceQuantities;
}

/** Requests and limits as the container takes them. */
export interface JobResources {
  readonly requests: Readonly<Record<string, string>>;
  readonly limits: Readonly<Record<string, string>>;
}

export interface OperatorCronJobProps extends CronScheduleOptions {
  readonly name: string;
  readonly namespace?: string;
  readonly clusterName: string;
  /** Labels the cluster's NetworkPolicy selects the Pods by. */
  readonly component: Component;
  readonly serviceAccountName: string;
  /** The image unless `image` is given: the operator's (`OperatorJobTarget.image`). */
  readonly defaultImage?: string;
  /** Mounted read-only at `CLIENT_CERT_TLS_DIR` (whole Secret, no `subPath`, so renewals reach new Jobs' Pods). */
  readonly clientCertificateSecretName?: string;
  readonly startingDeadlineSeconds: number;
  readonly activeDeadlineSeconds: number;
  readonly backoffLimit: number;
  readonly historyLimit: { readonly successful: number; readonly failed: number };
  /** The resources unless `resources` is given. */
  readonly defaultResources: JobResources;
  /** Labels of the Jobs and their Pods besides the cluster's. @default - none */
  readonly podLabels?: Readonly<Record<string, string>>;
  /** Init containers that run to completion before the rest, as given. @default - none */
  readonly initContainers?: k8s.Container[];
  /**
   * Sidecars (Kubernetes 1.29+: init containers with `restartPolicy: Always`), started after `initContainers` and
   * stopped once the Job's container has ended. @default - none
   */
  readonly sidecars?: k8s.Container[];
  /** Volumes besides `/tmp` and the client certificate. @default - none */
  readonly volumes?: k8s.Volume[];
  readonly container: {
    readonly name: string;
    readonly args: string[];
    /** Mounts besides `/tmp` and the client certificate. @default - none */
    readonly volumeMounts?: k8s.VolumeMount[];
    /** @default - the kubelet's, `/dev/termination-log` */
    readonly terminationMessagePath?: string;
    readonly env?: k8s.EnvVar[];
    readonly envFrom?: k8s.EnvFromSource[];
  };
}

/**
 * A CronJob whose Pod may have sidecars: cdk8s-plus-27's types (Kubernetes 1.27) drop a container's
 * `restartPolicy` when they render, so it is set on the rendered object (a JSON patch would be dropped too).
 */
class KubeCronJobWithSidecars extends k8s.KubeCronJob {
  public constructor(
    scope: Construct,
    id: string,
    props: k8s.KubeCronJobProps,
    private readonly sidecarIndexes: readonly number[],
  ) {
    super(scope, id, props);
  }

  // biome-ignore lint/suspicious/noExplicitAny: cdk8s's own toJson() returns any.
  public override toJson(): any {
    const json = super.toJson();
    const initContainers = json.spec.jobTemplate.spec.template.spec.initContainers;
    for (const index of this.sidecarIndexes) initContainers[index].restartPolicy = 'Always';
    return json;
  }
}

export function operatorCronJob(scope: Construct, id: string, props: OperatorCronJobProps): k8s.KubeCronJob {
  const labels = clusterLabels(props.clusterName, props.component);
  const podLabels = { ...labels, ...props.podLabels };
  const initCount = props.initContainers?.length ?? 0;
  const sidecarIndexes = (props.sidecars ?? []).map((_, i) => initCount + i);
  return new KubeCronJobWithSidecars(
    scope,
    id,
    {
      metadata: {
        name: props.name,
        namespace: props.namespace,
        labels,
        annotations: { [SYNC_WAVE]: SyncWave.CLUSTERS },
      },
      spec: {
        schedule: props.schedule,
        timeZone: props.timeZone === undefined ? undefined : validateTimeZone(props.timeZone),
        suspend: props.suspend ?? false,
        concurrencyPolicy: 'Forbid',
        startingDeadlineSeconds: props.startingDeadlineSeconds,
        successfulJobsHistoryLimit: props.historyLimit.successful,
        failedJobsHistoryLimit: props.historyLimit.failed,
        jobTemplate: {
          metadata: { labels: podLabels },
          spec: {
            backoffLimit: props.backoffLimit,
            activeDeadlineSeconds: props.activeDeadlineSeconds,
            template: { metadata: { labels: podLabels }, spec: podSpec(props) },
          },
        },
      },
    },
    sidecarIndexes,
  );
}

function podSpec(props: OperatorCronJobProps): k8s.PodSpec {
  const { container } = props;
  const resources = props.resources ?? props.defaultResources;
  const env = [
    ...(container.env ?? []),
    ...nodeOptionsEnv(jobNodeOptions(memoryLimitBytes('resources', resources.limits))),
  ];
  const secret = props.clientCertificateSecretName;
  const tlsMounts: k8s.VolumeMount[] = secret
    ? [{ name: CLIENT_CERT_VOLUME, mountPath: CLIENT_CERT_TLS_DIR, readOnly: true }]
    : [];
  const tlsVolumes: k8s.Volume[] = secret
    ? [{ name: CLIENT_CERT_VOLUME, secret: { secretName: secret, defaultMode: CLIENT_CERT_MODE } }]
    : [];
  return {
    serviceAccountName: props.serviceAccountName,
    automountServiceAccountToken: false,
    restartPolicy: 'Never',
    securityContext: restrictedPodSecurityContext(),
    initContainers:
      props.initContainers || props.sidecars
        ? [...(props.initContainers ?? []), ...(props.sidecars ?? [])]
        : undefined,
    containers: [
      {
        name: container.name,
        image: props.image ?? props.defaultImage ?? DEFAULT_OPERATOR_IMAGE,
        imagePullPolicy: 'IfNotPresent',
        command: [OPERATOR_ENTRYPOINT],
        args: container.args,
        terminationMessagePath: container.terminationMessagePath,
        env: env.length > 0 ? env : undefined,
        envFrom: container.envFrom?.length ? container.envFrom : undefined,
        resources: containerResources('resources', resources.requests, resources.limits),
        securityContext: restrictedContainerSecurityContext(),
        volumeMounts: [{ name: 'tmp', mountPath: '/tmp' }, ...tlsMounts, ...(container.volumeMounts ?? [])],
      },
    ],
    volumes: [
      { name: 'tmp', emptyDir: { sizeLimit: k8s.Quantity.fromString('64Mi') } },
      ...tlsVolumes,
      ...(props.volumes ?? []),
    ],
  };
}
