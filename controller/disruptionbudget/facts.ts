// The facts `decideBudget` decides on, read from a budget and the member Pods in its namespace (informer objects).
import type { V1Pod, V1PodDisruptionBudget } from '@kubernetes/client-node';
import { ANNOTATION_BUDGET_RECOMPUTE } from '../../constructs/conventions/annotations.js';
import { type BudgetFacts, type BudgetPod, DISRUPTION_ALLOWED_CONDITION } from './decide.js';

/**
 * The Pods the budget's `matchLabels` select. A budget with `matchExpressions`, or with no `matchLabels`, selects
 * none here: ours are synthesized with `matchLabels` only, and a Pod is never annotated on a guess.
 */
export function selectedPods(budget: V1PodDisruptionBudget, pods: readonly V1Pod[]): V1Pod[] {
  const selector = budget.spec?.selector;
  const labels = Object.entries(selector?.matchLabels ?? {});
  if (labels.length === 0 || (selector?.matchExpressions?.length ?? 0) > 0) return [];
  return pods.filter((pod) => labels.every(([key, value]) => pod.metadata?.labels?.[key] === value));
}

function timeMs(value: Date | string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = new Date(value).getTime();
  return Number.isNaN(ms) ? undefined : ms;
}

export function budgetFacts(
  budget: V1PodDisruptionBudget,
  pods: readonly V1Pod[],
  nowMs: number,
): BudgetFacts {
  const found = budget.status?.conditions?.find((c) => c.type === DISRUPTION_ALLOWED_CONDITION);
  const condition = found && {
    status: found.status,
    reason: found.reason,
    message: found.message,
    // Required by the API; a condition without it counts as failing since ever (the first request is due).
    sinceMs: timeMs(found.lastTransitionTime) ?? 0,
  };
  const members: BudgetPod[] = selectedPods(budget, pods).map((pod) => {
    const requestedAtMs = timeMs(pod.metadata?.annotations?.[ANNOTATION_BUDGET_RECOMPUTE]);
    return {
      name: pod.metadata?.name ?? '',
      terminating: pod.metadata?.deletionTimestamp !== undefined,
      ...(requestedAtMs === undefined ? {} : { requestedAtMs }),
    };
  });
  return { ...(condition ? { condition } : {}), pods: members, nowMs };
}
