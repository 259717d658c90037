// The soak's world (docs/design/soak.md, "The executor"): the local Kubernetes with real nodes and MinIO,
// cert-manager, both CRDs, the controller as its own process under the shipped RBAC, and the two clusters from the
// constructs (`plain`, and `tls` with client and peer TLS issued by cert-manager), each with a backup CronJob, a
// writer that records every acknowledged write and a watcher that records every event.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import { CoreV1Api } from '@kubernetes/client-node';
import type { Etcd3 } from 'etcd3';
import { etcdClusterCrd, etcdRestoreCrd } from '../../constructs/api/crds.js';
import { clientServiceURL } from '../../constructs/conventions/names.js';
import { restrictedNamespaceLabels } from '../../constructs/security.js';
import { type ClientTls, type ConnectOptions, connect, withClient } from '../../controller/etcd/client.js';
import { type CertManager, startCertManager } from '../env/cert-manager.js';
import { type Environment, startEnvironment } from '../env/environment.js';
import type { Minio } from '../env/minio.js';
import { createBucket, minioClient } from '../integration/helpers/backup-cli.js';
import {
  type ControllerProcesses,
  type ControllerRun,
  controllerProcesses,
} from '../integration/helpers/membership-controller.js';
import {
  clusterManifests,
  createS3Secret,
  restoreObjects,
  untilAnswering,
} from '../integration/helpers/restore-kube.js';
import type { BackupTaken } from './backups.js';
import { SOAK_CLUSTERS, type SoakCluster } from './plan.js';
import type { RunbookStep } from './runbook.js';
import { type SoakWatcher, startWatcher } from './watcher.js';
import { type SoakWriter, startWriter } from './writer.js';
import { WriteRecord } from './writes.js';

/** The namespace of both soak clusters. */
export const SOAK_NAMESPACE = 'soak';
/** Where the writers write: `<prefix><writer generation>/<n>`. */
export const SOAK_PREFIX = 'soak/';
/** `quotaBackendBytes` of the soak clusters: a fill reaches it in seconds. */
export const SOAK_QUOTA_BYTES = 128 * 2 ** 20;
/** Per-call deadline of the soak's own etcd clients (writer, watcher resyncs, checks). */
const CALL_TIMEOUT_MS = 5_000;
/**
 * Every soak client has a connection of its own: with gRPC's shared one, a connection through the Service to a
 * member on a node just cut off hung, and every new client of the checks reused it for a minute (seed 3, step 69).
 */
const OWN: ConnectOptions = { ownConnection: true };

export interface SoakWorldOptions {
  /** Worker nodes. */
  readonly nodes: number;
  readonly initialSize: number;
  /** The version each cluster starts at. */
  readonly version: string;
}

/** One cluster under soak, with what the soak knows of it. */
export interface SoakClusterState {
  readonly name: SoakCluster;
  readonly url: string;
  readonly tls?: ClientTls;
  /** `spec.size` as the soak last set it. */
  size: number;
  /** `spec.size` when the cluster last converged (a scale in flight may still have that many voters). */
  sizeBefore: number;
  /** Set while the cluster is paused. */
  paused: boolean;
  readonly record: WriteRecord;
  /** Backups the soak saw complete, oldest first, each with the write history it copied. */
  readonly backups: (BackupTaken & { readonly history: number })[];
  /** Keys of the listed backups the restore drill has restored (drill.ts): each is drilled once. */
  readonly drilled: Set<string>;
  /** The soak's client (checks; the writer has its own). */
  client: Etcd3;
  writer?: SoakWriter;
  watcher?: SoakWatcher;
  /** Writer generations so far: each writes under its own prefix, so each key is put once. */
  generation: number;
}

