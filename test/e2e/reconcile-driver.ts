// The EtcdCluster reconciler run in the test process for one cluster, as the shipped ServiceAccount under the
// shipped RBAC (env.controller), level-triggered: reconcile again after the
// delay it asks for, at most 1 s (the runtime's watches would enqueue spec changes at once).
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { createEtcdClusterReconciler } from '../../controller/etcdcluster/index.js';
import { KubeEventRecorder } from '../../controller/runtime/events.js';
import { Metrics } from '../../controller/runtime/metrics.js';
import type { ObjectKey } from '../../controller/runtime/types.js';
import type { Environment } from '../env/environment.js';

export interface ReconcileDriver {
  /** The reconciler's metrics, for tests that read them. */
  readonly metrics: Metrics;
  /** Stops the loop after the pass in flight. */
  stop(): Promise<void>;
}

export function driveReconciler(env: Environment, key: ObjectKey): ReconcileDriver {
  const log = pino({ level: process.env.TEST_LOG_LEVEL ?? 'warn' });
  const metrics = new Metrics({ processMetrics: false });
  const reconciler = createEtcdClusterReconciler({
    kubeConfig: env.controller.kubeConfig,
    log,
    events: new KubeEventRecorder({ kubeConfig: env.controller.kubeConfig, log }),
    metrics,
  });
  const stopping = new AbortController();
  const loop = (async () => {
    while (!stopping.signal.aborted) {
      try {
        const result = await reconciler.reconcile(key, stopping.signal);
        await sleep(Math.min(result.requeueAfterMs ?? 1_000, 1_000));
      } catch (error) {
        log.warn({ err: error }, 'reconcile failed');
        await sleep(1_000);
      }
    }
  })();
  return {
    metrics,
    stop: async () => {
      stopping.abort();
      await loop;
    },
  };
}
