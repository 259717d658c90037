// What executing one planned action needs and what it reports: shared by execute.ts and execute-restore.ts.
import type { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { CrashSwitch } from '../runtime/crash-switch.js';
import type { EtcdCluster } from './api.js';
import type { EtcdObservation } from './observe-etcd.js';
import type { ActionKind } from './types.js';

export interface ExecuteContext {
  readonly cluster: EtcdCluster;
  readonly kubeConfig: KubeConfig;
  readonly core: CoreV1Api;
  readonly etcd: EtcdObservation | undefined;
  readonly log: Logger;
  readonly crash: CrashSwitch<ActionKind>;
  /** Our image, for the `restore fetch` init container of a seed bootstrapped from a backup. */
  readonly image: string;
}

/** An Event for a membership change (Normal unless said). */
export interface OutcomeEvent {
  readonly reason: string;
  readonly message: string;
  readonly type?: 'Normal' | 'Warning';
}

/** What happened, for Events, metrics and the requeue. */
export interface Outcome {
  readonly requeueAfterMs: number;
  /** One Event per change made, in the order made (a joiner's `AddLearner` makes up to three). */
  readonly events?: readonly OutcomeEvent[];
  /** The membership-change metric's `action` label. */
  readonly change?: string;
  /** etcd refused for now (strict reconfiguration, learner not caught up). */
  readonly notYet?: string;
  /**
   * The API server refused the action's write for what it is (`apiRefusal`: RBAC, admission, a quota, a missing
   * ServiceAccount): the action and the API server's message. The status tells it as `Degraded` `WriteRefused`.
   */
  readonly refused?: string;
}
