// CoreDNS (built from the Go module proxy) serving `cluster.local` from the API server, in the environment
// namespace on the bridge address every kubelet hands its Pods as their nameserver. It answers Service names,
// `<pod>.<subdomain>.<ns>.svc` and Pod reverse lookups; it forwards nothing, so any other name fails at once
// instead of leaving the machine.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { corednsBinary } from '../binaries.js';
import { type ManagedProcess, startProcess } from '../process-group.js';
import { clusterDNS, clusterDomain } from './layout.js';

export function corefile(kubeconfig: string): string {
  return `.:53 {
    bind ${clusterDNS}
    errors
    ready 127.0.0.1:8181
    kubernetes ${clusterDomain} in-addr.arpa ip6.arpa {
        kubeconfig ${kubeconfig}
        pods insecure
        ttl 5
    }
}
`;
}

/** Starts CoreDNS in the environment namespace; the kubeconfig must work from inside it. */
export async function startCoreDNS(
  dir: string,
  input: { netns: string; kubeconfig: string },
  track: (p: ManagedProcess) => ManagedProcess,
): Promise<ManagedProcess> {
  const path = join(dir, 'Corefile');
  await writeFile(path, corefile(input.kubeconfig));
  return track(
    startProcess({
      name: 'coredns',
      command: corednsBinary(),
      args: ['-conf', path],
      logPath: join(dir, 'coredns.log'),
      netns: input.netns,
    }),
  );
}
