// Restores on the local Kubernetes with real nodes (test/e2e/restore-*.test.ts): our image runs the seed's restore
// and the backup Jobs, the controller runs as a process inside the environment namespace (as on a control-plane
// host, so it reaches MinIO and the members as Pods do), and the EtcdCluster/EtcdRestore objects of one namespace.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import { BatchV1Api, CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { App, Chart } from 'cdk8s';
import type { Etcd3 } from 'etcd3';
import { etcdClusterCrd, etcdRestoreCrd } from '../../../constructs/api/crds.js';
import { DEFAULT_CONTROLLER_NODE_OPTIONS } from '../../../constructs/conventions/limits.js';
import { DEFAULT_OPERATOR_NAMESPACE } from '../../../constructs/conventions/names.js';
import {
  EtcdCluster as EtcdClusterConstruct,
  type EtcdClusterProps,
} from '../../../constructs/etcd-cluster.js';
import { restrictedNamespaceLabels } from '../../../constructs/security.js';
import type { EtcdCluster } from '../../../controller/etcdcluster/api.js';
import type { EtcdRestore } from '../../../controller/etcdrestore/api.js';
import { shippedCli } from '../../../image/shipped-code.js';
import {
  type Environment,
  outsideClusterCidr,
  processPlace,
  startEnvironment,
} from '../../env/environment.js';
import type { Minio } from '../../env/minio.js';
import { type ManagedProcess, startProcess } from '../../env/process-group.js';
import { waitFor } from '../../env/wait.js';
import { createBucket, minioClient } from './backup-cli.js';

export interface ControllerProcessOptions {
  /** Process name and log file name. */
  readonly name: string;
  /** Directory for the log file. */
  readonly dir: string;
  /** The only namespace it watches. */
  readonly namespace: string;
  /** Extra environment, e.g. the test-only crash switches. */
  readonly env?: Record<string, string>;
  /**
   * The Node.js binary it runs on; the restore bench passes the image's (image/node-runtime.ts). @default this
   * process's (`process.execPath`)
   */
  readonly node?: string;
}

/** `etcd-gitops controller` (the shipped bundle, image/shipped-code.ts) against the environment, inside its network namespace, as
 *  the shipped ServiceAccount under the shipped RBAC (env.controller), without leader election, probes or metrics. The caller stops it (`stop()`), also when a test fails. */
export function startControllerProcess(env: Environment, options: ControllerProcessOptions): ManagedProcess {
  const inside = processPlace(env);
  return startProcess({
    netns: inside.netns,
    name: options.name,
    command: options.node ?? process.execPath,
    args: [
      shippedCli,
      'controller',
      `--watch-namespaces=${options.namespace}`,
      '--metrics-bind-address=0',
      '--health-probe-bind-address=0',
      '--log-level=info',
      '--shutdown-timeout=5s',
    ],
    env: {
      ...inside.env,
      KUBECONFIG: env.controller.kubeconfigPath,
      // The heap cap the shipped Deployment gives the controller.
      NODE_OPTIONS: DEFAULT_CONTROLLER_NODE_OPTIONS,
      ...options.env,
    },
    logPath: join(options.dir, `${options.name}.log`),
  });
}

export { whileRunning } from '../../env/process-group.js';

/** A step of the EtcdRestore reconciler (`restore`) or of the membership reconciler (`membership`) to die after. */
export type CrashAfter = { readonly restore: string } | { readonly membership: string };

/** Controller processes that may carry the test-only crash switches, for the crash tests of restores. */
export interface CrashableControllers {
  /** A controller that SIGKILLs itself right after `crashAfter`, or runs on without a switch. */
  start(crashAfter?: CrashAfter): ManagedProcess;
  /** Waits for `controller` to kill itself; fails with its log when it exits any other way. */
  crashed(controller: ManagedProcess): Promise<void>;
  /** Stops every controller started here. */
  stopAll(): Promise<void>;
  /** The controllers started so far, in order. */
  readonly started: readonly ManagedProcess[];
}

