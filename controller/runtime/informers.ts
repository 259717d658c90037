// The informers the controller process shares between its controllers: one per watched resource, created
// before leadership (so reconcilers can hold their listers) and started only by the leader.
import type { KubeConfig, KubernetesObject, V1PersistentVolumeClaim, V1Pod } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { managedBySelector } from '../../constructs/conventions/labels.js';
import { Informer } from './informer.js';
import {
  EtcdClusterResource,
  EtcdRestoreResource,
  PersistentVolumeClaimResource,
  PodResource,
} from './resources.js';

export interface SharedInformersOptions {
  readonly kubeConfig: KubeConfig;
  readonly log: Logger;
  /** Watch only this namespace. @default - every namespace */
  readonly namespace?: string;
  /** Server-side watch timeout. @default - random 300-600 s */
  readonly watchTimeoutSeconds?: number;
}

export class SharedInformers {
  readonly clusters: Informer<KubernetesObject>;
  readonly restores: Informer<KubernetesObject>;
  /** Pods labelled `app.kubernetes.io/managed-by=etcd-gitops` only. */
  readonly pods: Informer<V1Pod>;
  /** PVCs labelled `app.kubernetes.io/managed-by=etcd-gitops` only. */
  readonly persistentVolumeClaims: Informer<V1PersistentVolumeClaim>;

  constructor(options: SharedInformersOptions) {
    const common = {
      kubeConfig: options.kubeConfig,
      log: options.log,
      namespace: options.namespace,
      watchTimeoutSeconds: options.watchTimeoutSeconds,
    };
    this.clusters = new Informer({ ...common, resource: EtcdClusterResource });
    this.restores = new Informer({ ...common, resource: EtcdRestoreResource });
    this.pods = new Informer({ ...common, resource: PodResource, labelSelector: managedBySelector });
    this.persistentVolumeClaims = new Informer({
      ...common,
      resource: PersistentVolumeClaimResource,
      labelSelector: managedBySelector,
    });
  }

  private get all(): Array<Informer<KubernetesObject>> {
    return [this.clusters, this.restores, this.pods, this.persistentVolumeClaims];
  }

  start(): void {
    for (const informer of this.all) informer.start();
  }

  async stop(): Promise<void> {
    await Promise.all(this.all.map((informer) => informer.stop()));
  }

  /** The resources whose first LIST has not completed yet (empty when synced). */
  unsynced(): string[] {
    return this.all.filter((informer) => !informer.synced).map((informer) => informer.resourcePlural);
  }
}
