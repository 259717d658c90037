// The environment's NetworkPolicy enforcer: kube-router's firewall controller alone (no BGP router, no service
// proxy: kube-proxy serves Services) inside one node's namespace, as a policy add-on runs on every node of a real
// cluster (docs/adr/0004-network-policy-enforcer.md). It filters the traffic to and from the Pods of its node with
// iptables chains and ipsets, which live in the node's namespace and go with it; nothing is written elsewhere.
// Identity `system:kube-router`, bound to a read-only ClusterRole (`grantKubeRouter`).
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { CoreV1Api, type KubeConfig, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { kubeRouterBinary } from '../binaries.js';
import type { Pki } from '../certs.js';
import { writeClientKubeconfig } from '../kubeconfig.js';
import { type ManagedProcess, startProcess } from '../process-group.js';
import { waitFor } from '../wait.js';
import { type NodeLayout, serviceCidr } from './layout.js';

export const KUBE_ROUTER_USER = 'system:kube-router';
const ROLE = 'egt:kube-router';

/** What kube-router reads: the Pods, namespaces and policies it enforces, and its own Node (for its address). */
export async function grantKubeRouter(kubeConfig: KubeConfig): Promise<void> {
  const rbac = kubeConfig.makeApiClient(RbacAuthorizationV1Api);
  const read = ['get', 'list', 'watch'];
  await rbac.createClusterRole({
    body: {
      metadata: { name: ROLE },
      rules: [
        { apiGroups: [''], resources: ['pods', 'namespaces', 'nodes', 'services', 'endpoints'], verbs: read },
        { apiGroups: ['networking.k8s.io'], resources: ['networkpolicies'], verbs: read },
        { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: read },
      ],
    },
  });
  await rbac.createClusterRoleBinding({
    body: {
      metadata: { name: ROLE },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: ROLE },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: KUBE_ROUTER_USER }],
    },
  });
}

/** The line kube-router logs (at -v 1) after each full sync of its chains. */
const SYNCED = 'sync iptables took';

/**
 * Starts kube-router on `node` once its Node object exists (kube-router reads the node's InternalIP at start and
 * exits without it) and resolves after its first full sync, so Pods created afterwards are filtered.
 */
export async function startKubeRouter(
  node: NodeLayout,
  input: { pki: Pki; server: string; api: KubeConfig },
  track: (p: ManagedProcess) => ManagedProcess,
): Promise<ManagedProcess> {
  const kubeconfig = await writeClientKubeconfig({
    dir: join(node.dir, 'kube-router'),
    pki: input.pki,
    server: input.server,
    subject: `/CN=${KUBE_ROUTER_USER}`,
    name: 'kube-router',
  });
  const core = input.api.makeApiClient(CoreV1Api);
  await waitFor(() => core.readNode({ name: node.name }).then(() => true), {
    what: `Node ${node.name} registered (kube-router reads its address)`,
    timeoutMs: 60_000,
    intervalMs: 250,
  });
  const logPath = join(node.dir, 'kube-router.log');
  // After a restart the log already holds the last run's lines: only what this run appends counts.
  const from = await stat(logPath).then(
    (st) => st.size,
    () => 0,
  );
  const router = track(
    startProcess({
      name: `kube-router-${node.name}`,
      command: kubeRouterBinary(),
      args: kubeRouterArgs(node, kubeconfig),
      logPath,
      netns: node.netnsPath,
    }),
  );
  await waitFor(async () => (await readFile(logPath)).subarray(from).includes(SYNCED), {
    what: `kube-router on ${node.name} to sync its NetworkPolicy chains`,
    timeoutMs: 60_000,
    intervalMs: 200,
    abortIf: () => {
      const status = router.exitStatus();
      return status ? `kube-router ended ${status}:\n${router.logTail(15)}` : undefined;
    },
  });
  return router;
}

export function kubeRouterArgs(node: Pick<NodeLayout, 'name'>, kubeconfig: string): string[] {
  return [
    '--run-firewall=true',
    '--run-router=false',
    '--run-service-proxy=false',
    '--run-loadbalancer=false',
    `--kubeconfig=${kubeconfig}`,
    `--hostname-override=${node.name}`,
    `--service-cluster-ip-range=${serviceCidr}`,
    '--enable-ipv4=true',
    '--enable-ipv6=false',
    // Its health server would listen on every address of the node; nothing here asks it.
    '--health-port=0',
    '--v=1',
  ];
}