export interface SoakWorld {
  readonly env: Environment;
  readonly minio: Minio;
  readonly s3: S3Client;
  readonly bucket: string;
  readonly dir: string;
  readonly controllers: ControllerProcesses;
  /** The controller process running now (a killed one is replaced, as its Deployment would). */
  controller: ControllerRun;
  /** The plan's node `n` is `nodeNames[n - 1]` (a replaced node gets the new node's name). */
  readonly nodeNames: string[];
  /** Plan node numbers whose stop or cut was not done (the node held a cluster's majority): their undo is none. */
  readonly faultsNotDone: Set<number>;
  /** Plan node numbers the soak has stopped or cut off now (their members answer no one). */
  readonly nodesOut: Set<number>;
  /** What the soak did as the user when the product asked the user to act (runbook.ts), in order. */
  readonly runbook: RunbookStep[];
  readonly clusters: Record<SoakCluster, SoakClusterState>;
  /** A new etcd client of a cluster or one of its members (the caller closes it). */
  connect(endpoint: { readonly url: string; readonly tls?: ClientTls }): Etcd3;
  /** Runs `call` with a new client (controller/etcd/client.ts `withClient`) and always closes it. */
  withClient<T>(
    endpoint: { readonly url: string; readonly tls?: ClientTls },
    call: (client: Etcd3) => Promise<T>,
  ): Promise<T>;
  /** Starts the cluster's writer (a new generation) and its watcher, or resumes the watcher on a new client. */
  startTraffic(cluster: SoakClusterState): Promise<void>;
  /** Stops the cluster's writer after its put in flight; the watcher goes on. */
  stopWriter(cluster: SoakClusterState): Promise<void>;
  stop(): Promise<void>;
}

/** The PEM files cert-manager wrote into a TLS Secret, as an etcd client presents them. */
async function issuedClientTls(env: Environment, secret: string): Promise<ClientTls> {
  const data =
    (
      await env.kubeConfig
        .makeApiClient(CoreV1Api)
        .readNamespacedSecret({ name: secret, namespace: SOAK_NAMESPACE })
    ).data ?? {};
  const pem = (key: string) => Buffer.from(data[key] ?? '', 'base64');
  return { rootCertificate: pem('ca.crt'), certChain: pem('tls.crt'), privateKey: pem('tls.key') };
}

