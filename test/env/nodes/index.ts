// Real nodes for one environment whose control plane runs in the environment namespace: CoreDNS, the volume
// provisioner and N nodes (kubelet + containerd + kube-proxy + the NetworkPolicy enforcer each) pulling from the
// environment's registry, every Node Ready.
import { mkdir, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CoreV1Api } from '@kubernetes/client-node';
import type { ControlPlane } from '../control-plane.js';
import type { Logger } from '../log.js';
import { freePorts } from '../ports.js';
import { startProcess } from '../process-group.js';
import { waitFor } from '../wait.js';
import { startCoreDNS } from './coredns.js';
import { enterHostSysctls, leaveHostSysctls } from './host-sysctls.js';
import { startKubeProxy } from './kube-proxy.js';
import { grantKubeRouter } from './kube-router.js';
import { clusterDNS, clusterDomain, nodeNetwork } from './layout.js';
import { type RealNode, startNode } from './node.js';
import { type Provisioner, startProvisioner } from './provisioner.js';

export type { RealNode } from './node.js';
export type { Provisioner } from './provisioner.js';

export interface RealNodesOptions {
  readonly controlPlane: ControlPlane;
  readonly envNetns: string;
  /** @default 3 */
  readonly count?: number;
  /** The environment registry the nodes pull every image from (../registry.ts, `mirror`). */
  readonly mirror: string;
  /** The sandbox image's name, served by the registry. */
  readonly sandboxImage: string;
  readonly log: Logger;
}

export interface RealNodes {
  readonly nodes: readonly RealNode[];
  /** `http://127.0.0.1:<port>`: an HTTP CONNECT proxy into the environment namespace (see connect-proxy.ts). */
  readonly connectProxy: string;
  /** The same proxy as processes inside the environment namespace reach it. */
  readonly connectProxyInside: string;
  readonly provisioner: Provisioner;
  /** The node a Pod runs on. */
  node(name: string): RealNode;
  /** Starts one more node (the next index); resolves once its Node is Ready. */
  addNode(): Promise<RealNode>;
  stop(): Promise<void>;
}

