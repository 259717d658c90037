// Where everything of one environment with real nodes lives: addresses, names and paths, as pure functions.
//
// One network namespace per environment ("the environment namespace") holds the control plane, CoreDNS, MinIO
// and a bridge; each node has its own namespace joined to that bridge by a veth pair, and a bridge of its own
// for its Pods. Every address below exists only inside those namespaces, so environments side by side reuse
// them freely; the host's own namespace gets nothing (see ../README.md, "Real nodes").
import { join } from 'node:path';
import { serviceClusterIPRange } from '../component-flags.js';

/** The node network: the environment namespace's bridge and one address per node. */
export const nodeNetwork = {
  cidr: '10.77.0.0/24',
  prefix: 24,
  gateway: '10.77.0.1',
  bridge: 'egt0',
} as const;

/**
 * Where the test process, and the controller processes, forwards and CONNECT proxy it starts, reach Pods from: the
 * environment namespace, whose address on the node network is the bridge's (no Pod address, no node's own). To a
 * NetworkPolicy enforcer that is a client outside the Pod network, as a controller or application run outside
 * Kubernetes is, so a cluster's policy admits it only the way such a user must: `clients: [{ ipBlock: { cidr:
 * outsideClusterCidr } }]`. Nothing else in the environment is exempt from enforcement.
 */
export const outsideClusterCidr = `${nodeNetwork.gateway}/32`;

/** Service cluster IPs: the control plane's range, which kube-proxy serves inside each node namespace. */
export const serviceCidr = serviceClusterIPRange;

/** CoreDNS listens on the environment namespace's bridge address; kubelets hand it to Pods. */
export const clusterDNS = nodeNetwork.gateway;
export const clusterDomain = 'cluster.local';

export interface NodeLayout {
  /** `node-1`, `node-2`, ... */
  readonly name: string;
  /** 1-based. */
  readonly index: number;
  /** The node's address on the node network (its InternalIP). */
  readonly ip: string;
  /** The node's Pod subnet, e.g. `10.244.1.0/24`. */
  readonly podCidr: string;
  /** The node's Pod bridge's own address, the Pods' gateway. */
  readonly podGateway: string;
  /** The veth end inside the environment namespace (on its bridge). */
  readonly hostVeth: string;
  /** Everything of this node on disk. */
  readonly dir: string;
  /** The network namespace file (a bind mount of the namespace). */
  readonly netnsPath: string;
  /** The cgroup (in every v1 hierarchy) under which the kubelet puts its Pods. */
  readonly cgroupRoot: string;
}

export const maxNodes = 9;

/**
 * The layout of node `index` (1-based) of the environment whose state lives in `envDir`. `cgroupPrefix` makes
 * cgroup names unique on the machine (cgroups are not namespaced here).
 */
export function nodeLayout(envDir: string, index: number, cgroupPrefix: string): NodeLayout {
  if (!Number.isInteger(index) || index < 1 || index > maxNodes) {
    throw new Error(`node index must be an integer from 1 to ${maxNodes}, got ${index}`);
  }
  const name = `node-${index}`;
  const dir = join(envDir, name);
  return {
    name,
    index,
    ip: `10.77.0.${10 + index}`,
    podCidr: `10.244.${index}.0/24`,
    podGateway: `10.244.${index}.1`,
    hostVeth: `egt-n${index}`,
    dir,
    netnsPath: join(dir, 'netns'),
    cgroupRoot: `/${cgroupPrefix}-${name}`,
  };
}

/**
 * The longest Unix socket path a node makes below the environment's directory, beyond the directory itself:
 * `/node-N/kubelet/pod-resources/kubelet.sock`. A socket path has at most 107 bytes. (The device-plugin socket is
 * not below it: kubelet v1.34 binds it at a fixed path, see kubelet-start-lock.ts.)
 */
const longestSocket = '/node-9/kubelet/pod-resources/kubelet.sock';
export const longestSocketSuffix = longestSocket.length;

/** Throws when the environment's directory is too long to hold the nodes' Unix sockets. */
export function checkSocketRoom(envDir: string): void {
  const longest = Buffer.byteLength(envDir) + longestSocketSuffix;
  if (longest > 107) {
    throw new Error(
      `the environment directory ${envDir} is too long for its nodes' Unix sockets (${longest} bytes with ` +
        `'${longestSocket}', at most 107 allowed): set TMPDIR or the dir option to a shorter path`,
    );
  }
}

/** The environment namespace's file. */
export function environmentNetnsPath(envDir: string): string {
  return join(envDir, 'netns');
}