export async function startSoakWorld(options: SoakWorldOptions): Promise<SoakWorld> {
  const dir = await mkdtemp(join(tmpdir(), 'etcd-gitops-soak-'));
  const stops: (() => Promise<void>)[] = [() => rm(dir, { recursive: true, force: true })];
  const stop = async () => {
    for (const step of stops.reverse()) await step().catch(() => undefined);
  };
  try {
    const env = await startEnvironment({ nodes: options.nodes, minio: true });
    stops.push(() => env.stop());
    const minio = env.minio as Minio;
    const s3 = minioClient(minio);
    stops.push(async () => s3.destroy());
    const bucket = await createBucket(s3, 'soak');
    for (const crd of [etcdClusterCrd(), etcdRestoreCrd()]) {
      await env.kubectl(['apply', '--server-side', '-f', '-'], { input: JSON.stringify(crd) });
      await env.kubectl(['wait', '--for=condition=Established', `crd/${crd.metadata.name}`, '--timeout=60s']);
    }
    await env.createNamespace(SOAK_NAMESPACE, restrictedNamespaceLabels());
    await createS3Secret(env, SOAK_NAMESPACE, 's3', minio);
    const certManager: CertManager = await startCertManager(env, dir);
    stops.push(() => certManager.stop());
    // Inside the environment's namespace, as in a Pod: an EtcdRestore names MinIO at its Pod address, which the
    // controller reaches there (from this machine it is not routed: the request would leave it).
    const controllers = await controllerProcesses(env, { namespaces: [SOAK_NAMESPACE], inside: true });
    stops.push(() => controllers.stop());
    const controller = await controllers.start();

    const manifests = SOAK_CLUSTERS.flatMap((name) =>
      clusterManifests({
        namespace: SOAK_NAMESPACE,
        name,
        version: options.version,
        size: options.initialSize,
        bucket,
        minio,
        credentialsSecretName: 's3',
        props: {
          // Bounds tuned for a soak, as the node-loss e2e has them: a dead node's member is replaced within a step.
          failureDetection: { nodeNotReady: '20s', podStuck: '60s' },
          // A removed member's volume goes with it, so the volumes name exactly the members once a step converged.
          pvcRetentionPolicy: { whenScaled: 'Delete' },
          // A quota a fill reaches in seconds, and history etcd compacts by itself, so a defrag frees space.
          quotaBackendBytes: SOAK_QUOTA_BYTES,
          autoCompaction: { mode: 'periodic', retention: '20s' },
        },
        defragSchedule: true,
        ...(name === 'tls' ? { tls: { client: { certManager: true }, peer: { certManager: true } } } : {}),
      }),
    );
    await env.kubectl(['apply', '--server-side', '-f', '-'], {
      input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: manifests }),
    });
    await certManager.ready(
      SOAK_NAMESPACE,
      manifests.filter((m) => m.kind === 'Certificate').map((m) => (m.metadata as { name: string }).name),
    );

    const endpointOf = (cluster: { readonly url: string; readonly tls?: ClientTls }) =>
      cluster.tls ? { url: cluster.url, tls: cluster.tls } : cluster.url;
    const connectTo = (cluster: { readonly url: string; readonly tls?: ClientTls }) =>
      connect(endpointOf(cluster), CALL_TIMEOUT_MS, OWN);
    const state = async (name: SoakCluster): Promise<SoakClusterState> => {
      const tls = name === 'tls' ? await issuedClientTls(env, `${name}-client-tls`) : undefined;
      const url = clientServiceURL(name, SOAK_NAMESPACE, tls ? 'https' : 'http');
      const cluster = { url, ...(tls ? { tls } : {}) };
      return {
        name,
        ...cluster,
        size: options.initialSize,
        sizeBefore: options.initialSize,
        paused: false,
        record: new WriteRecord(),
        backups: [],
        drilled: new Set(),
        client: connectTo(cluster),
        generation: 0,
      };
    };
    const clusters = { plain: await state('plain'), tls: await state('tls') };
    stops.push(async () => {
      for (const cluster of Object.values(clusters)) {
        await cluster.writer?.stop();
        await cluster.watcher?.stop();
        cluster.client.close();
      }
    });

    const world: SoakWorld = {
      env,
      minio,
      s3,
      bucket,
      dir,
      controllers,
      controller,
      nodeNames: (env.nodes?.nodes ?? []).map((node) => node.layout.name),
      faultsNotDone: new Set(),
      nodesOut: new Set(),
      runbook: [],
      clusters,
      connect: connectTo,
      withClient: (endpoint, call) => withClient(endpointOf(endpoint), call, CALL_TIMEOUT_MS, OWN),
      async startTraffic(cluster) {
        cluster.generation += 1;
        const writerClient = connectTo(cluster);
        const writer = startWriter(writerClient, `${SOAK_PREFIX}${cluster.generation}/`, cluster.record);
        cluster.writer = {
          counts: () => writer.counts(),
          async stop() {
            await writer.stop();
            writerClient.close();
          },
        };
        // A new client for the watcher each time, with a connection of its own: one through the Service to a member
        // that has since died hangs.
        const previous = cluster.client;
        cluster.client = connectTo(cluster);
        if (cluster.watcher) await cluster.watcher.resume(cluster.client);
        else cluster.watcher = await startWatcher(cluster.client, SOAK_PREFIX);
        previous.close();
      },
      async stopWriter(cluster) {
        await cluster.writer?.stop();
        cluster.writer = undefined;
      },
      stop,
    };
    for (const cluster of Object.values(clusters)) {
      await restoreObjects(env, SOAK_NAMESPACE).readyAt(cluster.name, cluster.size);
      await untilAnswering(cluster.client, cluster.url);
      await world.startTraffic(cluster);
    }
    return world;
  } catch (error) {
    await stop();
    throw error;
  }
}
