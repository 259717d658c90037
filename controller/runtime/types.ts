// The seams between the controller's runtime (queue, informers, leader election, metrics, events) and the
// reconcilers that decide and act. Reconcilers get everything through these interfaces, never globals.
import type {
  KubeConfig,
  KubernetesObject,
  V1CronJob,
  V1PersistentVolumeClaim,
  V1Pod,
} from '@kubernetes/client-node';
import type { Logger } from 'pino';

/** A namespaced object key, the unit of work of the per-key queue. */
export interface ObjectKey {
  readonly namespace: string;
  readonly name: string;
}

/** What a reconcile pass asks of the queue afterwards. Thrown errors requeue with exponential backoff. */
export interface ReconcileResult {
  /** Reconcile this key again after this many milliseconds. @default - only on the next event or resync */
  readonly requeueAfterMs?: number;
}

/** One level-triggered reconcile of one key; never called twice at once for the same key. */
export interface Reconciler {
  reconcile(key: ObjectKey, signal: AbortSignal): Promise<ReconcileResult>;
}

/** The object an Event is about. */
export interface EventSubject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name?: string; readonly namespace?: string; readonly uid?: string };
}

/** Records Kubernetes Events (core/v1), deduplicated by the recorder. */
export interface EventRecorder {
  event(subject: EventSubject, type: 'Normal' | 'Warning', reason: string, message: string): Promise<void>;
}

/** The metrics a reconciler updates; the runtime owns the registry and `/metrics`. */
export interface ControllerMetrics {
  /** A membership change was carried out (`action`: add-learner, promote, remove, replace, seed, ...). */
  membershipChange(cluster: ObjectKey, action: string): void;
  /** Members that are ready, per cluster. */
  membersReady(cluster: ObjectKey, ready: number): void;
  /** Members the spec asks for (`spec.size`), per cluster: what alerts compare the ready count with. */
  membersDesired(cluster: ObjectKey, desired: number): void;
  /** Members whose Pod runs the current spec (`status.updatedMembers`). */
  membersUpdated(cluster: ObjectKey, updated: number): void;
  /** 1 while the cluster has lost quorum, else 0. */
  quorumLost(cluster: ObjectKey, lost: boolean): void;
  /** Active etcd alarms per kind (`NOSPACE`, `CORRUPT`; 0 when none), per cluster. */
  alarms(cluster: ObjectKey, active: Readonly<Record<string, number>>): void;
  /** Backend size and size in use of each member that answered; other members' series are removed. */
  memberDbSizes(
    cluster: ObjectKey,
    members: readonly { member: string; dbSize: number; dbSizeInUse: number }[],
  ): void;
  /**
   * Per drilled backup schedule, whether its newest restore drill failed (docs/design/restore-drill.md); series of
   * schedules no longer drilled are removed.
   */
  restoreDrills(cluster: ObjectKey, drills: readonly { schedule: string; failed: boolean }[]): void;
  /** Forget every series of a deleted cluster. */
  forget(cluster: ObjectKey): void;
}

/** Read access to an informer cache (objects as the typed API clients return them). */
export interface CacheLister<T> {
  get(namespace: string, name: string): T | undefined;
  /** Every cached object, or those of one namespace. */
  list(namespace?: string): T[];
}

/**
 * The controller's informer caches. Workers start only after they synced, but a cache lags the API server by
 * the watch latency: right after creating or deleting an object, a reconciler must not conclude from the cache
 * that it is missing/present (LIST directly, or requeue).
 */
export interface ReconcilerListers {
  readonly clusters: CacheLister<KubernetesObject>;
  readonly restores: CacheLister<KubernetesObject>;
  /** Pods labelled `app.kubernetes.io/managed-by=etcd-gitops`. */
  readonly pods: CacheLister<V1Pod>;
  /** PVCs labelled `app.kubernetes.io/managed-by=etcd-gitops`. */
  readonly persistentVolumeClaims: CacheLister<V1PersistentVolumeClaim>;
  /** The clusters' backup CronJobs (`managed-by=etcd-gitops`, `component=backup`). */
  readonly cronJobs: CacheLister<V1CronJob>;
}

/** Everything a reconciler may use; passed in by `controller/main.ts`. */
export interface ReconcilerDeps {
  readonly kubeConfig: KubeConfig;
  readonly log: Logger;
  readonly events: EventRecorder;
  readonly metrics: ControllerMetrics;
  /** Informer caches; optional, a reconciler may as well LIST directly. @default - none */
  readonly listers?: ReconcilerListers;
}
