// Whether a cluster's PodDisruptionBudget needs kube-controller-manager to compute it again, and when: pure, from
// the budget's DisruptionAllowed condition, the member Pods it selects and the clock (docs/design/disruption-budget.md).

/** The disruption controller's condition type and the reason of its fail-safe status (policy/v1). */
export const DISRUPTION_ALLOWED_CONDITION = 'DisruptionAllowed';
export const SYNC_FAILED_REASON = 'SyncFailed';

/** The Event reason of a recompute request, recorded on the budget. */
export const RECOMPUTE_REQUESTED_REASON = 'DisruptionBudgetRecomputeRequested';

/** kube-controller-manager resets its discovery RESTMapper this often. */
export const DISCOVERY_RESET_MS = 30_000;
/**
 * The first request's delay after the failure began: one discovery reset, plus 5 s because the condition's time is
 * in whole seconds of kube-controller-manager's clock. Also the shortest wait between two requests.
 */
export const FIRST_REQUEST_AFTER_MS = DISCOVERY_RESET_MS + 5_000;
/** The longest wait between two requests while the budget keeps failing. */
export const MAX_REQUEST_INTERVAL_MS = 10 * 60_000;

/** The budget's `DisruptionAllowed` condition as the disruption controller wrote it. */
export interface BudgetCondition {
  readonly status: string;
  readonly reason: string;
  readonly message: string;
  /** When the condition took its status, in ms since the epoch. */
  readonly sinceMs: number;
}

/** A member Pod the budget selects. */
export interface BudgetPod {
  readonly name: string;
  readonly terminating: boolean;
  /** The time of the recompute request annotated on it, in ms since the epoch (unparseable: absent). */
  readonly requestedAtMs?: number;
}

export interface BudgetFacts {
  /** Absent until the disruption controller first wrote the budget's status. */
  readonly condition?: BudgetCondition;
  readonly pods: readonly BudgetPod[];
  readonly nowMs: number;
}

export type BudgetDecision =
  /** The disruption controller computed the budget (or has not tried yet): nothing to do. */
  | { readonly kind: 'Computed' }
  /** It failed; the next request is due later (or waits for a member Pod to annotate). */
  | { readonly kind: 'Wait'; readonly requeueAfterMs: number; readonly why: string }
  /** It failed: annotate `pod` now, and look again after `requeueAfterMs`. */
  | {
      readonly kind: 'RequestRecompute';
      readonly pod: string;
      readonly failure: string;
      readonly requeueAfterMs: number;
    };

/** The wait after a request made `failedForMs` after the failure began: as long again, within [35 s, 10 min]. */
export function intervalAfter(failedForMs: number): number {
  return Math.min(Math.max(failedForMs, FIRST_REQUEST_AFTER_MS), MAX_REQUEST_INTERVAL_MS);
}

export function decideBudget(facts: BudgetFacts): BudgetDecision {
  const { condition, pods, nowMs } = facts;
  if (condition?.status !== 'False' || condition.reason !== SYNC_FAILED_REASON) return { kind: 'Computed' };
  const since = condition.sinceMs;
  // Only requests made during this failure count; an older annotation belongs to an earlier one.
  const requests = pods.flatMap((pod) =>
    pod.requestedAtMs !== undefined && pod.requestedAtMs >= since ? [pod.requestedAtMs] : [],
  );
  const last = requests.length > 0 ? Math.max(...requests) : undefined;
  const dueAt = last === undefined ? since + FIRST_REQUEST_AFTER_MS : last + intervalAfter(last - since);
  if (nowMs < dueAt)
    return {
      kind: 'Wait',
      requeueAfterMs: dueAt - nowMs,
      why:
        last === undefined
          ? 'the first request waits for kube-controller-manager to refresh its discovery'
          : 'the last request was made less than one interval ago',
    };
  const target = pods
    .filter((pod) => !pod.terminating)
    .map((pod) => pod.name)
    .sort()[0];
  if (target === undefined)
    return { kind: 'Wait', requeueAfterMs: FIRST_REQUEST_AFTER_MS, why: 'no member Pod to annotate' };
  return {
    kind: 'RequestRecompute',
    pod: target,
    failure: condition.message,
    requeueAfterMs: intervalAfter(nowMs - since),
  };
}
