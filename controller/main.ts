// `etcd-gitops controller`: flags → logger → Kubernetes client → manager (probes, metrics, leader election,
// informers, controllers). The reconcilers are wired in `controllers()` below: EtcdCluster keys, enqueued by
// changes of the cluster, its member Pods and PVCs, and the EtcdRestores naming it; EtcdRestore keys (its own
// controller factory, controller/etcdrestore/controller.ts); the clusters' PodDisruptionBudget keys
// (controller/disruptionbudget/controller.ts).
import { pino } from 'pino';
import { CONTROLLER_NAME } from '../constructs/conventions/names.js';
import { createDisruptionBudgetController } from './disruptionbudget/controller.js';
import { createEtcdClusterReconciler, observeCluster } from './etcdcluster/index.js';
import { createEtcdRestoreController } from './etcdrestore/controller.js';
import { Controller } from './runtime/controller.js';
import { KubeEventRecorder } from './runtime/events.js';
import { type ControllerFlags, parseControllerFlags } from './runtime/flags.js';
import { SharedInformers } from './runtime/informers.js';
import { loadKubeConfig } from './runtime/kube.js';
import { ExitCode, runManager } from './runtime/manager.js';
import { Metrics } from './runtime/metrics.js';
import { clusterKeysOfMember, clusterKeysOfRestore } from './runtime/owner-keys.js';
import type { ReconcilerDeps } from './runtime/types.js';

/** Runs the controller until SIGTERM/SIGINT (→ 0) or a lost leader Lease (→ 1); returns the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  let flags: ControllerFlags;
  try {
    flags = parseControllerFlags(argv, process.env);
  } catch (error) {
    process.stderr.write(`etcd-gitops controller: ${(error as Error).message}\n`);
    return ExitCode.badArguments;
  }
  const log = pino({
    level: flags.logLevel,
    base: { component: CONTROLLER_NAME },
    timestamp: pino.stdTimeFunctions.isoTime,
  });
  const shutdown = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => {
    if (shutdown.signal.aborted) {
      log.warn({ signal }, 'Second signal: exiting at once');
      process.exit(ExitCode.failed);
    }
    log.info({ signal }, 'Shutdown requested');
    shutdown.abort();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  try {
    const kubeConfig = loadKubeConfig();
    const metrics = new Metrics();
    const informers = new SharedInformers({ kubeConfig, log, namespaces: flags.watchNamespaces });
    const deps: ReconcilerDeps = {
      kubeConfig,
      log,
      metrics,
      events: new KubeEventRecorder({ kubeConfig, log }),
      listers: informers,
    };
    log.info({ flags }, 'Starting etcd-gitops controller');
    return await runManager({
      flags,
      log,
      kubeConfig,
      metrics,
      informers,
      shutdown: shutdown.signal,
      controllers: () => controllers(deps, informers, flags, metrics),
    });
  } catch (error) {
    log.fatal({ err: error }, 'Controller failed');
    return ExitCode.failed;
  } finally {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
  }
}

/** The controllers this process runs while it leads. */
function controllers(
  deps: ReconcilerDeps,
  informers: SharedInformers,
  flags: ControllerFlags,
  metrics: Metrics,
): Controller[] {
  const etcdClusters = new Controller({
    name: 'etcdcluster',
    reconciler: createEtcdClusterReconciler(deps, { freshReadEveryMs: flags.resyncPeriodMs }),
    log: deps.log,
    primary: informers.clusters,
    secondaries: [
      { informer: informers.pods, keysOf: clusterKeysOfMember },
      { informer: informers.persistentVolumeClaims, keysOf: clusterKeysOfMember },
      { informer: informers.cronJobs, keysOf: clusterKeysOfMember },
      { informer: informers.restores, keysOf: clusterKeysOfRestore },
    ],
    concurrency: flags.concurrency,
    resyncPeriodMs: flags.resyncPeriodMs,
    observer: metrics.observer('etcdcluster'),
  });
  // The restore reconciler reads its cluster through the membership reconciler's observation, and writes no
  // member Pod or PVC (docs/design/restore.md, invariant 7).
  const restores = createEtcdRestoreController(deps, informers, flags, metrics, (key) =>
    observeCluster(deps.kubeConfig, key),
  );
  // Asks kube-controller-manager to compute a cluster's budget again when it failed (docs/design/disruption-budget.md).
  const budgets = createDisruptionBudgetController(deps, informers, flags, metrics);
  return [etcdClusters, restores, budgets];
}