export function crashableControllers(
  env: Environment,
  options: { readonly dir: string; readonly namespace: string },
): CrashableControllers {
  const controllers: ManagedProcess[] = [];
  return {
    start(crashAfter) {
      const step = crashAfter && ('restore' in crashAfter ? crashAfter.restore : crashAfter.membership);
      const variable =
        crashAfter && 'restore' in crashAfter
          ? 'ETCD_GITOPS_TEST_RESTORE_CRASH_AFTER'
          : 'ETCD_GITOPS_TEST_CRASH_AFTER';
      const controller = startControllerProcess(env, {
        name: `controller-${controllers.length + 1}${step ? `-crash-after-${step}` : ''}`,
        dir: options.dir,
        namespace: options.namespace,
        env: step ? { [variable]: step } : {},
      });
      controllers.push(controller);
      return controller;
    },
    async crashed(controller) {
      await waitFor(() => controller.exitStatus(), {
        what: `${controller.name} to kill itself`,
        timeoutMs: 120_000,
        intervalMs: 250,
      });
      const exit = await controller.exited;
      if (exit.signal !== 'SIGKILL' || exit.code !== null) {
        throw new Error(`${controller.name} exited with ${JSON.stringify(exit)}:\n${controller.logTail(30)}`);
      }
    },
    stopAll: () => Promise.all(controllers.map((controller) => controller.stop(5_000))).then(() => undefined),
    started: controllers,
  };
}

const group = { group: 'etcd.gitops.dev', version: 'v1alpha1' };

/** The EtcdCluster and EtcdRestore objects of one namespace. */
export function restoreObjects(env: Environment, namespace: string) {
  const custom = () => env.kubeConfig.makeApiClient(CustomObjectsApi);
  const readCluster = async (name: string) =>
    (await custom().getNamespacedCustomObject({
      ...group,
      plural: 'etcdclusters',
      namespace,
      name,
    })) as EtcdCluster;
  const readRestore = async (name: string) =>
    (await custom().getNamespacedCustomObject({
      ...group,
      plural: 'etcdrestores',
      namespace,
      name,
    })) as EtcdRestore;
  return {
    readCluster,
    readRestore,
    async createRestore(name: string, spec: EtcdRestore['spec']): Promise<EtcdRestore> {
      return (await custom().createNamespacedCustomObject({
        ...group,
        plural: 'etcdrestores',
        namespace,
        body: { apiVersion: 'etcd.gitops.dev/v1alpha1', kind: 'EtcdRestore', metadata: { name }, spec },
      })) as EtcdRestore;
    },
    /** Waits until the cluster is Ready with `size` ready voting members; returns its status. */
    readyAt(name: string, size: number, abortIf?: () => string | undefined) {
      return waitFor(
        async () => {
          const status = (await readCluster(name)).status;
          const ready = status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
          return ready && status?.readyMembers === size && status?.replicas === size && status;
        },
        { what: `cluster ${name} Ready with ${size} members`, timeoutMs: 240_000, intervalMs: 500, abortIf },
      );
    },
    /** Waits for the restore's phase; returns the restore. */
    phase(name: string, phase: string, abortIf?: () => string | undefined, timeoutMs = 300_000) {
      return waitFor(
        async () => {
          const restore = await readRestore(name);
          return restore.status?.phase === phase && restore;
        },
        { what: `EtcdRestore ${name} ${phase}`, timeoutMs, intervalMs: 1_000, abortIf },
      );
    },
    /** Events about `object` (name), newest last. */
    async events(object: string) {
      const list = await env.kubeConfig
        .makeApiClient(CoreV1Api)
        .listNamespacedEvent({ namespace, fieldSelector: `involvedObject.name=${object}` });
      return list.items;
    },
  };
}

