// A probe over time: first attempt after initialDelaySeconds, then every periodSeconds; the result flips
// to success after successThreshold consecutive successes and to failure after failureThreshold failures.
import type { V1Probe } from '@kubernetes/client-node';
import { type ProbeResult, type ProbeTarget, runProbe } from './probes.js';

export type ProbeKind = 'startup' | 'liveness' | 'readiness';

/** Pure threshold bookkeeping, unit-tested. */
export class ProbeCounter {
  private successes = 0;
  private failures = 0;

  /**
   * @param healthy the verdict before the first attempt
   * @param failWhileUnhealthy report a failure verdict even when not yet healthy (startup probes)
   */
  constructor(
    private readonly probe: V1Probe,
    public healthy: boolean,
    private readonly failWhileUnhealthy = false,
  ) {}

  /** Records one attempt; returns the new verdict when it changed, otherwise `undefined`. */
  record(ok: boolean): boolean | undefined {
    if (ok) {
      this.failures = 0;
      this.successes++;
      if (!this.healthy && this.successes >= (this.probe.successThreshold ?? 1)) return this.flip(true);
    } else {
      this.successes = 0;
      this.failures++;
      const failing = this.healthy || this.failWhileUnhealthy;
      if (failing && this.failures >= (this.probe.failureThreshold ?? 3)) return this.flip(false);
    }
    return undefined;
  }

  private flip(healthy: boolean): boolean {
    this.healthy = healthy;
    this.successes = 0;
    this.failures = 0;
    return healthy;
  }
}

export class ProbeLoop {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly counter: ProbeCounter;

  /** @param onChange called with the new verdict and the last attempt's result */
  constructor(
    private readonly kind: ProbeKind,
    private readonly probe: V1Probe,
    private readonly target: ProbeTarget,
    private readonly onChange: (healthy: boolean, last: ProbeResult) => void,
  ) {
    // Readiness and startup start unhealthy; liveness starts healthy (it can only fail).
    this.counter = new ProbeCounter(probe, kind === 'liveness', kind === 'startup');
  }

  start(): void {
    this.schedule((this.probe.initialDelaySeconds ?? 0) * 1000);
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.attempt(), delayMs);
  }

  private async attempt(): Promise<void> {
    const result = await runProbe(this.probe, this.target);
    if (this.stopped) return;
    const verdict = this.counter.record(result.ok);
    if (verdict !== undefined) this.onChange(verdict, result);
    const stillNeeded = this.kind !== 'startup' || verdict === undefined;
    if (stillNeeded) this.schedule(Math.max(1, this.probe.periodSeconds ?? 10) * 1000);
  }
}
