// metav1.Condition bookkeeping shared by every status writer of the controller.
import type { Condition } from '../../constructs/imports/etcd.gitops.dev.js';

/** A condition as a reconciler decides it; `observedGeneration` and `lastTransitionTime` are added here. */
export type ConditionInput = Pick<Condition, 'type' | 'status' | 'reason' | 'message'>;

/**
 * Stamps `observedGeneration` on every condition and keeps the `lastTransitionTime` of a condition whose
 * status did not change (so kstatus and `kubectl wait` see transitions, not every rewrite).
 */
export function withTransitions(
  next: readonly ConditionInput[],
  previous: readonly Condition[],
  generation: number,
  now: string,
): Condition[] {
  return next.map((condition) => {
    const before = previous.find((old) => old.type === condition.type);
    const lastTransitionTime = before && before.status === condition.status ? before.lastTransitionTime : now;
    return { ...condition, observedGeneration: generation, lastTransitionTime };
  });
}