export interface ClusterAppOptions {
  readonly namespace: string;
  readonly name: string;
  readonly version: string;
  readonly size: number;
  readonly bucket: string;
  /** Its `podEndpoint` is where the backup Jobs and the seed's restore reach it. */
  readonly minio: Pick<Minio, 'podEndpoint'>;
  /** Secret with the MinIO credentials. */
  readonly credentialsSecretName: string;
  /** `spec.bootstrap.backup`. @default - none */
  readonly bootstrapFromBackup?: EtcdClusterProps['bootstrapFromBackup'];
  /** `spec.tls` (the backup CronJob then uses the client certificate). @default - none */
  readonly tls?: EtcdClusterProps['tls'];
  /** More of the construct's props (e.g. failure detection, quota, compaction). @default - none */
  readonly props?: Partial<EtcdClusterProps>;
  /** Also `addDefragSchedule()`, suspended (run by `kubectl create job --from=cronjob/<name>-defrag`). @default false */
  readonly defragSchedule?: boolean;
}

/** The user's cdk8s app, synthesized: an EtcdCluster (CR, Services, PDB, NetworkPolicy, RBAC) and its backup
 *  CronJob `<name>-backup` to MinIO, suspended (backups run by `backupNow`, i.e. `kubectl create job --from`). */
export function clusterApp(options: ClusterAppOptions): string {
  return clusterChart(options).app.synthYaml();
}

/** The objects of {@link clusterApp}, as JSON manifests. */
export function clusterManifests(options: ClusterAppOptions): Record<string, unknown>[] {
  return clusterChart(options).chart.toJson() as Record<string, unknown>[];
}

function clusterChart(options: ClusterAppOptions): { app: App; chart: Chart } {
  const app = new App();
  const chart = new Chart(app, options.name, { namespace: options.namespace });
  const cluster = new EtcdClusterConstruct(chart, options.name, {
    version: options.version,
    size: options.size,
    // The controller runs in the test process, not from an EtcdOperator of this app: name its namespace, and admit
    // the process by address, as a user running a controller or client outside Kubernetes must
    // (test/env/nodes/layout.ts, outsideClusterCidr).
    operatorNamespace: DEFAULT_OPERATOR_NAMESPACE,
    clients: [{ ipBlock: { cidr: outsideClusterCidr } }],
    ...(options.bootstrapFromBackup ? { bootstrapFromBackup: options.bootstrapFromBackup } : {}),
    ...(options.tls ? { tls: options.tls } : {}),
    ...options.props,
  });
  if (options.defragSchedule) cluster.addDefragSchedule({ suspend: true });
  cluster.addBackupSchedule({
    schedule: '0 0 1 1 *',
    suspend: true,
    bucket: options.bucket,
    endpoint: options.minio.podEndpoint,
    forcePathStyle: true,
    credentialsSecretName: options.credentialsSecretName,
    backoffLimit: 0,
  });
  return { app, chart };
}

/** The Secret our backup and restore Jobs read S3 credentials from (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY): MinIO's. */
export async function createS3Secret(
  env: Environment,
  namespace: string,
  name: string,
  minio: Pick<Minio, 'accessKey' | 'secretKey'>,
): Promise<void> {
  await env.kubectl([
    'create',
    'secret',
    'generic',
    name,
    '-n',
    namespace,
    `--from-literal=AWS_ACCESS_KEY_ID=${minio.accessKey}`,
    `--from-literal=AWS_SECRET_ACCESS_KEY=${minio.secretKey}`,
  ]);
}

/** What `backup save` wrote on its result line (stdout: one JSON object with the key and the revision, among the
 *  JSON log lines of stderr) in a backup Pod's log; throws, quoting the log, when no line has both. */
export function backupResult(log: string): { readonly key: string; readonly revision: string } {
  const result = log
    .split('\n')
    .flatMap((line) => {
      try {
        const parsed = JSON.parse(line.slice(line.indexOf('{'))) as { key?: unknown; revision?: unknown };
        return typeof parsed.key === 'string' && typeof parsed.revision === 'string'
          ? [{ key: parsed.key, revision: parsed.revision }]
          : [];
      } catch {
        return [];
      }
    })
    .at(-1);
  if (!result) throw new Error(`no result line with a key and a revision in the backup's log:\n${log}`);
  return result;
}