export async function startRealNodes(options: RealNodesOptions): Promise<RealNodes> {
  const { controlPlane, log } = options;
  const dir = controlPlane.dir;
  enterHostSysctls();
  await writeFile(join(dir, '.host-sysctls'), `${process.pid}\n`);
  const nodes: RealNode[] = [];
  let provisioner: Provisioner | undefined;
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      provisioner?.stop();
      await Promise.all(nodes.map((node) => node.stop()));
      leaveHostSysctls();
    })();
    return stopping;
  };
  try {
    await startCoreDNS(dir, { netns: options.envNetns, kubeconfig: controlPlane.kubeconfigPath }, (p) =>
      controlPlane.adopt(p),
    );
    provisioner = await startProvisioner(controlPlane.kubeConfig, join(dir, 'volumes'), log);
    await grantKubeRouter(controlPlane.kubeConfig);
    const context = {
      envDir: dir,
      envNetns: options.envNetns,
      pki: controlPlane.pki,
      api: controlPlane.kubeConfig,
      apiPort: Number(new URL(controlPlane.server).port),
      mirror: options.mirror,
      sandboxImage: options.sandboxImage,
      cgroupPrefix: `egt-${basename(dir)}`,
      track: (p: Parameters<ControlPlane['adopt']>[0]) => controlPlane.adopt(p),
    };
    const count = options.count ?? 3;
    const started = await Promise.allSettled(
      Array.from({ length: count }, (_, i) => startNode(context, i + 1)),
    );
    for (const result of started) if (result.status === 'fulfilled') nodes.push(result.value);
    const failed = started.find((result) => result.status === 'rejected');
    if (failed) throw (failed as PromiseRejectedResult).reason;
    await waitForNodesReady(controlPlane, nodes, log);
    const access = await startEnvironmentAccess(controlPlane, options.envNetns, nodes[0]!.layout.name);
    return {
      nodes,
      ...access,
      provisioner,
      node(name) {
        const found = nodes.find((node) => node.layout.name === name);
        if (!found) throw new Error(`no node ${name}; nodes: ${nodes.map((n) => n.layout.name).join(', ')}`);
        return found;
      },
      async addNode() {
        const node = await startNode(context, nodes.length + 1);
        nodes.push(node);
        await waitForNodeReady(controlPlane, node, log);
        return node;
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * kube-proxy in the environment namespace (Service cluster IPs work there) and the CONNECT proxy, forwarded from a
 * loopback port; returns the proxy's URL. kube-proxy waits up to 30 s (hard-coded) for the Node it serves to show
 * its addresses, and the environment namespace is no Node: it proxies as `node`, an existing one, which only
 * matters for node-local traffic policies (none of ours set one).
 */
async function startEnvironmentAccess(
  controlPlane: ControlPlane,
  envNetns: string,
  node: string,
): Promise<{ connectProxy: string; connectProxyInside: string }> {
  const dir = join(controlPlane.dir, 'access');
  await mkdir(dir, { recursive: true });
  const adopt = (p: Parameters<ControlPlane['adopt']>[0]) => controlPlane.adopt(p);
  const host = { name: node, label: 'environment', ip: nodeNetwork.gateway, dir, netnsPath: envNetns };
  await startKubeProxy(host, { pki: controlPlane.pki, server: controlPlane.server }, adopt);
  const socket = join(dir, 'connect-proxy.sock');
  const [port, insidePort] = await freePorts(2);
  adopt(
    startProcess({
      name: 'connect-proxy',
      command: process.execPath,
      args: [
        fileURLToPath(new URL('./connect-proxy.js', import.meta.url)),
        socket,
        String(insidePort),
        clusterDNS,
        clusterDomain,
      ],
      logPath: join(dir, 'connect-proxy.log'),
      netns: envNetns,
    }),
  );
  adopt(
    startProcess({
      name: 'connect-proxy-forward',
      command: 'socat',
      args: [`TCP-LISTEN:${port},bind=127.0.0.1,fork,reuseaddr`, `UNIX-CONNECT:${socket}`],
      logPath: join(dir, 'connect-proxy-forward.log'),
    }),
  );
  return { connectProxy: `http://127.0.0.1:${port}`, connectProxyInside: `http://127.0.0.1:${insidePort}` };
}

/** Waits until the Node of `node` reports Ready (after it was started, or restarted after a halt). */
export async function waitForNodeReady(
  controlPlane: ControlPlane,
  node: RealNode,
  log: Logger,
): Promise<void> {
  const core = controlPlane.kubeConfig.makeApiClient(CoreV1Api);
  const started = Date.now();
  const name = node.layout.name;
  await waitFor(
    async () => {
      try {
        const read = await core.readNode({ name });
        return read.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
      } catch {
        return false;
      }
    },
    {
      what: `Node ${name} Ready`,
      timeoutMs: 90_000,
      abortIf: () => {
        const ended = node.processes.find((p) => p.exitStatus());
        return ended ? `${ended.name} ended ${ended.exitStatus()}:\n${ended.logTail(15)}` : undefined;
      },
    },
  );
  log.info({ node: name, ms: Date.now() - started }, 'Node Ready');
}

async function waitForNodesReady(controlPlane: ControlPlane, nodes: RealNode[], log: Logger): Promise<void> {
  const core = controlPlane.kubeConfig.makeApiClient(CoreV1Api);
  const started = Date.now();
  await waitFor(
    async () => {
      const list = await core.listNode();
      const ready = list.items.filter((node) =>
        node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
      );
      return ready.length === nodes.length;
    },
    {
      what: `${nodes.length} Nodes Ready`,
      timeoutMs: 60_000,
      abortIf: () =>
        nodes.flatMap((n) => n.processes).find((p) => p.exitStatus())
          ? `a node process ended: ${nodes
              .flatMap((n) => n.processes)
              .filter((p) => p.exitStatus())
              .map((p) => `${p.name} ${p.exitStatus()}:\n${p.logTail(15)}`)
              .join('\n')}`
          : undefined,
    },
  );
  log.info({ nodes: nodes.length, ms: Date.now() - started }, 'Nodes Ready');
}
