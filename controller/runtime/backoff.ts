// Exponential backoff: the delay after the n-th consecutive failure, and a per-key tracker of failures.

/** How long to wait after consecutive failures: `initialMs`, doubling, capped at `maxMs`. */
export interface BackoffOptions {
  /** Delay after the first failure. @default 1_000 */
  readonly initialMs?: number;
  /** Upper bound of any delay. @default 300_000 (5 minutes) */
  readonly maxMs?: number;
}

const defaults = { initialMs: 1_000, maxMs: 300_000 };

/** The delay after `failures` consecutive failures (1 → initialMs, 2 → 2×initialMs, ...), capped at maxMs. */
export function backoffDelay(failures: number, options: BackoffOptions = {}): number {
  const initialMs = options.initialMs ?? defaults.initialMs;
  const maxMs = options.maxMs ?? defaults.maxMs;
  if (failures <= 0) return 0;
  // 2 ** 1024 is Infinity, which Math.min caps: no overflow to guard against.
  return Math.min(maxMs, initialMs * 2 ** (failures - 1));
}

/** Counts consecutive failures per key; `next` records one more and returns its delay, `reset` forgets the key. */
export class PerKeyBackoff {
  private readonly failures = new Map<string, number>();

  constructor(private readonly options: BackoffOptions = {}) {}

  next(key: string): number {
    const failures = (this.failures.get(key) ?? 0) + 1;
    this.failures.set(key, failures);
    return backoffDelay(failures, this.options);
  }

  reset(key: string): void {
    this.failures.delete(key);
  }

  failuresOf(key: string): number {
    return this.failures.get(key) ?? 0;
  }
}