/** `kubectl create job --from=cronjob/<cronJob> <job>` and waits for it to complete; throws with the Pod log when
 *  it fails. Returns the Pod log. */
export async function backupNow(
  env: Environment,
  namespace: string,
  cronJob: string,
  job: string,
): Promise<string> {
  await env.kubectl(['create', 'job', `--from=cronjob/${cronJob}`, job, '-n', namespace]);
  const podLog = async () => {
    const pods = await env.kubeConfig
      .makeApiClient(CoreV1Api)
      .listNamespacedPod({ namespace, labelSelector: `job-name=${job}` });
    const logs = await Promise.all(
      pods.items.map((pod) =>
        env.kubectl(['logs', '-n', namespace, pod.metadata?.name as string], { allowFailure: true }),
      ),
    );
    return logs.map((l) => `${l.stdout}${l.stderr}`).join('\n');
  };
  const outcome = await waitFor(
    async () => {
      const status = (
        await env.kubeConfig.makeApiClient(BatchV1Api).readNamespacedJob({ namespace, name: job })
      ).status;
      return status?.conditions?.find(
        (c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True',
      )?.type;
    },
    { what: `backup Job ${job} to finish`, timeoutMs: 120_000, intervalMs: 1_000 },
  );
  const log = await podLog();
  if (outcome !== 'Complete') throw new Error(`backup Job ${job} failed:\n${log}`);
  return log;
}

/** The local Kubernetes of a restore test, torn down by `stop()`. */
export interface RestoreTestbed {
  readonly env: Environment;
  readonly s3: S3Client;
  readonly bucket: string;
  /** A temporary directory of the test's own (controller logs, the image's tools), removed by `stop()`. */
  readonly dir: string;
  /** Applies {@link clusterApp} in the testbed's namespace, backing up to its bucket with its Secret `s3`. */
  applyCluster(options: TestbedClusterOptions): Promise<void>;
  stop(): Promise<void>;
}

/** What a test chooses of {@link clusterApp}; the testbed gives the rest. */
export type TestbedClusterOptions = Omit<
  ClusterAppOptions,
  'namespace' | 'bucket' | 'minio' | 'credentialsSecretName'
>;

/**
 * The local Kubernetes with three real nodes and MinIO, a bucket
 * `<name>`, both CRDs Established, and namespace `ns` holding the S3 credentials Secret `s3`.
 */
export async function startRestoreTestbed(name: string, ns: string): Promise<RestoreTestbed> {
  const dir = await mkdtemp(join(tmpdir(), `etcd-gitops-${name}-`));
  let env: Environment | undefined;
  let s3: S3Client | undefined;
  const stop = async () => {
    s3?.destroy();
    await env?.stop();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    env = await startEnvironment({ nodes: 3, minio: true });
    const minio = env.minio as Minio;
    s3 = minioClient(minio);
    const bucket = await createBucket(s3, name);
    for (const crd of [etcdClusterCrd(), etcdRestoreCrd()]) {
      await env.kubectl(['apply', '--server-side', '-f', '-'], { input: JSON.stringify(crd) });
      await env.kubectl(['wait', '--for=condition=Established', `crd/${crd.metadata.name}`, '--timeout=60s']);
    }
    await env.createNamespace(ns, restrictedNamespaceLabels());
    await createS3Secret(env, ns, 's3', minio);
    const started = env;
    const applyCluster = async (options: TestbedClusterOptions) => {
      const input = clusterApp({ ...options, namespace: ns, bucket, minio, credentialsSecretName: 's3' });
      await started.kubectl(['apply', '--server-side', '-f', '-'], { input });
    };
    return { env, s3, bucket, dir, applyCluster, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Waits until etcd answers at `client`'s endpoint: a client Service gets its endpoints a moment after its members
 *  are Ready. */
export async function untilAnswering(client: Etcd3, url: string): Promise<void> {
  await waitFor(
    () =>
      client
        .get('none')
        .string()
        .then(() => true),
    { what: `${url} to answer` },
  );
}
