// Crash-loop backoff as the kubelet does it: the delay before restart n doubles from `base`, capped at
// `max`, and starts over once a container has run for `resetAfter` (kubelet: 10 s, 5 min, 10 min).

export interface BackoffPolicy {
  baseMs: number;
  maxMs: number;
  resetAfterMs: number;
}

export const kubeletBackoff: BackoffPolicy = { baseMs: 10_000, maxMs: 300_000, resetAfterMs: 600_000 };

/** Delay before the next start after `failures` consecutive short-lived runs (1 = the first crash). */
export function backoffDelay(policy: BackoffPolicy, failures: number): number {
  if (failures <= 0) return 0;
  return Math.min(policy.maxMs, policy.baseMs * 2 ** Math.min(failures - 1, 30));
}

/** Whether a container should be started again after exiting with `exitCode`. */
export function shouldRestart(restartPolicy: string | undefined, exitCode: number): boolean {
  if (restartPolicy === 'Never') return false;
  if (restartPolicy === 'OnFailure') return exitCode !== 0;
  return true;
}
