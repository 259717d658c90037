// Which names the agent publishes: `<hostname>.<subdomain>.<ns>.svc` for Pods that set both, and
// `<service>.<ns>.svc` for the first eligible endpoint of each selector Service (ready Pods, or any
// running Pod when the Service publishes not-ready addresses), each also under `.cluster.local`.
import type { HostsEntry } from './hosts-file.js';

export interface PodEndpoint {
  namespace: string;
  name: string;
  labels: Record<string, string>;
  hostname?: string;
  subdomain?: string;
  ip: string;
  ready: boolean;
  terminating: boolean;
}

export interface ServiceInfo {
  namespace: string;
  name: string;
  selector?: Record<string, string>;
  publishNotReadyAddresses?: boolean;
}

const clusterDomain = 'cluster.local';

function matches(selector: Record<string, string>, labels: Record<string, string>): boolean {
  return Object.entries(selector).every(([key, value]) => labels[key] === value);
}

function serviceEndpoint(service: ServiceInfo, pods: PodEndpoint[]): PodEndpoint | undefined {
  const selector = service.selector;
  if (!selector || Object.keys(selector).length === 0) return undefined;
  return pods
    .filter((pod) => pod.namespace === service.namespace && matches(selector, pod.labels))
    .filter((pod) => !pod.terminating && (pod.ready || service.publishNotReadyAddresses === true))
    .sort((a, b) => a.name.localeCompare(b.name))[0];
}

/** Hosts entries for `pods` and `services`, one line per address, names in a stable order. */
export function dnsRecords(pods: PodEndpoint[], services: ServiceInfo[]): HostsEntry[] {
  const byIp = new Map<string, string[]>();
  const add = (ip: string, fqdn: string) => {
    const names = byIp.get(ip) ?? [];
    names.push(fqdn, `${fqdn}.${clusterDomain}`);
    byIp.set(ip, names);
  };
  for (const pod of pods) {
    if (pod.hostname && pod.subdomain) add(pod.ip, `${pod.hostname}.${pod.subdomain}.${pod.namespace}.svc`);
  }
  for (const service of services) {
    const endpoint = serviceEndpoint(service, pods);
    if (endpoint) add(endpoint.ip, `${service.name}.${service.namespace}.svc`);
  }
  return [...byIp.entries()]
    .sort(([a], [b]) => a.localeCompare(b, 'en', { numeric: true }))
    .map(([ip, names]) => ({ ip, names: [...new Set(names)].sort() }));
}
