// The node agent: a kubelet stand-in that registers a Node and runs every Pod bound to it as local
// processes (see test/env/README.md for what is faithful and what is mapped).
import { mkdirSync, readdirSync, readFileSync, rmdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  CoordinationV1Api,
  CoreV1Api,
  type KubeConfig,
  type V1PersistentVolumeClaim,
  type V1Pod,
  type V1Service,
} from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { onProcessExit, startReaper } from '../cleanup.js';
import { AddressPool, fileClaims, nodeNetworkOctet } from './addresses.js';
import { type BackoffPolicy, kubeletBackoff } from './backoff.js';
import { configSources, identitySources } from './cluster-sources.js';
import { type AgentContext, containerLogPath } from './context.js';
import { dnsRecords, type PodEndpoint, type ServiceInfo } from './dns-records.js';
import { HostsBlock, processAlive } from './hosts-file.js';
import type { ImageRule } from './images.js';
import { resilientInformer } from './informer.js';
import { MountPoints } from './mounts.js';
import { type NodeRegistration, registerNode } from './node-registration.js';
import { PodWorker } from './pod-worker.js';
import { ClaimBinder } from './pvc-binder.js';
import { claimDir } from './volumes.js';

export interface NodeAgentOptions {
  kubeConfig: KubeConfig;
  /** @default 'node-1' */
  nodeName?: string;
  /** Pod directories, logs and PVC directories live here; the caller removes it. */
  stateDir: string;
  log: Logger;
  /** Extra image rules, consulted before the default table of images.ts. @default none */
  imageMap?: readonly ImageRule[];
  /** Crash-loop backoff. @default kubelet's: 10 s doubling to 5 min, reset after 10 min of running */
  backoff?: Partial<BackoffPolicy>;
  /** Second octet of the Pod addresses 127.<octet>.x.y. @default from the node name (node-<n> → n) */
  podNetworkOctet?: number;
  /** @default '/etc/hosts' */
  hostsFile?: string;
  /** Where Pod addresses are claimed machine-wide (one file per address). @default '/run/etcd-gitops-agent/addresses' */
  addressClaimsDir?: string;
  /** Grace period for the Pods' processes on stop(). @default 2000 */
  stopGraceMs?: number;
}

export interface NodeAgentFaults {
  /** Signals a running container's process group (the agent then restarts it per restartPolicy); returns the pid. */
  killContainer(namespace: string, pod: string, container?: string, signal?: NodeJS.Signals): number;
  /** Deletes everything inside the claim's directory (the disk of that volume is wiped). */
  wipePvc(namespace: string, claim: string): void;
}

export interface NodeAgent {
  readonly nodeName: string;
  /** Kills every process it started, removes its hosts block and stops watching. Pod objects stay. */
  stop(): Promise<void>;
  /** A container's log (all its restarts), `kubectl logs` without a kubelet server. */
  logs(namespace: string, pod: string, container?: string): string;
  /** The Pod's address on this node, while it runs here. */
  podIP(namespace: string, pod: string): string | undefined;
  /** Process id (= process group) of a running container. */
  containerPid(namespace: string, pod: string, container?: string): number | undefined;
  readonly faults: NodeAgentFaults;
}

const hostsCheckMs = 1_000;

/** Removes `dir` and its parent when nothing (no other agent's claim) is left in them. */
function removeIfEmpty(dir: string): void {
  for (const path of [dir, dirname(dir)]) {
    try {
      rmdirSync(path);
    } catch {
      return;
    }
  }
}

function apiServerEnv(kubeConfig: KubeConfig): Record<string, string> {
  const server = new URL(kubeConfig.getCurrentCluster()?.server ?? 'https://127.0.0.1:6443');
  const port = server.port || (server.protocol === 'https:' ? '443' : '80');
  const host = server.hostname === 'localhost' ? '127.0.0.1' : server.hostname;
  return {
    KUBERNETES_SERVICE_HOST: host,
    KUBERNETES_SERVICE_PORT: port,
    KUBERNETES_SERVICE_PORT_HTTPS: port,
    KUBERNETES_PORT: `tcp://${host}:${port}`,
  };
}

