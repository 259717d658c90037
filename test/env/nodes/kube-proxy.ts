// kube-proxy (iptables mode) inside one namespace: a node's, so Service cluster IPs work from that node's Pods, or
// the environment's, so they work from there too (the CONNECT proxy, loopback forwards). Its rules live in that
// namespace only. Identity `system:kube-proxy` (bound to
// `system:node-proxier` by the API server's default RBAC).
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { kubernetesBinary } from '../binaries.js';
import type { Pki } from '../certs.js';
import { writeClientKubeconfig } from '../kubeconfig.js';
import { type ManagedProcess, startProcess } from '../process-group.js';
import type { NodeLayout } from './layout.js';

/** Where a kube-proxy runs: a node, or the environment namespace (no Node object; `label` names its process). */
export type ProxyHost = Pick<NodeLayout, 'name' | 'ip' | 'dir' | 'netnsPath'> & { label?: string };

/** Every node's Pod subnet lies inside this range. */
export const clusterPodCidr = '10.244.0.0/16';

export function kubeProxyConfig(node: ProxyHost, kubeconfig: string): object {
  return {
    apiVersion: 'kubeproxy.config.k8s.io/v1alpha1',
    kind: 'KubeProxyConfiguration',
    clientConnection: { kubeconfig },
    hostnameOverride: node.name,
    bindAddress: node.ip,
    healthzBindAddress: '127.0.0.1:10256',
    metricsBindAddress: '127.0.0.1:10249',
    mode: 'iptables',
    clusterCIDR: clusterPodCidr,
    iptables: { minSyncPeriod: '0s', syncPeriod: '30s' },
    // 0 leaves the machine-wide conntrack settings alone.
    conntrack: {
      maxPerCore: 0,
      min: 0,
      tcpEstablishedTimeout: '0s',
      tcpCloseWaitTimeout: '0s',
    },
  };
}

export async function startKubeProxy(
  node: ProxyHost,
  input: { pki: Pki; server: string },
  track: (p: ManagedProcess) => ManagedProcess,
): Promise<ManagedProcess> {
  const dir = join(node.dir, 'kube-proxy');
  const kubeconfig = await writeClientKubeconfig({
    dir,
    pki: input.pki,
    server: input.server,
    subject: '/CN=system:kube-proxy',
    name: 'kube-proxy',
  });
  const config = join(dir, 'config.json');
  await writeFile(config, JSON.stringify(kubeProxyConfig(node, kubeconfig), null, 2));
  return track(
    startProcess({
      name: `kube-proxy-${node.label ?? node.name}`,
      command: kubernetesBinary('kube-proxy'),
      args: [`--config=${config}`, '--v=1'],
      logPath: join(node.dir, 'kube-proxy.log'),
      netns: node.netnsPath,
    }),
  );
}
