// The Node this agent stands for: registered with capacity, addresses and a Ready condition, kept alive
// by renewing its Lease in kube-node-lease (what the node-lifecycle controller watches) and by
// refreshing the Ready condition's heartbeat, as the kubelet does.
import { arch } from 'node:os';
import { type CoordinationV1Api, type CoreV1Api, V1MicroTime, type V1Node } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { kubernetesVersion } from '../binaries.js';
import { rfc3339 } from './container-status.js';
import { nodeAllocatable } from './field-ref.js';
import { errorMessage, isConflict, isNotFound, mergePatch } from './kube.js';

export interface NodeRegistration {
  stop(): void;
}

const leaseDurationSeconds = 40;
const leaseRenewMs = 10_000;
const statusReportMs = 60_000;

export const nodeCapacity = {
  cpu: nodeAllocatable.cpu,
  memory: nodeAllocatable.memory,
  pods: '110',
  'ephemeral-storage': '100Gi',
};

function nodeStatus(nodeName: string, transition: string) {
  const now = rfc3339(new Date());
  const condition = (type: string, status: string, reason: string, message: string) => ({
    type,
    status,
    reason,
    message,
    lastHeartbeatTime: now,
    lastTransitionTime: transition,
  });
  return {
    capacity: nodeCapacity,
    allocatable: nodeCapacity,
    addresses: [
      { type: 'InternalIP', address: '127.0.0.1' },
      { type: 'Hostname', address: nodeName },
    ],
    conditions: [
      condition(
        'MemoryPressure',
        'False',
        'KubeletHasSufficientMemory',
        'node agent has sufficient memory available',
      ),
      condition('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'node agent has no disk pressure'),
      condition('PIDPressure', 'False', 'KubeletHasSufficientPID', 'node agent has sufficient PID available'),
      condition('Ready', 'True', 'KubeletReady', 'etcd-gitops node agent is posting ready status'),
    ],
    daemonEndpoints: { kubeletEndpoint: { Port: 0 } },
    nodeInfo: {
      architecture: arch() === 'x64' ? 'amd64' : arch(),
      operatingSystem: 'linux',
      osImage: 'etcd-gitops node agent (local processes)',
      kernelVersion: '',
      kubeletVersion: kubernetesVersion,
      kubeProxyVersion: '',
      containerRuntimeVersion: 'etcd-gitops-agent://0.1.0',
      machineID: '',
      systemUUID: '',
      bootID: '',
    },
  };
}

async function ensureNode(core: CoreV1Api, nodeName: string): Promise<V1Node> {
  const labels = {
    'kubernetes.io/hostname': nodeName,
    'kubernetes.io/os': 'linux',
    'kubernetes.io/arch': arch() === 'x64' ? 'amd64' : arch(),
    'node.kubernetes.io/instance-type': 'etcd-gitops-agent',
  };
  try {
    return await core.createNode({ body: { metadata: { name: nodeName, labels } } });
  } catch (error) {
    if (!isConflict(error)) throw error;
    return core.readNode({ name: nodeName });
  }
}

async function renewLease(coordination: CoordinationV1Api, node: V1Node): Promise<void> {
  const name = node.metadata?.name ?? '';
  const namespace = 'kube-node-lease';
  const renewTime = new V1MicroTime();
  try {
    await coordination.patchNamespacedLease(
      { name, namespace, body: { spec: { renewTime: renewTime.toISOString() } } },
      mergePatch,
    );
  } catch (error) {
    if (!isNotFound(error)) throw error;
    await coordination.createNamespacedLease({
      namespace,
      body: {
        metadata: {
          name,
          ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name, uid: node.metadata?.uid ?? '' }],
        },
        spec: { holderIdentity: name, leaseDurationSeconds, renewTime },
      },
    });
  }
}

/** Registers `nodeName` (or adopts the existing Node) and keeps it Ready until stop(). */
export async function registerNode(
  core: CoreV1Api,
  coordination: CoordinationV1Api,
  nodeName: string,
  log: Logger,
): Promise<NodeRegistration> {
  const node = await ensureNode(core, nodeName);
  const transition = rfc3339(new Date());
  const postStatus = () =>
    core.patchNodeStatus({ name: nodeName, body: { status: nodeStatus(nodeName, transition) } }, mergePatch);
  await postStatus();
  await renewLease(coordination, node);
  log.info({ node: nodeName }, 'Registered node');
  const report = (what: string, action: () => Promise<unknown>) => () => {
    action().catch((error) => log.warn({ node: nodeName, err: errorMessage(error) }, `Failed to ${what}`));
  };
  const leaseTimer = setInterval(
    report('renew node lease', () => renewLease(coordination, node)),
    leaseRenewMs,
  );
  const statusTimer = setInterval(report('post node status', postStatus), statusReportMs);
  return {
    stop() {
      clearInterval(leaseTimer);
      clearInterval(statusTimer);
    },
  };
}
