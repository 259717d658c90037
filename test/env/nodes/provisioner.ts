// The environment's volume provisioner, as local-path-provisioner works: the default StorageClass `local` binds
// on first consumer; once the scheduler has picked a node for a Pod (annotation
// `volume.kubernetes.io/selected-node` on its claim), a `local` PersistentVolume is created on that node's
// directory with node affinity to it, and the PV controller binds the two. Data outlives Pods; a claim's
// directory is deleted with its volume when the claim goes (reclaim policy Delete). `wipe()` empties a claim's
// directory, as a lost disk would.
import { chmod, mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import {
  CoreV1Api,
  type KubeConfig,
  StorageV1Api,
  type V1PersistentVolume,
  type V1PersistentVolumeClaim,
} from '@kubernetes/client-node';
import type { Logger } from 'pino';

export const storageClassName = 'local';
export const provisionerName = 'etcd-gitops.test/local-dir';
const selectedNodeAnnotation = 'volume.kubernetes.io/selected-node';
const pollMs = 250;

/** The PersistentVolume a claim needs on `node`, at `path`. */
export function volumeFor(claim: V1PersistentVolumeClaim, node: string, path: string): V1PersistentVolume {
  const meta = claim.metadata ?? {};
  return {
    metadata: {
      name: `pvc-${meta.uid}`,
      annotations: { 'pv.kubernetes.io/provisioned-by': provisionerName },
      labels: { 'etcd-gitops.test/node': node },
    },
    spec: {
      capacity: { storage: String(claim.spec?.resources?.requests?.storage ?? '1Gi') },
      accessModes: claim.spec?.accessModes ?? ['ReadWriteOnce'],
      storageClassName,
      volumeMode: 'Filesystem',
      persistentVolumeReclaimPolicy: 'Delete',
      claimRef: {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        namespace: meta.namespace,
        name: meta.name,
        uid: meta.uid,
      },
      local: { path },
      nodeAffinity: {
        required: {
          nodeSelectorTerms: [
            { matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [node] }] },
          ],
        },
      },
    },
  };
}

/** Whether this provisioner should act on the claim now. */
export function needsVolume(claim: V1PersistentVolumeClaim): string | undefined {
  if (claim.spec?.volumeName || claim.metadata?.deletionTimestamp) return undefined;
  if (claim.spec?.storageClassName !== storageClassName) return undefined;
  return claim.metadata?.annotations?.[selectedNodeAnnotation];
}

export interface Provisioner {
  /** Empties the claim's directory (the volume stays bound). */
  wipe(namespace: string, claim: string): Promise<void>;
  /** The claim's directory on its node, once provisioned. */
  pathOf(namespace: string, claim: string): Promise<string>;
  stop(): void;
}

/** Creates the default StorageClass and starts provisioning under `dir/<node>/`. */
export async function startProvisioner(
  kubeConfig: KubeConfig,
  dir: string,
  log: Logger,
): Promise<Provisioner> {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  await kubeConfig.makeApiClient(StorageV1Api).createStorageClass({
    body: {
      metadata: {
        name: storageClassName,
        annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' },
      },
      provisioner: provisionerName,
      volumeBindingMode: 'WaitForFirstConsumer',
      reclaimPolicy: 'Delete',
    },
  });
  let stopped = false;
  const pass = async () => {
    const [claims, volumes] = await Promise.all([
      core.listPersistentVolumeClaimForAllNamespaces(),
      core.listPersistentVolume(),
    ]);
    const existing = new Set(volumes.items.map((v) => v.metadata?.name));
    for (const claim of claims.items) {
      const node = needsVolume(claim);
      if (!node || existing.has(`pvc-${claim.metadata?.uid}`)) continue;
      const path = join(
        dir,
        node,
        `${claim.metadata?.namespace}_${claim.metadata?.name}_${claim.metadata?.uid}`,
      );
      await mkdir(path, { recursive: true });
      // World-writable as local-path-provisioner makes them: Pods run as any uid (ours as 65532).
      await chmod(path, 0o777);
      await core.createPersistentVolume({ body: volumeFor(claim, node, path) });
      log.info({ claim: claim.metadata?.name, node, path }, 'Provisioned volume');
    }
    for (const volume of volumes.items) {
      const ours = volume.metadata?.annotations?.['pv.kubernetes.io/provisioned-by'] === provisionerName;
      if (!ours || volume.status?.phase !== 'Released') continue;
      const path = volume.spec?.local?.path;
      if (path) await rm(path, { recursive: true, force: true });
      await core.deletePersistentVolume({ name: volume.metadata?.name ?? '' });
      log.info({ volume: volume.metadata?.name }, 'Deleted released volume');
    }
  };
  const loop = async () => {
    while (!stopped) {
      await pass().catch((error) => {
        if (!stopped) log.warn({ err: (error as Error).message }, 'Provisioner pass failed');
      });
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  };
  void loop();
  const pathOf = async (namespace: string, name: string) => {
    const claim = await core.readNamespacedPersistentVolumeClaim({ namespace, name });
    const volume = claim.spec?.volumeName;
    if (!volume) throw new Error(`claim ${namespace}/${name} is not bound`);
    const path = (await core.readPersistentVolume({ name: volume })).spec?.local?.path;
    if (!path) throw new Error(`volume ${volume} of claim ${namespace}/${name} has no local path`);
    return path;
  };
  return {
    pathOf,
    async wipe(namespace, name) {
      const path = await pathOf(namespace, name);
      for (const entry of await readdir(path)) await rm(join(path, entry), { recursive: true, force: true });
      log.info({ namespace, claim: name, path }, 'Wiped volume');
    },
    stop() {
      stopped = true;
    },
  };
}
