// When a member's Pod counts as lost (docs/design/membership.md, "Lost members"): the spec fields, their defaults
// and the pure rule, shared by the CRD schema, the constructs and the controller.
import { formatDuration, parseDuration } from './duration.js';

/** `spec.failureDetection.nodeNotReady` when unset: how long a member's Node may be not Ready. */
export const DEFAULT_NODE_NOT_READY = '2m';
/** `spec.failureDetection.podStuck` when unset: how long a member Pod may be Terminating or unschedulable. */
export const DEFAULT_POD_STUCK = '5m';

/** `spec.failureDetection` as written. */
export interface FailureDetectionSpec {
  readonly nodeNotReady?: string;
  readonly podStuck?: string;
}

/** The bounds in milliseconds, with their spec text for messages. */
export interface FailureBounds {
  readonly nodeNotReadyMs: number;
  readonly nodeNotReady: string;
  readonly podStuckMs: number;
  readonly podStuck: string;
}

/** The bounds of a spec; a value the schema would refuse falls back to the default (admission checks it). */
export function failureBounds(spec: FailureDetectionSpec | undefined): FailureBounds {
  const bound = (text: string | undefined, fallback: string) => {
    const ms = text === undefined ? undefined : parseDuration(text);
    return ms !== undefined
      ? { ms, text: text as string }
      : { ms: parseDuration(fallback) as number, text: fallback };
  };
  const node = bound(spec?.nodeNotReady, DEFAULT_NODE_NOT_READY);
  const pod = bound(spec?.podStuck, DEFAULT_POD_STUCK);
  return { nodeNotReadyMs: node.ms, nodeNotReady: node.text, podStuckMs: pod.ms, podStuck: pod.text };
}

/** What the rule reads of a member Pod and its Node (times in epoch milliseconds). */
export interface PodPlacement {
  /** `spec.nodeName`, when scheduled. */
  readonly nodeName?: string;
  /** Its Node: `undefined` when the Pod names none; `missing` when the Node object does not exist. */
  readonly node?: { readonly ready: boolean; readonly notReadySinceMs?: number } | 'missing';
  /** `metadata.deletionTimestamp`: the end of its grace period. */
  readonly deletionMs?: number;
  /** `PodScheduled=False`, since `metadata.creationTimestamp`. */
  readonly unscheduledSinceMs?: number;
  /** The scheduler's message, when unscheduled. */
  readonly unscheduledMessage?: string;
}

const spent = (ms: number) => formatDuration(Math.max(0, Math.floor(ms / 1000) * 1000));

/** Why the Pod is lost, in one line naming the bound and its field, or `undefined` while it is not. */
export function lostReason(pod: PodPlacement, bounds: FailureBounds, nowMs: number): string | undefined {
  if (pod.node === 'missing') return `its node ${pod.nodeName} no longer exists`;
  if (pod.node && !pod.node.ready && pod.node.notReadySinceMs !== undefined) {
    const notReady = nowMs - pod.node.notReadySinceMs;
    if (notReady > bounds.nodeNotReadyMs) {
      return `its node ${pod.nodeName} has not been Ready for ${spent(notReady)} (spec.failureDetection.nodeNotReady: ${bounds.nodeNotReady})`;
    }
  }
  if (pod.deletionMs !== undefined && nowMs - pod.deletionMs > bounds.podStuckMs) {
    return `its Pod has been Terminating for ${spent(nowMs - pod.deletionMs)} past its grace period (spec.failureDetection.podStuck: ${bounds.podStuck})`;
  }
  if (pod.unscheduledSinceMs !== undefined && nowMs - pod.unscheduledSinceMs > bounds.podStuckMs) {
    const why = pod.unscheduledMessage ? `: ${pod.unscheduledMessage}` : '';
    return `its Pod has not been scheduled for ${spent(nowMs - pod.unscheduledSinceMs)} (spec.failureDetection.podStuck: ${bounds.podStuck})${why}`;
  }
  return undefined;
}

/** While the Pod's node is not Ready but not yet past the bound: one line for the wait, else `undefined`. */
export function nodeNotReadyNote(
  pod: PodPlacement,
  bounds: FailureBounds,
  nowMs: number,
): string | undefined {
  if (!pod.node || pod.node === 'missing' || pod.node.ready || pod.node.notReadySinceMs === undefined)
    return undefined;
  return `its node ${pod.nodeName} has not been Ready for ${spent(nowMs - pod.node.notReadySinceMs)}; it is replaced after ${bounds.nodeNotReady} (spec.failureDetection.nodeNotReady)`;
}
