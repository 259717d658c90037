// metav1.Condition bookkeeping shared by every status writer of the controller.
import type { Condition } from '../../constructs/imports/etcd.gitops.dev.js';

/** A condition as a reconciler decides it; `observedGeneration` and `lastTransitionTime` are added here. */
export type ConditionInput = Pick<Condition, 'type' | 'status' | 'reason' | 'message'>;

/**
 * A status timestamp as Kubernetes writes one (metav1.Time: RFC 3339, whole seconds, UTC). Every other writer of
 * conditions (kube-controller-manager, Flux, Argo CD) truncates to the second, so a status compared with theirs must
 * too: a time kept to the millisecond reads later than theirs within the same second.
 */
export function kubeTime(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

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
