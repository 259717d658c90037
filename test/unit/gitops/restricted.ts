// The Pod Security Standards `restricted` profile (Kubernetes v1.34, version "latest"), as checks on a Pod spec.
import type { Manifest } from './dist-files.js';

const ALLOWED_VOLUMES = [
  'configMap',
  'csi',
  'downwardAPI',
  'emptyDir',
  'ephemeral',
  'persistentVolumeClaim',
  'projected',
  'secret',
];
const SECCOMP_OK = ['RuntimeDefault', 'Localhost'];

/** The Pod template spec of a workload object, or undefined for objects that run no Pods. */
export function podSpecOf(o: Manifest): Manifest | undefined {
  switch (o.kind) {
    case 'Pod':
      return o.spec;
    case 'Deployment':
    case 'StatefulSet':
    case 'DaemonSet':
    case 'ReplicaSet':
    case 'Job':
      return o.spec?.template?.spec;
    case 'CronJob':
      return o.spec?.jobTemplate?.spec?.template?.spec;
    default:
      return undefined;
  }
}

function containerViolations(pod: Manifest, c: Manifest): string[] {
  const sc = c.securityContext ?? {};
  const podSc = pod.securityContext ?? {};
  const found: string[] = [];
  if (sc.privileged === true) found.push('privileged');
  if (sc.allowPrivilegeEscalation !== false) found.push('allowPrivilegeEscalation != false');
  if (!(sc.capabilities?.drop ?? []).includes('ALL')) found.push('capabilities.drop lacks ALL');
  if ((sc.capabilities?.add ?? []).some((cap: string) => cap !== 'NET_BIND_SERVICE'))
    found.push('capabilities.add');
  if ((sc.runAsNonRoot ?? podSc.runAsNonRoot) !== true) found.push('runAsNonRoot != true');
  if (sc.runAsUser === 0 || podSc.runAsUser === 0) found.push('runAsUser 0');
  if (!SECCOMP_OK.includes(sc.seccompProfile?.type ?? podSc.seccompProfile?.type))
    found.push('seccompProfile');
  if ((c.ports ?? []).some((p: Manifest) => p.hostPort)) found.push('hostPort');
  return found.map((v) => `container ${c.name}: ${v}`);
}

/** Every `restricted` violation of a Pod spec; empty when it passes. */
export function restrictedViolations(pod: Manifest): string[] {
  const found: string[] = [];
  for (const host of ['hostNetwork', 'hostPID', 'hostIPC']) if (pod[host]) found.push(host);
  for (const v of pod.volumes ?? []) {
    const type = Object.keys(v).find((k) => k !== 'name');
    if (!type || !ALLOWED_VOLUMES.includes(type)) found.push(`volume ${v.name}: ${type}`);
  }
  const containers = [
    ...(pod.initContainers ?? []),
    ...(pod.containers ?? []),
    ...(pod.ephemeralContainers ?? []),
  ];
  if (containers.length === 0) found.push('no containers');
  for (const c of containers) found.push(...containerViolations(pod, c));
  return found;
}
