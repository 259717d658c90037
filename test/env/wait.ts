// Polling with a deadline: the one way the test environment waits for something to become true.
import { setTimeout as sleep } from 'node:timers/promises';

export interface WaitOptions {
  /** What is awaited, for the error message. */
  what: string;
  /** @default 60_000 */
  timeoutMs?: number;
  /** @default 100 */
  intervalMs?: number;
  /** Stop early with this error when it returns a message (e.g. the process died). */
  abortIf?: () => string | undefined;
}

/**
 * Calls `probe` until it returns a value other than `undefined`/`false`, and returns that value.
 * A probe that throws counts as "not yet"; its last error is named in the timeout message.
 */
export async function waitFor<T>(
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  options: WaitOptions,
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    const abort = options.abortIf?.();
    if (abort) throw new Error(`gave up waiting for ${options.what}: ${abort}`);
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      const last = lastError instanceof Error ? `; last error: ${lastError.message}` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${options.what}${last}`);
    }
    await sleep(options.intervalMs ?? 100);
  }
}
