// The downward API: values of `fieldRef` and `resourceFieldRef` for one Pod on this node.
import type { V1Container, V1Pod, V1ResourceFieldSelector } from '@kubernetes/client-node';

export interface PodPlacement {
  podIP: string;
  hostIP: string;
  nodeName: string;
}

/** What the node offers a container without limits (its allocatable cpu and memory). */
export const nodeAllocatable = { cpu: '2', memory: '8Gi' } as const;

function formatMap(map: Record<string, string> | undefined): string {
  return Object.entries(map ?? {})
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, value]) => `${key}=${JSON.stringify(value)}`)
    .join('\n');
}

/** Value of `fieldPath` for `pod`; `metadata.labels`/`annotations` without a key are the volume format. */
export function fieldValue(pod: V1Pod, fieldPath: string, placement: PodPlacement): string {
  const keyed = /^metadata\.(labels|annotations)\['(.+)'\]$/.exec(fieldPath);
  if (keyed) {
    const map = keyed[1] === 'labels' ? pod.metadata?.labels : pod.metadata?.annotations;
    return map?.[keyed[2] ?? ''] ?? '';
  }
  switch (fieldPath) {
    case 'metadata.name':
      return pod.metadata?.name ?? '';
    case 'metadata.namespace':
      return pod.metadata?.namespace ?? '';
    case 'metadata.uid':
      return pod.metadata?.uid ?? '';
    case 'metadata.labels':
      return formatMap(pod.metadata?.labels);
    case 'metadata.annotations':
      return formatMap(pod.metadata?.annotations);
    case 'spec.nodeName':
      return placement.nodeName;
    case 'spec.serviceAccountName':
      return pod.spec?.serviceAccountName ?? 'default';
    case 'status.podIP':
    case 'status.podIPs':
      return placement.podIP;
    case 'status.hostIP':
    case 'status.hostIPs':
      return placement.hostIP;
    default:
      throw new Error(`fieldRef.fieldPath '${fieldPath}' is not supported by the node agent`);
  }
}

const suffixes: Record<string, number> = {
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
};

/** A Kubernetes quantity (`100m`, `256Mi`, `2`) as a number. */
export function parseQuantity(quantity: string): number {
  const match = /^([0-9.]+)(n|u|m|k|M|G|T|Ki|Mi|Gi|Ti)?$/.exec(quantity.trim());
  if (!match) throw new Error(`'${quantity}' is not a quantity the node agent understands`);
  return Number(match[1]) * (suffixes[match[2] ?? ''] ?? 1);
}

/** Value of a `resourceFieldRef` (limits fall back to the node's allocatable), rounded up as the kubelet does. */
export function resourceValue(container: V1Container | undefined, ref: V1ResourceFieldSelector): string {
  const [kind, resource] = ref.resource.split('.') as ['limits' | 'requests', 'cpu' | 'memory'];
  const declared = container?.resources?.[kind]?.[resource] ?? container?.resources?.limits?.[resource];
  const fallback =
    resource === 'cpu' ? nodeAllocatable.cpu : resource === 'memory' ? nodeAllocatable.memory : '0';
  const value = parseQuantity(String(declared ?? fallback));
  const divisor = parseQuantity(String(ref.divisor ?? '1'));
  return String(Math.ceil(value / divisor));
}
