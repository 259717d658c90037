// Each Pod volume as a host directory: emptyDir under the Pod's own directory (removed with the Pod),
// persistentVolumeClaim under <stateDir>/pvc/<ns>/<claim> (outlives the Pod), secret/configMap/
// downwardAPI/projected as files written once at Pod start.
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { V1DownwardAPIVolumeFile, V1Pod, V1Volume, V1VolumeProjection } from '@kubernetes/client-node';
import type { ConfigSources } from './env.js';
import { fieldValue, type PodPlacement, resourceValue } from './field-ref.js';
import { defaultFileMode, keyFiles, type VolumeFile, writeVolumeFiles } from './volume-files.js';

/** Token and CA material for service account volumes. */
export interface IdentitySources {
  /** A bound token from the TokenRequest API (`serviceaccounts/<sa>/token`). */
  token(pod: V1Pod, audience: string | undefined, expirationSeconds: number | undefined): Promise<string>;
  /** The `ca.crt` of the namespace's `kube-root-ca.crt` ConfigMap. */
  rootCA(namespace: string): Promise<string>;
}

export interface VolumeContext {
  pod: V1Pod;
  placement: PodPlacement;
  stateDir: string;
  /** This Pod's private directory (`<stateDir>/pods/<uid>`). */
  podDir: string;
  config: ConfigSources;
  identity: IdentitySources;
}

export interface HostVolume {
  hostPath: string;
  /** The volume itself is read-only (secret, configMap, projected, downwardAPI, readOnly claims). */
  readOnly: boolean;
}

/** Directory of a claim's data: one per PVC name, shared by every Pod that mounts it, kept after them. */
export function claimDir(stateDir: string, namespace: string, claim: string): string {
  return join(stateDir, 'pvc', namespace, claim);
}

function downwardFiles(
  ctx: VolumeContext,
  items: V1DownwardAPIVolumeFile[] | undefined,
  defaultMode?: number,
) {
  return (items ?? []).map((item): VolumeFile => {
    let content = '';
    if (item.fieldRef) content = fieldValue(ctx.pod, item.fieldRef.fieldPath, ctx.placement);
    else if (item.resourceFieldRef) {
      const container = ctx.pod.spec?.containers.find((c) => c.name === item.resourceFieldRef?.containerName);
      content = resourceValue(container, item.resourceFieldRef);
    }
    return { path: item.path, content, mode: item.mode ?? defaultMode ?? defaultFileMode };
  });
}

async function objectFiles(
  ctx: VolumeContext,
  kind: 'secret' | 'configMap',
  source: { name?: string; items?: { key: string; path: string; mode?: number }[]; optional?: boolean },
  defaultMode: number | undefined,
): Promise<VolumeFile[]> {
  const namespace = ctx.pod.metadata?.namespace ?? 'default';
  const name = source.name ?? '';
  const data =
    kind === 'secret'
      ? await ctx.config.secret(namespace, name)
      : await ctx.config.configMap(namespace, name);
  if (!data) {
    if (source.optional) return [];
    throw new Error(`${kind} "${name}" not found`);
  }
  return keyFiles(data, source.items, defaultMode, `${kind} ${namespace}/${name}`, source.optional);
}

async function projectionFiles(
  ctx: VolumeContext,
  source: V1VolumeProjection,
  mode?: number,
): Promise<VolumeFile[]> {
  if (source.secret) return objectFiles(ctx, 'secret', source.secret, mode);
  if (source.configMap) {
    const namespace = ctx.pod.metadata?.namespace ?? 'default';
    if (source.configMap.name === 'kube-root-ca.crt') {
      const ca = await ctx.identity.rootCA(namespace);
      return keyFiles({ 'ca.crt': ca }, source.configMap.items, mode, 'configmap kube-root-ca.crt', false);
    }
    return objectFiles(ctx, 'configMap', source.configMap, mode);
  }
  if (source.downwardAPI) return downwardFiles(ctx, source.downwardAPI.items, mode);
  if (source.serviceAccountToken) {
    const { audience, expirationSeconds, path } = source.serviceAccountToken;
    const token = await ctx.identity.token(ctx.pod, audience, expirationSeconds);
    return [{ path, content: token, mode: mode ?? defaultFileMode }];
  }
  throw new Error(
    `projected volume source ${Object.keys(source).join(',')} is not supported by the node agent`,
  );
}

async function volumeFiles(ctx: VolumeContext, volume: V1Volume): Promise<VolumeFile[] | undefined> {
  if (volume.secret) {
    const { secretName, items, optional, defaultMode } = volume.secret;
    return objectFiles(ctx, 'secret', { name: secretName, items, optional }, defaultMode);
  }
  if (volume.configMap) return objectFiles(ctx, 'configMap', volume.configMap, volume.configMap.defaultMode);
  if (volume.downwardAPI) return downwardFiles(ctx, volume.downwardAPI.items, volume.downwardAPI.defaultMode);
  if (volume.projected) {
    const files: VolumeFile[] = [];
    for (const source of volume.projected.sources ?? []) {
      files.push(...(await projectionFiles(ctx, source, volume.projected.defaultMode)));
    }
    return files;
  }
  return undefined;
}

/** Prepares one volume and returns where it lives on the host. Throws with a kubelet-like message. */
export async function prepareVolume(ctx: VolumeContext, volume: V1Volume): Promise<HostVolume> {
  const namespace = ctx.pod.metadata?.namespace ?? 'default';
  if (volume.emptyDir) {
    const hostPath = join(ctx.podDir, 'volumes', volume.name);
    mkdirSync(hostPath, { recursive: true });
    return { hostPath, readOnly: false };
  }
  if (volume.persistentVolumeClaim) {
    const hostPath = claimDir(ctx.stateDir, namespace, volume.persistentVolumeClaim.claimName);
    mkdirSync(hostPath, { recursive: true });
    return { hostPath, readOnly: volume.persistentVolumeClaim.readOnly === true };
  }
  if (volume.hostPath) return { hostPath: volume.hostPath.path, readOnly: false };
  const files = await volumeFiles(ctx, volume);
  if (!files) {
    const kinds = Object.keys(volume).filter((key) => key !== 'name');
    throw new Error(`volume "${volume.name}" of type ${kinds.join(',')} is not supported by the node agent`);
  }
  const hostPath = join(ctx.podDir, 'volumes', volume.name);
  rmSync(hostPath, { recursive: true, force: true });
  writeVolumeFiles(hostPath, files);
  return { hostPath, readOnly: true };
}

/** Every volume of the Pod, by name. */
export async function prepareVolumes(ctx: VolumeContext): Promise<Map<string, HostVolume>> {
  const prepared = new Map<string, HostVolume>();
  for (const volume of ctx.pod.spec?.volumes ?? [])
    prepared.set(volume.name, await prepareVolume(ctx, volume));
  return prepared;
}
