// Everything a container process needs, assembled from its Pod: environment, argv through the image
// table, mounts (with the Pod's resolv.conf and, when admission did not add it, a service account token).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { V1Container, V1Pod, V1Volume } from '@kubernetes/client-node';
import type { ContainerLaunch } from './container-process.js';
import { type ConfigSources, containerEnv, expandArgv } from './env.js';
import type { PodPlacement } from './field-ref.js';
import { containerArgv, type LocalImage, podExecutable, resolveExecutable } from './images.js';
import { containerMounts, type Mount, type MountPoints } from './mounts.js';
import type { HostVolume } from './volumes.js';

export const defaultPath = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** The volume the ServiceAccount admission plugin would add, for API servers that run without it. */
export const implicitTokenVolume: V1Volume = {
  name: 'kube-api-access-agent',
  projected: {
    defaultMode: 0o644,
    sources: [
      { serviceAccountToken: { path: 'token', expirationSeconds: 3607 } },
      { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
      { downwardAPI: { items: [{ path: 'namespace', fieldRef: { fieldPath: 'metadata.namespace' } }] } },
    ],
  },
};

/**
 * The Pod's resolv.conf, bound over /etc/resolv.conf in each container: names resolve from the hosts
 * file (the agent's block) and any other DNS query goes to 127.0.0.1, where it fails fast, instead of
 * leaving the machine through the host's nameserver. Returns its path.
 */
export function writeResolvConf(podDir: string, namespace: string): string {
  const path = join(podDir, 'resolv.conf');
  mkdirSync(podDir, { recursive: true });
  const search = `${namespace}.svc.cluster.local svc.cluster.local cluster.local`;
  writeFileSync(path, `nameserver 127.0.0.1\nsearch ${search}\noptions ndots:5 timeout:1 attempts:1\n`);
  return path;
}

export interface LaunchInputs {
  pod: V1Pod;
  container: V1Container;
  image: LocalImage;
  placement: PodPlacement;
  config: ConfigSources;
  /** KUBERNETES_SERVICE_* and the like. */
  baseEnv: Record<string, string>;
  volumes: Map<string, HostVolume>;
  /** Mounts every container gets (resolv.conf, implicit token). */
  extraMounts: Mount[];
  mountPoints: MountPoints;
  /** The agent's state directory (volume directories live under it). */
  stateDir: string;
  logPath: string;
}

/** Throws ContainerConfigError for missing config, Error for a command the image does not hold. */
export async function containerLaunch(inputs: LaunchInputs): Promise<ContainerLaunch> {
  const { pod, container, image } = inputs;
  const base = {
    PATH: defaultPath,
    HOSTNAME: pod.spec?.hostname ?? pod.metadata?.name ?? '',
    ...inputs.baseEnv,
  };
  const env = await containerEnv(pod, container, inputs.placement, inputs.config, base);
  const [command, ...args] = expandArgv(containerArgv(image, container.command, container.args), env);
  if (!command) throw new Error(`container "${container.name}" has no command and its image no entrypoint`);
  const executable = resolveExecutable(image, command);
  if (!executable)
    throw new Error(`exec: "${command}": executable file not found in image ${container.image}`);
  // The image's own files first: a Pod volume mounted later (an emptyDir at /tmp) cannot hide them.
  const mounts = [
    ...(image.mounts ?? []),
    ...containerMounts(container, inputs.volumes),
    ...inputs.extraMounts,
  ];
  for (const mount of mounts) inputs.mountPoints.ensure(mount);
  return {
    argv: [...podExecutable(image, executable, inputs.placement.podIP), ...args],
    env,
    mounts,
    workingDir: container.workingDir ?? image.workingDir ?? '/',
    sourceDir: inputs.stateDir,
    logPath: inputs.logPath,
  };
}