export async function startNodeAgent(options: NodeAgentOptions): Promise<NodeAgent> {
  const nodeName = options.nodeName ?? 'node-1';
  const log = options.log.child({ component: 'node-agent', node: nodeName });
  const { kubeConfig, stateDir } = options;
  for (const dir of ['logs', 'pods', 'pvc']) mkdirSync(join(stateDir, dir), { recursive: true });
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const coordination = kubeConfig.makeApiClient(CoordinationV1Api);
  const hosts = new HostsBlock(options.hostsFile ?? '/etc/hosts', nodeName);
  hosts.removeStale();
  const workers = new Map<string, PodWorker>();
  const services = new Map<string, ServiceInfo>();
  const finished = new Set<string>();
  let stopped = false;

  const refreshDns = () => {
    if (stopped) return;
    const endpoints = [...workers.values()]
      .map((w) => w.endpoint())
      .filter((e): e is PodEndpoint => e !== undefined);
    const taken = hosts.write(dnsRecords(endpoints, [...services.values()]));
    for (const [name, owner] of taken) {
      log.error(
        { name, otherAgent: owner },
        'Another environment on this machine already publishes this DNS name: its clients may reach the wrong Pod. ' +
          'Give each concurrently running test its own namespace.',
      );
    }
  };
  const claimsDir = options.addressClaimsDir ?? '/run/etcd-gitops-agent/addresses';
  const addresses = new AddressPool(
    options.podNetworkOctet ?? nodeNetworkOctet(nodeName),
    fileClaims(claimsDir, processAlive),
  );
  // Last resort when the process dies: the exit hook kills what runs and removes the hosts block; the
  // reaper kills the recorded process groups even after a SIGKILL (the next agent removes the block).
  mkdirSync(join(stateDir, 'reaper'), { recursive: true });
  const reaper = startReaper(join(stateDir, 'reaper'));
  let stopAgent: () => Promise<void> = async () => undefined;
  const unregisterExitHook = onProcessExit({
    sync() {
      for (const worker of workers.values()) worker.killNow();
      hosts.remove();
      reaper.stop();
      addresses.releaseAll();
    },
    graceful: () => stopAgent(),
  });

  const ctx: AgentContext = {
    nodeName,
    hostIP: '127.0.0.1',
    stateDir,
    log,
    core,
    config: configSources(core),
    identity: identitySources(core, kubeConfig),
    addresses,
    mountPoints: new MountPoints(join(dirname(claimsDir), 'mount-points'), processAlive),
    imageRules: options.imageMap ?? [],
    backoff: { ...kubeletBackoff, ...options.backoff },
    baseEnv: apiServerEnv(kubeConfig),
    onEndpointsChanged: refreshDns,
    recordProcessGroup: (pid) => reaper.record(pid),
    onWorkerGone(uid) {
      workers.delete(uid);
      finished.add(uid);
      refreshDns();
    },
  };
  hosts.write([]);

  const onPod = (pod: V1Pod) => {
    const uid = pod.metadata?.uid ?? '';
    if (stopped || finished.has(uid)) return;
    const existing = workers.get(uid);
    if (existing) {
      existing.update(pod);
      return;
    }
    for (const other of workers.values()) {
      // Same name, new object: the old one was deleted while the watch was away.
      if (other.namespace === pod.metadata?.namespace && other.name === pod.metadata?.name)
        void other.vanish();
    }
    const worker = new PodWorker(ctx, pod);
    workers.set(uid, worker);
    if (pod.metadata?.deletionTimestamp) void worker.terminate(0);
    else worker.start();
  };
  const onPodDeleted = (pod: V1Pod) => {
    void workers.get(pod.metadata?.uid ?? '')?.vanish();
  };
  const serviceKey = (s: V1Service) => `${s.metadata?.namespace}/${s.metadata?.name}`;
  const onService = (s: V1Service) => {
    services.set(serviceKey(s), {
      namespace: s.metadata?.namespace ?? 'default',
      name: s.metadata?.name ?? '',
      selector: s.spec?.selector,
      publishNotReadyAddresses: s.spec?.publishNotReadyAddresses,
    });
    refreshDns();
  };
  const onServiceDeleted = (s: V1Service) => {
    services.delete(serviceKey(s));
    refreshDns();
  };
  const binder = new ClaimBinder(core, nodeName, stateDir, log);

  let registration: NodeRegistration | undefined;
  const informers = [
    resilientInformer<V1Service>(
      kubeConfig,
      '/api/v1/services',
      () => core.listServiceForAllNamespaces(),
      { onUpsert: onService, onDelete: onServiceDeleted },
      log,
    ),
    resilientInformer<V1PersistentVolumeClaim>(
      kubeConfig,
      '/api/v1/persistentvolumeclaims',
      () => core.listPersistentVolumeClaimForAllNamespaces(),
      { onUpsert: (c) => binder.onClaim(c), onDelete: (c) => binder.onClaimDeleted(c) },
      log,
    ),
    resilientInformer<V1Pod>(
      kubeConfig,
      '/api/v1/pods',
      () => core.listPodForAllNamespaces({ fieldSelector: `spec.nodeName=${nodeName}` }),
      { onUpsert: onPod, onDelete: onPodDeleted },
      log,
      `spec.nodeName=${nodeName}`,
    ),
  ];
  let stopping: Promise<void> | undefined;
  stopAgent = () => {
    stopping ??= (async () => {
      stopped = true;
      clearInterval(hostsCheck);
      registration?.stop();
      await Promise.all(informers.map((informer) => informer.stop()));
      await Promise.all([...workers.values()].map((worker) => worker.shutdown(options.stopGraceMs ?? 2_000)));
      hosts.remove();
      reaper.stop();
      addresses.releaseAll();
      const left = ctx.mountPoints.removeCreated();
      removeIfEmpty(claimsDir);
      if (left.length > 0) log.warn({ paths: left }, 'Mount points not empty, left in place');
      unregisterExitHook();
      log.info('Node agent stopped');
    })();
    return stopping;
  };
  // Agents in other processes rewrite the same file; a block lost to a race is written again.
  const hostsCheck = setInterval(() => {
    try {
      if (!stopped && !hosts.verify()) log.info('Rewrote the hosts block lost to another writer');
    } catch (error) {
      log.warn({ err: (error as Error).message }, 'Cannot check the hosts block');
    }
  }, hostsCheckMs);
  hostsCheck.unref();
  try {
    registration = await registerNode(core, coordination, nodeName, log);
    await Promise.all(informers.map((informer) => informer.start()));
  } catch (error) {
    await stopAgent();
    throw error;
  }
  log.info({ stateDir }, 'Node agent started');
  const findWorker = (namespace: string, pod: string) =>
    [...workers.values()].find((w) => w.namespace === namespace && w.name === pod);

  return {
    nodeName,
    stop: () => stopAgent(),
    logs(namespace, pod, container) {
      const name = container ?? findWorker(namespace, pod)?.pod.spec?.containers[0]?.name ?? pod;
      return readFileSync(containerLogPath(stateDir, namespace, pod, name), 'utf8');
    },
    podIP: (namespace, pod) => findWorker(namespace, pod)?.podIP,
    containerPid: (namespace, pod, container) => findWorker(namespace, pod)?.runner(container)?.pid,
    faults: {
      killContainer(namespace, pod, container, signal = 'SIGKILL') {
        const runner = findWorker(namespace, pod)?.runner(container);
        const pid = runner?.pid;
        if (!runner || pid === undefined || !runner.kill(signal)) {
          throw new Error(
            `no running container ${container ?? '(first)'} in pod ${namespace}/${pod} on ${nodeName}`,
          );
        }
        return pid;
      },
      wipePvc(namespace, claim) {
        const dir = claimDir(stateDir, namespace, claim);
        for (const entry of readdirSync(dir)) rmSync(join(dir, entry), { recursive: true, force: true });
      },
    },
  };
}
