// The PodDisruptionBudget controller as controller/main.ts runs it: keys of the clusters' budgets, enqueued by
// changes of the budgets themselves (the disruption controller's status writes included). Member Pod changes are
// not watched: the disruption controller syncs the budget on those itself (docs/design/disruption-budget.md).
import { Controller } from '../runtime/controller.js';
import type { ControllerFlags } from '../runtime/flags.js';
import type { SharedInformers } from '../runtime/informers.js';
import type { Metrics } from '../runtime/metrics.js';
import type { ReconcilerDeps } from '../runtime/types.js';
import { DisruptionBudgetReconciler } from './reconciler.js';

export function createDisruptionBudgetController(
  deps: ReconcilerDeps,
  informers: SharedInformers,
  flags: ControllerFlags,
  metrics: Metrics,
): Controller {
  return new Controller({
    name: 'disruptionbudget',
    reconciler: new DisruptionBudgetReconciler(deps, {
      budgets: informers.disruptionBudgets,
      pods: informers.pods,
    }),
    log: deps.log,
    primary: informers.disruptionBudgets,
    // Read, not watched: listed so the first pass waits for its cache (Pod changes reach the budget's status).
    secondaries: [{ informer: informers.pods, keysOf: () => [] }],
    concurrency: flags.concurrency,
    resyncPeriodMs: flags.resyncPeriodMs,
    observer: metrics.observer('disruptionbudget'),
  });
}
