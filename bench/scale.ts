// How costs grow, on the real nodes. First, bootstrap time by size: a new EtcdCluster of size 1, 3, 5 and 7 applied
// alone until Ready (3 runs each, median with min and max), then deleted; after the last, that controller's RSS at rest
// with no cluster left (what 12 clusters created and deleted leave resident). Then, in a new controller process, the
// controller with 1, then 10, then 50 EtcdClusters Ready at once (size 1, small members). Each controller process runs
// as the shipped ServiceAccount with the shipped NODE_OPTIONS (heap cap) and V8 flags, from the bundle the image
// ships, on the Node.js the image ships (image/node-runtime.ts; the import floor too). Per stage: the seconds from
// applying the stage's new clusters (one server-side apply, as a Git sync does) until all are Ready; then, after a
// settle, a rest window in which nothing changes (60 s; for 50 clusters 5.5 min, every cluster's periodic fresh read
// in it): the controller's peak RSS (its own process_resident_memory_bytes, every 5 s, and the part of it mapped
// from files, from /proc/<pid>/status), reconcile latency p99 (its histogram, between scrapes; the bucket
// bound) over the whole stage and over the rest, and the API requests it made at rest, counted by the API server
// (an audit log of the controller's user only); at the end the higher of the two processes' peak RSS (VmHWM). JSON
// in bench/results/scale.json. `npm run bench scale`.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CustomObjectsApi } from '@kubernetes/client-node';
import { API_GROUP_VERSION, ETCD_CLUSTER_RESOURCE } from '../constructs/conventions/index.js';
import { DEFAULT_CONTROLLER_NODE_OPTIONS } from '../constructs/conventions/limits.js';
import type { EtcdCluster } from '../controller/etcdcluster/api.js';
import { REQUEUE } from '../controller/etcdcluster/plan.js';
import { DEFAULT_RESYNC_PERIOD_MS } from '../controller/runtime/flags.js';
import { CONTROLLER_V8_FLAGS } from '../controller/runtime/v8-flags.js';
import { nodeRuntime } from '../image/node-runtime.js';
import {
  AUDIT_LAG_MS,
  countRequests,
  type RequestCount,
  untilNoRequestsButWatches,
} from '../test/env/audit-log.js';
import { etcdVersions } from '../test/env/binaries.js';
import { CONTROLLER_USERNAME } from '../test/env/controller-identity.js';
import { type Environment, startEnvironment } from '../test/env/environment.js';
import { httpGet } from '../test/env/http-get.js';
import { waitFor } from '../test/env/wait.js';
import {
  type ControllerRun,
  controllerProcesses,
} from '../test/integration/helpers/membership-controller.js';
import { createClusterHandle, prepareNamespace } from '../test/integration/helpers/membership-kube.js';
import { importFloor } from './import-floor.js';
import { POLL_MS, removeCluster } from './membership-pods.js';
import { processMiB } from './proc-status.js';
import { type Buckets, parseBuckets, quantileBound } from './scale-stats.js';
import { median, timed } from './stats.js';

const results = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bench', 'results');
const ns = 'bench-scale';
const version = etcdVersions['3.6'];
/** Clusters Ready at once, per stage (each stage adds to the last). */
const STAGES = [1, 10, 50];
/**
 * After all are Ready, before the rest window: this long without a request of the controller but watches (the last
 * status writes and the fresh passes that find each cluster at rest after them are behind). A fixed 15 s let the
 * last of 50 clusters' fresh passes fall into the window (5 of them on 2026-11-27).
 */
const SETTLE_QUIET_MS = REQUEUE.steady + 5_000;
const SETTLE_TIMEOUT_MS = 5 * 60_000;
/**
 * Two steady requeues of every cluster (REQUEUE.steady); for the last stage (50 clusters) one whole resync period
 * and a steady requeue more, so every cluster's periodic fresh read (docs/design/controller-runtime.md, "Fresh passes
 * and quiet passes") falls in the window and its p99 counts them.
 */
