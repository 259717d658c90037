// One pass over one cluster PodDisruptionBudget: read it and its member Pods from the informer caches, decide
// (decide.ts), and when a recompute is due annotate one member Pod and record an Event on the budget
// (docs/design/disruption-budget.md). Writes nothing else.
import { CoreV1Api, PatchStrategy, type V1Pod, type V1PodDisruptionBudget } from '@kubernetes/client-node';
import { ANNOTATION_BUDGET_RECOMPUTE } from '../../constructs/conventions/annotations.js';
import { isNotFound, patchOptions } from '../runtime/kube.js';
import { apiVersionOf, PodDisruptionBudgetResource } from '../runtime/resources.js';
import type {
  CacheLister,
  ObjectKey,
  ReconcileResult,
  Reconciler,
  ReconcilerDeps,
} from '../runtime/types.js';
import { decideBudget, FIRST_REQUEST_AFTER_MS, RECOMPUTE_REQUESTED_REASON } from './decide.js';
import { budgetFacts } from './facts.js';

export interface DisruptionBudgetListers {
  readonly budgets: CacheLister<V1PodDisruptionBudget>;
  /** Our Pods (`managed-by=etcd-gitops`): only these are ever annotated. */
  readonly pods: CacheLister<V1Pod>;
}

export class DisruptionBudgetReconciler implements Reconciler {
  private readonly core: CoreV1Api;

  constructor(
    private readonly deps: Pick<ReconcilerDeps, 'kubeConfig' | 'log' | 'events'>,
    private readonly listers: DisruptionBudgetListers,
  ) {
    this.core = deps.kubeConfig.makeApiClient(CoreV1Api);
  }

  async reconcile(key: ObjectKey): Promise<ReconcileResult> {
    const budget = this.listers.budgets.get(key.namespace, key.name);
    if (!budget) return {};
    const nowMs = Date.now();
    const decision = decideBudget(budgetFacts(budget, this.listers.pods.list(key.namespace), nowMs));
    const log = this.deps.log.child({ podDisruptionBudget: key.name, namespace: key.namespace });
    switch (decision.kind) {
      case 'Computed':
        return {};
      case 'Wait':
        log.debug(
          { requeueAfterMs: decision.requeueAfterMs, why: decision.why },
          'Budget failed; not asking yet',
        );
        return { requeueAfterMs: decision.requeueAfterMs };
      case 'RequestRecompute': {
        try {
          await this.core.patchNamespacedPod(
            {
              namespace: key.namespace,
              name: decision.pod,
              body: {
                metadata: { annotations: { [ANNOTATION_BUDGET_RECOMPUTE]: new Date(nowMs).toISOString() } },
              },
            },
            patchOptions(PatchStrategy.MergePatch),
          );
        } catch (error) {
          // Deleted since the cache saw it: the deletion is a Pod change the disruption controller syncs on anyway.
          if (!isNotFound(error)) throw error;
          return { requeueAfterMs: FIRST_REQUEST_AFTER_MS };
        }
        const message = `kube-controller-manager could not compute this budget (${decision.failure}), so it allows no disruption; annotated member Pod ${decision.pod} so that it computes the budget again`;
        log.info(
          { pod: decision.pod, failure: decision.failure },
          'Asked for the budget to be computed again',
        );
        await this.deps.events.event(
          {
            apiVersion: apiVersionOf(PodDisruptionBudgetResource),
            kind: PodDisruptionBudgetResource.kind,
            metadata: budget.metadata ?? {},
          },
          'Normal',
          RECOMPUTE_REQUESTED_REASON,
          message,
        );
        return { requeueAfterMs: decision.requeueAfterMs };
      }
    }
  }
}
