// The informers the controller process shares between its controllers: one per watched resource (or, with
// `--watch-namespaces`, one per resource and watched namespace), created before leadership (so reconcilers can hold
// their listers) and started only by the leader.
import type {
  KubeConfig,
  KubernetesObject,
  V1CronJob,
  V1PersistentVolumeClaim,
  V1Pod,
  V1PodDisruptionBudget,
} from '@kubernetes/client-node';
import type { Logger } from 'pino';
import {
  backupSchedulesSelector,
  managedBySelector,
  memberBudgetSelector,
} from '../../constructs/conventions/labels.js';
import { Informer, type InformerOptions } from './informer.js';
import { MultiNamespaceInformer } from './namespaces.js';
import {
  CronJobResource,
  EtcdClusterResource,
  EtcdRestoreResource,
  PersistentVolumeClaimResource,
  PodDisruptionBudgetResource,
  PodResource,
} from './resources.js';
import type { Watched } from './watched.js';

export interface SharedInformersOptions {
  readonly kubeConfig: KubeConfig;
  readonly log: Logger;
  /** Watch only these namespaces. @default - every namespace */
  readonly namespaces?: readonly string[];
  /** Server-side watch timeout. @default - random 300-600 s */
  readonly watchTimeoutSeconds?: number;
}

export class SharedInformers {
  readonly clusters: Watched<KubernetesObject>;
  readonly restores: Watched<KubernetesObject>;
  /** Pods labelled `app.kubernetes.io/managed-by=etcd-gitops` only. */
  readonly pods: Watched<V1Pod>;
  /** PVCs labelled `app.kubernetes.io/managed-by=etcd-gitops` only. */
  readonly persistentVolumeClaims: Watched<V1PersistentVolumeClaim>;
  /** The clusters' PodDisruptionBudgets only (`managed-by=etcd-gitops`, `component=member`). */
  readonly disruptionBudgets: Watched<V1PodDisruptionBudget>;
  /** The clusters' backup CronJobs only (`managed-by=etcd-gitops`, `component=backup`). */
  readonly cronJobs: Watched<V1CronJob>;

  constructor(options: SharedInformersOptions) {
    const informerOf = <T extends KubernetesObject>(
      specific: Pick<InformerOptions, 'resource' | 'labelSelector'>,
    ): Watched<T> => {
      const common = {
        kubeConfig: options.kubeConfig,
        log: options.log,
        watchTimeoutSeconds: options.watchTimeoutSeconds,
        ...specific,
      };
      return options.namespaces === undefined
        ? new Informer<T>(common)
        : new MultiNamespaceInformer<T>(common, options.namespaces);
    };
    this.clusters = informerOf({ resource: EtcdClusterResource });
    this.restores = informerOf({ resource: EtcdRestoreResource });
    this.pods = informerOf({ resource: PodResource, labelSelector: managedBySelector });
    this.persistentVolumeClaims = informerOf({
      resource: PersistentVolumeClaimResource,
      labelSelector: managedBySelector,
    });
    this.disruptionBudgets = informerOf({
      resource: PodDisruptionBudgetResource,
      labelSelector: memberBudgetSelector,
    });
    this.cronJobs = informerOf({ resource: CronJobResource, labelSelector: backupSchedulesSelector });
  }

  private get all(): Array<Watched<KubernetesObject>> {
    return [
      this.clusters,
      this.restores,
      this.pods,
      this.persistentVolumeClaims,
      this.disruptionBudgets,
      this.cronJobs,
    ];
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
