#!/usr/bin/env node
// `npm run demo`: a local Kubernetes with three real nodes, dist/ applied as Argo CD would, the
// operator and the example cluster watched until Ready, then kubectl commands to explore.
// Ctrl-C stops everything and removes every file. `--dist <dir>` applies another synth output.
// `--gitops=argocd` or `--gitops=flux`: instead of applying it, the demo puts dist/ into a Git repository on the
// environment's Git server and lets a real Argo CD (the docs' Application) or Flux (the docs' Kustomizations) sync
// it, then prints how to watch them and how to commit a change.
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CustomObjectsApi } from '@kubernetes/client-node';
import { kubernetesBinary } from './binaries.js';
import { setSignalExitCode } from './cleanup.js';
import { distDir, type Manifest, readManifests } from './dist-manifests.js';
import { type Environment, startEnvironment } from './environment.js';
import { ARGOCD_NAMESPACE, startArgoCd } from './gitops/argocd.js';
import { FLUX_NAMESPACE, startFlux } from './gitops/flux.js';
import { GIT_BRANCH, type GitRepository, startGitServer } from './gitops/git-server.js';
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
  // Synced from Git, the Deployment appears a little later (after the CRDs' wave): wait for it to exist first.
  const deadline = Date.now() + operatorWaitSeconds * 1000;
  while (
    !interrupted &&
    Date.now() < deadline &&
    (
      await env.kubectl(['get', 'deployment/etcd-gitops-controller', '-n', 'etcd-gitops-system'], {
        allowFailure: true,
      })
    ).code !== 0
  )
    await sleep(1000);
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
    // Synced from Git, the EtcdCluster (and its CRD) may not be applied yet: 404 until it is.
    const object = (await api
      .getNamespacedCustomObject({
        group: group ?? '',
        version: version ?? '',
        namespace: cluster.namespace ?? 'default',
        plural: 'etcdclusters',
        name: cluster.name,
      })
      .catch((error: { code?: number }) => {
        if (error.code === 404) return undefined;
        throw error;
      })) as { status?: ClusterStatus } | undefined;
    const status = object?.status;
    const ready = status?.conditions?.find((c) => c.type === 'Ready');
    const line = !object
      ? 'not applied yet'
      : status
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

type GitOpsTool = 'argocd' | 'flux';

/**
 * Puts `dist` into a repository on the environment's Git server and starts `tool` syncing it, as the docs set each up;
 * returns the manifests in the repository and what to print about watching and committing.
 */
async function syncWith(env: Environment, tool: GitOpsTool, dist: string, dir: string) {
  const git = await startGitServer(env, join(dir, 'git'));
  const repository = await git.createRepository('etcd-gitops', undefined, dist);
  let watchHint: string;
  if (tool === 'argocd') {
    const argo = await startArgoCd(env, join(dir, 'argocd'));
    const app = await argo.createApplication(repository.url);
    console.log(
      `  Argo CD syncs ${repository.url} (Application ${ARGOCD_NAMESPACE}/${app}, docs/gitops/argocd-application.yaml)`,
    );
    watchHint = [
      `  kubectl get applications -n ${ARGOCD_NAMESPACE} -w`,
      `  kubectl get application ${app} -n ${ARGOCD_NAMESPACE} -o jsonpath='{.status.resources}'`,
      `After a commit, tell Argo CD as a push webhook would:`,
      `  kubectl annotate application ${app} -n ${ARGOCD_NAMESPACE} --overwrite argocd.argoproj.io/refresh=normal`,
    ].join('\n');
  } else {
    const flux = await startFlux(env, join(dir, 'flux'));
    const myApp = await git.createRepository('my-app', {
      'deploy/settings.yaml':
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: my-app-settings\n  namespace: default\n',
    });
    await flux.applyDocs({ etcdGitops: repository.url, myApp: myApp.url });
    console.log(
      `  Flux syncs ${repository.url} (docs/gitops/flux.yaml: Kustomizations etcd-gitops and my-app)`,
    );
    watchHint = [
      `  kubectl get gitrepositories,kustomizations -n ${FLUX_NAMESPACE} -w`,
      `After a commit, ask Flux now as a webhook Receiver would:`,
      `  kubectl annotate gitrepository etcd-gitops -n ${FLUX_NAMESPACE} --overwrite reconcile.fluxcd.io/requestedAt="$(date +%s)"`,
    ].join('\n');
  }
  return { manifests: readManifests(dist), repository, watchHint };
}

function printGitOps(repository: GitRepository, watchHint: string): void {
  console.log(`
Watch the GitOps tool (KUBECONFIG and kubectl as below):
${watchHint}
Change the cluster through Git: edit ${repository.workTree}/dist/02-example.k8s.yaml, then
  git -C ${repository.workTree} commit -am 'my change' && git -C ${repository.workTree} push origin ${GIT_BRANCH}`);
}

async function main(): Promise<void> {
  const distArg = process.argv.indexOf('--dist');
  const dir = distArg > 0 ? process.argv[distArg + 1] : undefined;
  const gitopsArg = process.argv.find((arg) => arg.startsWith('--gitops='))?.slice('--gitops='.length);
  if (gitopsArg !== undefined && gitopsArg !== 'argocd' && gitopsArg !== 'flux') {
    console.error(`--gitops=${gitopsArg}: the GitOps tool must be 'argocd' or 'flux'`);
    process.exit(2);
  }
  const gitops = gitopsArg as GitOpsTool | undefined;
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
    let applied: Manifest[];
    let gitopsHint: (() => void) | undefined;
    if (gitops) {
      console.log(
        `\nStarting a Git server and ${gitops === 'argocd' ? 'Argo CD' : 'Flux'}, syncing ${dir ?? 'dist/'} from Git...`,
      );
      // Under the environment's own directory: removed with it.
      const synced = await syncWith(env, gitops, dir ?? distDir, join(env.controlPlane.dir, 'gitops'));
      applied = synced.manifests;
      gitopsHint = () => printGitOps(synced.repository, synced.watchHint);
    } else {
      console.log(`\nApplying ${dir ?? 'dist/'} wave by wave (server-side apply, as Argo CD syncs it)...`);
      applied = await env.applyDist(dir ? { dir } : {});
      for (const m of applied)
        console.log(`  wave ${m.wave}: ${m.kind} ${m.namespace ? `${m.namespace}/` : ''}${m.name}`);
    }
    const clusters = applied.filter((m) => m.kind === 'EtcdCluster');
    await watch(env, clusters);
    if (!interrupted) printExplore(env, clusters);
    if (!interrupted) gitopsHint?.();
  } catch (error) {
    if (interrupted) return; // Ctrl-C while waiting: the cleanup handler stops everything and exits
    console.error(`\nThe demo failed: ${(error as Error).message}`);
    await env.stop();
    process.exit(1);
  }
  setInterval(() => undefined, 60_000);
}

await main();