const restMs = (stage: number) =>
  stage === STAGES.at(-1) ? DEFAULT_RESYNC_PERIOD_MS + REQUEUE.steady : 2 * REQUEUE.steady;
const RSS_EVERY_MS = 5_000;
const READY_TIMEOUT_MS = 15 * 60_000;
const HISTOGRAM = 'etcd_gitops_reconcile_duration_seconds';
const BOOTSTRAP_SIZES = [1, 3, 5, 7];
const BOOTSTRAP_RUNS = 3;

export interface BootstrapRow {
  readonly size: number;
  readonly runs: number;
  /** Seconds from `kubectl apply` of the new cluster until Ready with `size` voting members. */
  readonly seconds: number;
  readonly minSeconds: number;
  readonly maxSeconds: number;
}

/** The bootstrap rows' controller at rest after them, every cluster it created deleted. */
export interface AfterBootstrap {
  /** Clusters created, made Ready and deleted by the bootstrap rows. */
  readonly clustersCreatedAndDeleted: number;
  /** Highest RSS and V8 heap in use sampled over `restSeconds` once it made no request but watches. */
  readonly restPeakRssMiB: number;
  readonly restPeakHeapUsedMiB: number;
  /** Highest RssFile sampled with them: the part mapped from files (the node binary). Absent before 2026-12-05. */
  readonly restPeakRssFileMiB?: number;
  /**
   * RSS and its part mapped from files in the last sample of the window: what the quiet left (V8 gives a burst's
   * heap back only after a collection, which may come in the window or not). Absent in runs before 2026-12-05, 04:48.
   */
  readonly restEndRssMiB?: number;
  readonly restEndRssFileMiB?: number;
  readonly restSeconds: number;
}

export interface ScaleRow {
  readonly clusters: number;
  /** Seconds from applying this stage's new clusters until every cluster was Ready. */
  readonly readySeconds: number;
  /** Seconds from all Ready until the rest window started (`SETTLE_QUIET_MS` without a request but watches). */
  readonly settledSeconds: number;
  /** Highest controller RSS sampled in the rest window. */
  readonly restPeakRssMiB: number;
  /** Highest V8 heap in use sampled in the rest window (`nodejs_heap_size_used_bytes`). */
  readonly restPeakHeapUsedMiB: number;
  /** Highest RssFile sampled in the rest window (/proc/<pid>/status): the part of the RSS mapped from files. Absent
   *  before 2026-12-05. */
  readonly restPeakRssFileMiB?: number;
  /** Upper bound of the bucket holding p99 of the EtcdCluster reconcile passes of the whole stage / of the rest. */
  readonly reconcileP99Seconds: number | null;
  readonly restReconcileP99Seconds: number | null;
  readonly restReconciles: number;
  /** API requests the controller completed in the rest window (audit log), per second and by verb. */
  readonly restApiRequestsPerSecond: number;
  readonly restApiRequests: RequestCount;
  readonly restSeconds: number;
}

/** Each size applied alone, Ready, then deleted (with its PVCs) before the next. */
async function bootstrapRows(env: Environment): Promise<BootstrapRow[]> {
  const rows: BootstrapRow[] = [];
  for (const size of BOOTSTRAP_SIZES) {
    const seconds: number[] = [];
    for (let run = 0; run < BOOTSTRAP_RUNS; run += 1) {
      const cluster = await createClusterHandle(env, ns, `boot${size}-${run}`);
      const ms = await timed(async () => {
        await cluster.apply({
          version,
          size,
          persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Delete', whenScaled: 'Delete' },
        });
        await cluster.readyAt(size, READY_TIMEOUT_MS, POLL_MS);
      });
      seconds.push(ms / 1000);
      await removeCluster(env, ns, cluster.name);
    }
    rows.push({
      size,
      runs: BOOTSTRAP_RUNS,
      seconds: median(seconds),
      minSeconds: Math.min(...seconds),
      maxSeconds: Math.max(...seconds),
    });
    console.log(JSON.stringify(rows.at(-1)));
  }
  return rows;
}

