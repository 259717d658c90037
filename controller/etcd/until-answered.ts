// Asking etcd members again for a while when none answers: a Job's Pod may start before the cluster's network lets
// it through (a NetworkPolicy enforcer programs a new Pod's address after the Pod starts; DNS may lag too).

/** How long a Job keeps asking when no member answers, unless told otherwise. */
export const DEFAULT_MEMBER_WAIT_MS = 30_000;

interface RetryLog {
  info(fields: object, message: string): void;
}

/** What a retry logs unless told otherwise. */
const NONE_ANSWERED = 'No etcd member answered yet; asking again';

/**
 * Runs `round` until it returns a value, or until the next round would start after `waitMs`; rounds 1 s apart,
 * the gap doubling up to 5 s, each retry logged as `waiting`. Returns the last round's value (`undefined` when none
 * answered in time).
 */
export async function untilAnswered<T>(
  waitMs: number,
  log: RetryLog,
  round: () => Promise<T | undefined>,
  waiting = NONE_ANSWERED,
): Promise<T | undefined> {
  const deadline = Date.now() + waitMs;
  let delayMs = 1_000;
  let value = await round();
  while (value === undefined && Date.now() + delayMs <= deadline) {
    log.info({ retryInMs: delayMs }, waiting);
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    delayMs = Math.min(delayMs * 2, 5_000);
    value = await round();
  }
  return value;
}
