// The agent is also the cluster's storage provisioner: there is no other, and the scheduler does not
// place a Pod whose claim is unbound. Each pending claim gets a `local` PersistentVolume on this node
// (path <stateDir>/pvc/<ns>/<claim>, node affinity to this node) and is bound to it, so `kubectl get pvc`
// shows Bound. When a claim is deleted its volume goes too and the directory moves to
// <stateDir>/pvc-released/, so a new claim of the same name starts empty, as on a real cluster.
import { existsSync, mkdirSync, renameSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { CoreV1Api, V1PersistentVolumeClaim } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { errorMessage, isConflict, isNotFound, mergePatch } from './kube.js';
import { claimDir } from './volumes.js';

export function volumeName(claim: V1PersistentVolumeClaim): string {
  return `pvc-${claim.metadata?.uid ?? ''}`;
}

function releasedDir(stateDir: string, namespace: string, name: string): string {
  return join(stateDir, 'pvc-released', namespace, `${name}-${Date.now()}`);
}

export class ClaimBinder {
  private readonly inFlight = new Set<string>();

  constructor(
    private readonly core: CoreV1Api,
    private readonly nodeName: string,
    private readonly stateDir: string,
    private readonly log: Logger,
  ) {}

  /** Binds `claim` when it is pending and unbound; safe to call on every event. */
  onClaim(claim: V1PersistentVolumeClaim): void {
    const uid = claim.metadata?.uid ?? '';
    if (claim.spec?.volumeName || claim.metadata?.deletionTimestamp || this.inFlight.has(uid)) return;
    this.inFlight.add(uid);
    this.bind(claim)
      .catch((error) =>
        this.log.warn({ claim: claim.metadata?.name, err: errorMessage(error) }, 'Failed to bind claim'),
      )
      .finally(() => this.inFlight.delete(uid));
  }

  /** Deletes the claim's volume and moves its directory aside. */
  onClaimDeleted(claim: V1PersistentVolumeClaim): void {
    const namespace = claim.metadata?.namespace ?? 'default';
    const name = claim.metadata?.name ?? '';
    const dir = claimDir(this.stateDir, namespace, name);
    this.core
      .deletePersistentVolume({ name: volumeName(claim) })
      .then(() => this.moveAside(dir, namespace, name))
      .catch((error) => {
        if (!isNotFound(error))
          this.log.warn({ claim: name, err: errorMessage(error) }, 'Failed to delete volume');
      });
  }

  private moveAside(dir: string, namespace: string, name: string): void {
    if (!existsSync(dir)) return;
    const target = releasedDir(this.stateDir, namespace, name);
    mkdirSync(dirname(target), { recursive: true });
    renameSync(dir, target);
    this.log.info({ namespace, claim: name, dir: target }, 'Released claim directory');
  }

  private async bind(claim: V1PersistentVolumeClaim): Promise<void> {
    const namespace = claim.metadata?.namespace ?? 'default';
    const name = claim.metadata?.name ?? '';
    const pvName = volumeName(claim);
    const dir = claimDir(this.stateDir, namespace, name);
    const capacity = { storage: String(claim.spec?.resources?.requests?.storage ?? '1Gi') };
    const accessModes = claim.spec?.accessModes ?? ['ReadWriteOnce'];
    try {
      await this.core.readPersistentVolume({ name: pvName });
    } catch (error) {
      if (!isNotFound(error)) throw error;
      // A directory without this claim's volume belongs to an older claim of the same name.
      this.moveAside(dir, namespace, name);
      mkdirSync(dir, { recursive: true });
      try {
        await this.createVolume(claim, pvName, dir, capacity, accessModes);
      } catch (createError) {
        if (isConflict(createError)) return; // another node agent provisions it
        throw createError;
      }
    }
    await this.core.patchNamespacedPersistentVolumeClaim(
      {
        namespace,
        name,
        body: {
          metadata: {
            annotations: {
              'pv.kubernetes.io/bind-completed': 'yes',
              'pv.kubernetes.io/bound-by-controller': 'yes',
            },
          },
          spec: { volumeName: pvName },
        },
      },
      mergePatch,
    );
    await this.core.patchPersistentVolumeStatus(
      { name: pvName, body: { status: { phase: 'Bound' } } },
      mergePatch,
    );
    await this.core.patchNamespacedPersistentVolumeClaimStatus(
      { namespace, name, body: { status: { phase: 'Bound', capacity, accessModes } } },
      mergePatch,
    );
    this.log.info({ namespace, claim: name, volume: pvName, dir }, 'Bound claim');
  }

  private async createVolume(
    claim: V1PersistentVolumeClaim,
    pvName: string,
    dir: string,
    capacity: Record<string, string>,
    accessModes: string[],
  ): Promise<void> {
    await this.core.createPersistentVolume({
      body: {
        metadata: {
          name: pvName,
          annotations: { 'pv.kubernetes.io/provisioned-by': 'etcd-gitops-node-agent' },
        },
        spec: {
          capacity,
          accessModes,
          storageClassName: claim.spec?.storageClassName ?? '',
          volumeMode: claim.spec?.volumeMode ?? 'Filesystem',
          persistentVolumeReclaimPolicy: 'Retain',
          claimRef: {
            apiVersion: 'v1',
            kind: 'PersistentVolumeClaim',
            namespace: claim.metadata?.namespace ?? 'default',
            name: claim.metadata?.name ?? '',
            uid: claim.metadata?.uid ?? '',
          },
          local: { path: dir },
          nodeAffinity: {
            required: {
              nodeSelectorTerms: [
                {
                  matchExpressions: [
                    { key: 'kubernetes.io/hostname', operator: 'In', values: [this.nodeName] },
                  ],
                },
              ],
            },
          },
        },
      },
    });
  }
}