function clusterManifest(name: string): string {
  return JSON.stringify({
    apiVersion: API_GROUP_VERSION,
    kind: 'EtcdCluster',
    metadata: { name, namespace: ns },
    spec: {
      version,
      size: 1,
      resources: { requests: { cpu: '10m', memory: '48Mi' } },
      persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Delete', whenScaled: 'Delete' },
    },
  });
}

const isReady = (cluster: EtcdCluster) =>
  cluster.status?.conditions?.find((condition) => condition.type === 'Ready')?.status === 'True' &&
  cluster.status.replicas === 1 &&
  cluster.status.members?.length === 1 &&
  cluster.status.members.every((member) => member.ready && !member.learner);

interface Scrape {
  readonly buckets: Buckets;
  readonly rssMiB: number;
  readonly heapUsedMiB: number;
  readonly rssFileMiB: number;
}

async function scrape(run: ControllerRun): Promise<Scrape> {
  const rssFileMiB = processMiB(run.process.pid, 'RssFile');
  const text = (await httpGet(run.metricsURL)).body;
  const gauge = (name: string) => {
    const value = new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1];
    if (value === undefined) throw new Error(`the controller /metrics has no ${name}`);
    return Number(value) / 2 ** 20;
  };
  return {
    buckets: parseBuckets(text, HISTOGRAM, { controller: 'etcdcluster' }),
    rssMiB: gauge('process_resident_memory_bytes'),
    heapUsedMiB: gauge('nodejs_heap_size_used_bytes'),
    rssFileMiB,
  };
}

/** The highest RSS, heap in use and file-mapped RSS of `run`, sampled every RSS_EVERY_MS for `ms` from `start`. */
async function restPeaks(
  run: ControllerRun,
  start: Scrape,
  ms: number,
): Promise<{ rssMiB: number; heapUsedMiB: number; rssFileMiB: number; end: Scrape }> {
  const from = Date.now();
  const samples = [start];
  while (Date.now() - from < ms) {
    await sleep(RSS_EVERY_MS);
    samples.push(await scrape(run));
  }
  const end = await scrape(run);
  samples.push(end);
  const peak = (of: (sample: Scrape) => number) => Math.max(...samples.map(of));
  return {
    rssMiB: peak((sample) => sample.rssMiB),
    heapUsedMiB: peak((sample) => sample.heapUsedMiB),
    rssFileMiB: peak((sample) => sample.rssFileMiB),
    end,
  };
}

