// Faults on real nodes, each what it would be on a real cluster: a node that dies (kubelet, containerd and every
// container gone, the API not told), a node cut from the network, one container killed (the kubelet restarts it
// per restartPolicy), a volume wiped (a lost disk).
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import type { ControlPlane } from '../control-plane.js';
import type { Logger } from '../log.js';
import { type RealNodes, waitForNodeReady } from './index.js';

export interface NodeFaults {
  /** Kills the node's kubelet, kube-proxy, containerd and containers at once; the Node goes NotReady. */
  stopNode(name: string): Promise<void>;
  /** Boots a stopped node again on its old disk (as after a power cycle); resolves once its Node is Ready. */
  restartNode(name: string): Promise<void>;
  /** Cuts (`connected = false`) or restores the node's only network link. */
  setNodeNetwork(name: string, connected: boolean): Promise<void>;
  /** Kills a running container with `signal` through its node's containerd; returns its container ID. */
  killContainer(namespace: string, pod: string, container?: string, signal?: string): Promise<string>;
  /** Empties the directory of a bound claim's volume. */
  wipeVolume(namespace: string, claim: string): Promise<void>;
}

export function nodeFaults(
  kubeConfig: KubeConfig,
  nodes: RealNodes,
  controlPlane: ControlPlane,
  log: Logger,
): NodeFaults {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  return {
    stopNode: (name) => nodes.node(name).halt(),
    async restartNode(name) {
      const node = nodes.node(name);
      await node.restart();
      await waitForNodeReady(controlPlane, node, log);
    },
    setNodeNetwork: (name, connected) => nodes.node(name).setNetwork(connected),
    async killContainer(namespace, podName, container, signal = 'SIGKILL') {
      const pod = await core.readNamespacedPod({ namespace, name: podName });
      const statuses = pod.status?.containerStatuses ?? [];
      const status = container ? statuses.find((s) => s.name === container) : statuses[0];
      const id = status?.containerID?.replace(/^containerd:\/\//, '');
      if (!status?.state?.running || !id) {
        throw new Error(
          `no running container ${container ?? '(first)'} in pod ${namespace}/${podName} (containers: ${statuses
            .map((s) => `${s.name} ${Object.keys(s.state ?? {}).join('')}`)
            .join(', ')})`,
        );
      }
      const nodeName = pod.spec?.nodeName ?? '';
      try {
        await nodes.node(nodeName).containerd.ctr(['tasks', 'kill', '--signal', signal, id]);
      } catch (error) {
        // The process exited between the Pod's status and the kill (an e2e run wiped a member's volume, then found
        // its etcd already gone; containerd says so in one of three ways, depending on how far it has cleaned up the
        // task: the task deleted, not found, or its shim gone with it, "ttrpc: closed"): the container stopped
        // either way and the kubelet restarts it.
        const stderr = String((error as { stderr?: string }).stderr);
        if (!/cannot kill a deleted process|no running task found|ttrpc: closed/.test(stderr)) throw error;
        log.info({ pod: `${namespace}/${podName}`, container: id, signal }, 'Container had already exited');
      }
      return id;
    },
    wipeVolume: (namespace, claim) => nodes.provisioner.wipe(namespace, claim),
  };
}
