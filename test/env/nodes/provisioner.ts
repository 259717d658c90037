// The environment's volume provisioner, as local-path-provisioner works: the default StorageClass `local` binds
// on first consumer; once the scheduler has picked a node for a Pod (annotation
// `volume.kubernetes.io/selected-node` on its claim), a `local` PersistentVolume is created on that node's
// directory with node affinity to it, and the PV controller binds the two. Data outlives Pods; a claim's
// directory is deleted with its volume when the claim goes (reclaim policy Delete). `wipe()` empties a claim's
// directory, as a lost disk would.
// Like local-path-provisioner it watches claims and volumes (the client's informers) and acts on each change, with
// no periodic polling: a poll every 250 ms cost a new TLS connection through the environment's forward each time,
// a fifth of a core per idle environment.
import { chmod, mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import {
  CoreV1Api,
  type Informer,
  type KubeConfig,
  type KubernetesObject,
  makeInformer,
  type ObjectCache,
  StorageV1Api,
  type V1PersistentVolume,
  type V1PersistentVolumeClaim,
} from '@kubernetes/client-node';
import type { Logger } from 'pino';

export const storageClassName = 'local';
export const provisionerName = 'etcd-gitops.test/local-dir';
const selectedNodeAnnotation = 'volume.kubernetes.io/selected-node';
/** After an informer's watch fails (the client's informer stops then), it is started again this much later. */
const restartMs = 1_000;

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
  const claimInformer = makeInformer(kubeConfig, '/api/v1/persistentvolumeclaims', () =>
    core.listPersistentVolumeClaimForAllNamespaces(),
  );
  const volumeInformer = makeInformer(kubeConfig, '/api/v1/persistentvolumes', () =>
    core.listPersistentVolume(),
  );
  // Volumes created or deleted by a pass the volume cache may not show yet: never acted on twice.
  const created = new Set<string>();
  const deleted = new Set<string>();
  const pass = async () => {
    const existing = new Set(volumeInformer.list().map((v) => v.metadata?.name));
    for (const claim of claimInformer.list()) {
      const node = needsVolume(claim);
      const volumeName = `pvc-${claim.metadata?.uid}`;
      if (!node || existing.has(volumeName) || created.has(volumeName)) continue;
      const path = join(
        dir,
        node,
        `${claim.metadata?.namespace}_${claim.metadata?.name}_${claim.metadata?.uid}`,
      );
      await mkdir(path, { recursive: true });
      // World-writable as local-path-provisioner makes them: Pods run as any uid (ours as 65532).
      await chmod(path, 0o777);
      await core.createPersistentVolume({ body: volumeFor(claim, node, path) });
      created.add(volumeName);
      log.info({ claim: claim.metadata?.name, node, path }, 'Provisioned volume');
    }
    for (const volume of volumeInformer.list()) {
      const name = volume.metadata?.name ?? '';
      const ours = volume.metadata?.annotations?.['pv.kubernetes.io/provisioned-by'] === provisionerName;
      if (!ours || volume.status?.phase !== 'Released' || deleted.has(name)) continue;
      const path = volume.spec?.local?.path;
      if (path) await rm(path, { recursive: true, force: true });
      await core.deletePersistentVolume({ name });
      deleted.add(name);
      log.info({ volume: name }, 'Deleted released volume');
    }
  };
  // One pass at a time; a change during a pass asks for one more after it, a failed pass for one a second later.
  let passing = false;
  let again = false;
  const schedule = (): void => {
    if (stopped) return;
    if (passing) {
      again = true;
      return;
    }
    passing = true;
    void pass().then(
      () => {
        passing = false;
        if (again) {
          again = false;
          schedule();
        }
      },
      (error) => {
        passing = false;
        again = false;
        if (stopped) return;
        log.warn({ err: (error as Error).message }, 'Provisioner pass failed');
        setTimeout(schedule, restartMs);
      },
    );
  };
  const watch = <T extends KubernetesObject>(informer: Informer<T> & ObjectCache<T>, what: string) => {
    for (const verb of ['add', 'update', 'delete'] as const) informer.on(verb, schedule);
    informer.on('error', (error) => {
      if (stopped) return;
      log.warn(
        { err: String((error as Error)?.message ?? error), informer: what },
        'Provisioner watch ended',
      );
      setTimeout(() => {
        if (!stopped) void informer.start().then(schedule, () => undefined);
      }, restartMs);
    });
  };
  watch(claimInformer, 'persistentvolumeclaims');
  watch(volumeInformer, 'persistentvolumes');
  await Promise.all([claimInformer.start(), volumeInformer.start()]);
  schedule();
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
      void claimInformer.stop();
      void volumeInformer.stop();
    },
  };
}
