#!/usr/bin/env node
// `npm run demo`: a local Kubernetes with three real nodes, dist/ applied as Argo CD would, the
// operator and the example cluster watched until Ready, then kubectl commands to explore.
// Ctrl-C stops everything and removes every file. `--dist <dir>` applies another synth output.
import { setTimeout as sleep } from 'node:timers/promises';
import { CustomObjectsApi } from '@kubernetes/client-node';
import { kubernetesBinary } from './binaries.js';
import { setSignalExitCode } from './cleanup.js';
import type { Manifest } from './dist-manifests.js';
import { type Environment, startEnvironment } from './environment.js';
import { defaultLogger } from './log.js';

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

interface ClusterStatus {
  phase?: string;
  replicas?: number;
  readyMembers?: number;
  members?: { name: string; learner?: boolean; ready?: boolean }[];
  conditions?: Condition[];
}

/** `example-0 example-1(learner) example-2(not ready)` */
function memberList(status: ClusterStatus): string {
  const members = status.members ?? [];
  if (members.length === 0) return '-';
  return members
    .map((m) => `${m.name}${m.learner ? '(learner)' : ''}${m.ready === false ? '(not ready)' : ''}`)
    .join(' ');
}

const operatorWaitSeconds = 120;
/** Set on Ctrl-C: the cleanup handler is stopping everything, so the demo stops talking. */
let interrupted = false;
const clusterWaitMs = 300_000;

/** Whether the operator Deployment became available. */
async function waitForOperator(env: Environment): Promise<boolean> {
  console.log(`\nWaiting up to ${operatorWaitSeconds} s for the operator Deployment to become available...`);
  const rollout = await env.kubectl(
    [
      'rollout',
      'status',
      'deployment/etcd-gitops-controller',
      '-n',
      'etcd-gitops-system',
      `--timeout=${operatorWaitSeconds}s`,
    ],
    { allowFailure: true },
  );
  if (interrupted) return false;
  if (rollout.code === 0) {
    console.log('  operator is available');
    return true;
  }
  console.log(`  operator is not available: ${rollout.stderr.trim() || rollout.stdout.trim()}`);
  const pods = await env.kubectl(['get', 'pods', '-n', 'etcd-gitops-system', '-o', 'wide'], {
    allowFailure: true,
  });
  console.log(pods.stdout || pods.stderr);
  return false;
}

/** Polls one EtcdCluster's status, printing each change, until Ready=True, the deadline or `stop()`. */
async function waitForCluster(env: Environment, cluster: Manifest, stop: () => boolean): Promise<void> {
  const api = env.kubeConfig.makeApiClient(CustomObjectsApi);
  const [group, version] = cluster.apiVersion.split('/');
  console.log(
    `\nWatching EtcdCluster ${cluster.namespace}/${cluster.name} until it is Ready (up to ${clusterWaitMs / 60_000} min)...`,
  );
  const deadline = Date.now() + clusterWaitMs;
  let last = '';
  while (Date.now() < deadline && !interrupted && !stop()) {
    const object = (await api.getNamespacedCustomObject({
      group: group ?? '',
      version: version ?? '',
      namespace: cluster.namespace ?? 'default',
      plural: 'etcdclusters',
      name: cluster.name,
    })) as { status?: ClusterStatus };
    const status = object.status;
    const ready = status?.conditions?.find((c) => c.type === 'Ready');
    const line = status
      ? `phase=${status.phase ?? '-'} members=${status.replicas ?? 0} ready=${status.readyMembers ?? 0} [${memberList(status)}] Ready=${ready?.status ?? '-'} ${ready?.reason ?? ''} ${ready?.message ?? ''}`.trimEnd()
      : 'no status yet (no controller has reported on this cluster)';
    if (line !== last) console.log(`  ${new Date().toISOString().slice(11, 19)} ${cluster.name}: ${line}`);
    last = line;
    if (ready?.status === 'True') return;
    await sleep(500);
  }
  if (interrupted || stop()) return;
  console.log(`  not Ready after ${clusterWaitMs / 60_000} min; last seen: ${last}`);
}

/** Waits for the operator while watching every cluster, so each is seen forming from its first member. */
async function watch(env: Environment, clusters: Manifest[]): Promise<void> {
  let noOperator = false;
  const operator = waitForOperator(env);
  const watches = Promise.all(clusters.map((cluster) => waitForCluster(env, cluster, () => noOperator)));
  if (!(await operator)) {
    noOperator = true;
    if (!interrupted)
      console.log(
        'No operator runs, so no EtcdCluster will get members or status; the objects are there to look at.',
      );
  }
  await watches;
}

function printExplore(env: Environment, clusters: Manifest[]): void {
  const kubectl = kubernetesBinary('kubectl');
  const ns = clusters[0]?.namespace ?? 'default';
  console.log(`
Explore it (in another terminal):
  export KUBECONFIG=${env.kubeconfigPath}
  alias kubectl=${kubectl}
  kubectl get etcdclusters -A
  kubectl get pods,pvc,svc -n ${ns} -o wide
  kubectl describe etcdcluster ${clusters[0]?.name ?? '<name>'} -n ${ns}
  kubectl get events -n ${ns} --sort-by=.lastTimestamp
  kubectl logs -n etcd-gitops-system deployment/etcd-gitops-controller
Component logs: ${env.controlPlane.dir}/*.log and ${env.controlPlane.dir}/node-*/*.log

Press Ctrl-C to stop everything and remove every file.`);
}

async function main(): Promise<void> {
  const distArg = process.argv.indexOf('--dist');
  const dir = distArg > 0 ? process.argv[distArg + 1] : undefined;
  setSignalExitCode('SIGINT', 0);
  process.once('SIGINT', () => {
    interrupted = true;
    console.log('\nStopping the local Kubernetes and removing its files...');
  });
  console.log(
    'Starting a local Kubernetes (etcd, kube-apiserver, controller-manager, scheduler, CoreDNS, 3 nodes)...',
  );
  const env = await startEnvironment({
    nodes: 3,
    log: defaultLogger(process.env.ENV_LOG_LEVEL ?? 'error'),
  });
  try {
    console.log(`  API server ${env.controlPlane.server}`);
    console.log(`\nApplying ${dir ?? 'dist/'} wave by wave (server-side apply, as Argo CD syncs it)...`);
    const applied = await env.applyDist(dir ? { dir } : {});
    for (const m of applied)
      console.log(`  wave ${m.wave}: ${m.kind} ${m.namespace ? `${m.namespace}/` : ''}${m.name}`);
    const clusters = applied.filter((m) => m.kind === 'EtcdCluster');
    await watch(env, clusters);
    if (!interrupted) printExplore(env, clusters);
  } catch (error) {
    if (interrupted) return; // Ctrl-C while waiting: the cleanup handler stops everything and exits
    console.error(`\nThe demo failed: ${(error as Error).message}`);
    await env.stop();
    process.exit(1);
  }
  setInterval(() => undefined, 60_000);
}

await main();