/** The controller process's peak resident set over its whole life (VmHWM). */
function lifetimePeakRssMiB(run: ControllerRun): number {
  return processMiB(run.process.pid as number, 'VmHWM');
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function run(): Promise<void> {
  // Before any cluster runs, so nothing else shares the machine with these processes.
  const runtime = await nodeRuntime();
  const floor = await importFloor(DEFAULT_CONTROLLER_NODE_OPTIONS, CONTROLLER_V8_FLAGS, {
    path: runtime.node,
    version: runtime.version,
  });
  const env = await startEnvironment({ nodes: 3, auditController: true });
  const controllers = await controllerProcesses(env, { namespaces: [ns], node: runtime.node });
  const auditLog = env.controlPlane.auditLogPath;
  const rows: ScaleRow[] = [];
  let bootstrap: BootstrapRow[] = [];
  let afterBootstrap: AfterBootstrap | undefined;
  let peakRssMiB = Number.NaN;
  try {
    if (!auditLog) throw new Error('the environment keeps no audit log');
    await prepareNamespace(env, ns);
    const bootController = await controllers.start();
    bootstrap = await bootstrapRows(env);
    await untilNoRequestsButWatches(auditLog, CONTROLLER_USERNAME, {
      quietMs: SETTLE_QUIET_MS,
      timeoutMs: SETTLE_TIMEOUT_MS,
      what: 'the bootstrap controller at rest',
    });
    const bootRestMs = restMs(STAGES[0] as number);
    const bootRest = await restPeaks(bootController, await scrape(bootController), bootRestMs);
    afterBootstrap = {
      clustersCreatedAndDeleted: BOOTSTRAP_SIZES.length * BOOTSTRAP_RUNS,
      restPeakRssMiB: bootRest.rssMiB,
      restPeakHeapUsedMiB: bootRest.heapUsedMiB,
      restPeakRssFileMiB: bootRest.rssFileMiB,
      restEndRssMiB: bootRest.end.rssMiB,
      restEndRssFileMiB: bootRest.end.rssFileMiB,
      restSeconds: bootRestMs / 1000,
    };
    console.log(JSON.stringify({ afterBootstrap }));
    const bootPeakRssMiB = lifetimePeakRssMiB(bootController);
    await bootController.process.stop();
    // The stages in a controller that starts with no cluster: what it holds at rest is theirs, not the churn's.
    const controller = await controllers.start();
    const custom = env.kubeConfig.makeApiClient(CustomObjectsApi);
    const listClusters = async () =>
      (
        (await custom.listNamespacedCustomObject({
          group: ETCD_CLUSTER_RESOURCE.group,
          version: ETCD_CLUSTER_RESOURCE.version,
          plural: ETCD_CLUSTER_RESOURCE.plural,
          namespace: ns,
        })) as { items: EtcdCluster[] }
      ).items;
    let created = 0;
    for (const target of STAGES) {
      const names = Array.from({ length: target - created }, (_, i) => `s${created + i}`);
      for (const name of names) await createClusterHandle(env, ns, name);
      const stageStart = await scrape(controller);
      const applied = Date.now();
      await env.kubectl(['apply', '--server-side', '--field-manager=git', '-f', '-'], {
        input: names.map((name) => `---\n${clusterManifest(name)}\n`).join(''),
      });
      await waitFor(
        async () => {
          const ready = (await listClusters()).filter(isReady).length;
          return ready === target && ready;
        },
        { what: `${target} EtcdClusters Ready`, timeoutMs: READY_TIMEOUT_MS, intervalMs: 1_000 },
      );
      const readySeconds = (Date.now() - applied) / 1000;
      created = target;
      const settledSeconds =
        (await untilNoRequestsButWatches(auditLog, CONTROLLER_USERNAME, {
          quietMs: SETTLE_QUIET_MS,
          timeoutMs: SETTLE_TIMEOUT_MS,
          what: `${target} clusters at rest`,
        })) / 1000;
      const restStart = await scrape(controller);
      const from = Date.now();
      const rest = await restPeaks(controller, restStart, restMs(target));
      const restEnd = rest.end;
      const to = Date.now();
      const notReady = (await listClusters())
        .filter((cluster) => !isReady(cluster))
        .map((c) => c.metadata?.name);
      if (notReady.length > 0)
        throw new Error(`not Ready at the end of the rest window: ${notReady.join(', ')}`);
      // The API server writes an event once the request completed: give the last ones a moment to land.
      await sleep(AUDIT_LAG_MS);
      const requests = countRequests(readFileSync(auditLog, 'utf8'), CONTROLLER_USERNAME, from, to);
      const restSeconds = (to - from) / 1000;
      const inf = Number.POSITIVE_INFINITY;
      rows.push({
        clusters: target,
        readySeconds,
        settledSeconds,
        restPeakRssMiB: rest.rssMiB,
        restPeakHeapUsedMiB: rest.heapUsedMiB,
        restPeakRssFileMiB: rest.rssFileMiB,
        reconcileP99Seconds: quantileBound(stageStart.buckets, restEnd.buckets, 0.99) ?? null,
        restReconcileP99Seconds: quantileBound(restStart.buckets, restEnd.buckets, 0.99) ?? null,
        restReconciles: (restEnd.buckets.get(inf) ?? 0) - (restStart.buckets.get(inf) ?? 0),
        restApiRequestsPerSecond: requests.total / restSeconds,
        restApiRequests: requests,
        restSeconds,
      });
      console.log(JSON.stringify(rows.at(-1)));
    }
    peakRssMiB = Math.max(bootPeakRssMiB, lifetimePeakRssMiB(controller));
  } finally {
    await controllers.stop();
    await env.stop();
  }
  console.log('\nbootstrap by size (median of 3, min-max):');
  for (const b of bootstrap)
    console.log(
      `  size ${b.size}: ${b.seconds.toFixed(1)} s (${b.minSeconds.toFixed(1)}-${b.maxSeconds.toFixed(1)})`,
    );
  if (afterBootstrap)
    console.log(
      `the bootstrap rows' controller at rest after ${afterBootstrap.clustersCreatedAndDeleted} clusters created and deleted: ${afterBootstrap.restPeakRssMiB.toFixed(0)} MiB RSS at its peak (V8 heap in use ${afterBootstrap.restPeakHeapUsedMiB.toFixed(0)} MiB, mapped from files ${afterBootstrap.restPeakRssFileMiB?.toFixed(0)} MiB), ${afterBootstrap.restEndRssMiB?.toFixed(0)} MiB at the end of its ${afterBootstrap.restSeconds} s (mapped from files ${afterBootstrap.restEndRssFileMiB?.toFixed(0)} MiB)`,
    );
  console.log(
    `controller peak RSS over the whole run (VmHWM, the higher of the two processes, Node.js ${runtime.version}, ${DEFAULT_CONTROLLER_NODE_OPTIONS} ${CONTROLLER_V8_FLAGS.join(' ')}): ${peakRssMiB.toFixed(0)} MiB`,
  );
  console.log(
    `floor: node ${runtime.version} ${CONTROLLER_V8_FLAGS.join(' ')} importing ${floor.packages.join(' and ')}, collected, idle: ${floor.packagesMiB.toFixed(0)} MiB RSS bundled as ours (mapped from files ${floor.packagesFileMiB?.toFixed(0)} MiB), ${floor.unbundledPackagesMiB?.toFixed(0)} MiB from node_modules (bare node ${floor.bareMiB.toFixed(0)} MiB; median of ${floor.runs})`,
  );
  console.log(
    `\nscale (etcd ${version}, size-1 clusters, one controller process; the rest window of each stage in its row)`,
  );
  console.log(
    'clusters  all Ready s  rest peak RSS MiB (from files)  reconcile p99 ≤ s (stage / rest)  API requests/s at rest',
  );
  for (const r of rows) {
    console.log(
      `${String(r.clusters).padStart(8)} ${r.readySeconds.toFixed(1).padStart(12)} ${`${r.restPeakRssMiB.toFixed(0)} (${r.restPeakRssFileMiB?.toFixed(0)})`.padStart(30)} ${`${r.reconcileP99Seconds} / ${r.restReconcileP99Seconds}`.padStart(33)} ${r.restApiRequestsPerSecond.toFixed(2).padStart(23)} ${JSON.stringify(r.restApiRequests.byVerb)}`,
    );
  }
  mkdirSync(results, { recursive: true });
  const file = join(results, 'scale.json');
  writeFileSync(
    file,
    `${JSON.stringify({ bench: 'scale', node: process.version, controllerNodeVersion: runtime.version, etcd: version, date: new Date().toISOString(), steadyRequeueSeconds: REQUEUE.steady / 1000, bootstrap, afterBootstrap, rows, controllerPeakRssMiB: peakRssMiB, nodeOptions: DEFAULT_CONTROLLER_NODE_OPTIONS, v8Flags: CONTROLLER_V8_FLAGS, importFloor: floor }, null, 2)}\n`,
  );
  console.log(`wrote ${file}`);
}
