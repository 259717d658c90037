// The seams between the controller's runtime (queue, informers, leader election, metrics, events) and the
// reconcilers that decide and act. Reconcilers get everything through these interfaces, never globals.
import type { KubeConfig } from '@kubernetes/client-node';
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
  /** 1 while the cluster has lost quorum, else 0. */
  quorumLost(cluster: ObjectKey, lost: boolean): void;
  /** Forget every series of a deleted cluster. */
  forget(cluster: ObjectKey): void;
}

/** Everything a reconciler may use; passed in by `controller/main.ts`. */
export interface ReconcilerDeps {
  readonly kubeConfig: KubeConfig;
  readonly log: Logger;
  readonly events: EventRecorder;
  readonly metrics: ControllerMetrics;
}
