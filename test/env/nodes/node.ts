// One real node: its network namespace wired to the environment's bridge, its cgroup root, containerd with
// every image imported, kubelet, kube-proxy and the NetworkPolicy enforcer (kube-router's firewall). `stop()` takes
// it down for good; `halt()` is the fault "the node died": every one of them and every container gone at once, with
// nothing cleaned up in the API (the enforcer's rules stay in the node's namespace, as in a real node's kernel).
import { appendFile, mkdir } from 'node:fs/promises';
import type { KubeConfig } from '@kubernetes/client-node';
import type { Pki } from '../certs.js';
import { reapDirSync } from '../cleanup.js';
import type { ManagedProcess } from '../process-group.js';
import { createCgroupRoot, removeCgroupRoot } from './cgroups.js';
import { type Containerd, startContainerd } from './containerd.js';
import { startKubeProxy } from './kube-proxy.js';
import { startKubeRouter } from './kube-router.js';
import { startKubelet } from './kubelet.js';
import { type NodeLayout, nodeLayout, nodeNetwork } from './layout.js';
import { addNodeNetwork, setNodeLink } from './network.js';

export interface NodeContext {
  readonly envDir: string;
  readonly envNetns: string;
  readonly pki: Pki;
  /** The API server as the test process sees it (the enforcer waits for its Node object). */
  readonly api: KubeConfig;
  /** The API server as nodes see it. */
  readonly apiPort: number;
  /** The environment registry every image is pulled from (`http://<address>:<port>`). */
  readonly mirror: string;
  readonly sandboxImage: string;
  readonly cgroupPrefix: string;
  readonly track: (p: ManagedProcess) => ManagedProcess;
}

export interface RealNode {
  readonly layout: NodeLayout;
  readonly containerd: Containerd;
  /** The node's processes (containerd, kubelet, kube-proxy, kube-router), running until `halt()`/`stop()`. */
  readonly processes: readonly ManagedProcess[];
  /** Kills every process of the node and its containers at once (the node died); the API is not told. */
  halt(): Promise<void>;
  /**
   * After `halt()`: the node boots again with what was on its disk (containerd's root, the kubelet's directory, the
   * volumes): containerd, kubelet, kube-proxy and kube-router start anew and the kubelet syncs its Pods from the API server, as
   * after a power cycle. Its containers do not come back by themselves; the kubelet decides.
   */
  restart(): Promise<void>;
  /** Cuts or restores the node's network link. */
  setNetwork(up: boolean): Promise<void>;
  /** Halts the node and removes its mounts, cgroups and directory. */
  stop(): Promise<void>;
}

export async function startNode(context: NodeContext, index: number): Promise<RealNode> {
  const layout = nodeLayout(context.envDir, index, context.cgroupPrefix);
  await mkdir(layout.dir, { recursive: true, mode: 0o755 });
  await appendFile(`${context.envDir}/.cgroups`, `${layout.cgroupRoot}\n`);
  createCgroupRoot(layout.cgroupRoot);
  await addNodeNetwork(context.envNetns, layout);
  const processes: ManagedProcess[] = [];
  const track = (p: ManagedProcess) => {
    processes.push(context.track(p));
    return p;
  };
  /** containerd (pulling every image from the environment's registry; its root keeps what it pulled across a
   *  restart), kubelet, kube-proxy, and the enforcer once it has synced (no Pod of this node goes unfiltered after boot). */
  const boot = async (): Promise<Containerd> => {
    const started = await startContainerd(
      layout,
      { sandboxImage: context.sandboxImage, mirror: context.mirror },
      track,
    );
    const server = `https://${nodeNetwork.gateway}:${context.apiPort}`;
    await startKubelet(layout, { pki: context.pki, server, containerdSocket: started.paths.socket }, track);
    await startKubeProxy(layout, { pki: context.pki, server }, track);
    await startKubeRouter(layout, { pki: context.pki, server, api: context.api }, track);
    return started;
  };
  const containerd = await boot();
  let halted: Promise<void> | undefined;
  const halt = () => {
    halted ??= (async () => {
      await Promise.all(processes.map((p) => p.kill()));
      removeCgroupRoot(layout.cgroupRoot);
    })();
    return halted;
  };
  const restart = async () => {
    if (!halted) throw new Error(`${layout.name} is running: halt() it first`);
    await halted;
    processes.length = 0;
    createCgroupRoot(layout.cgroupRoot);
    await boot();
    halted = undefined;
  };
  return {
    layout,
    containerd,
    processes,
    halt,
    restart,
    setNetwork: (up) => setNodeLink(context.envNetns, layout, up),
    async stop() {
      await halt();
      // Shims, mounts (container root filesystems, Pod network namespaces, volumes, the node's namespace),
      // cgroups: the same steps the reaper takes after a crash.
      reapDirSync(layout.dir);
    },
  };
}
