// Leader election on a coordination.k8s.io/v1 Lease (the client has none), with client-go's timings:
// - a candidate tries every `retryPeriod` (jittered up to +20%) until it creates or takes over the Lease;
// - a leader renews every `retryPeriod`; if it cannot renew within `renewDeadline`, or sees another holder,
//   leadership is lost and `holdLeadership` resolves 'lost' (the process then exits non-zero);
// - a Lease whose holder has not renewed for `leaseDuration` (measured on our clock from when we saw it
//   change) is taken over; every write carries the resourceVersion read, so two candidates never both win;
// - `release` empties holderIdentity and sets leaseDurationSeconds 1, so the next candidate takes over at once.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { CoordinationV1Api, type KubeConfig, type V1Lease, V1MicroTime } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { CONTROLLER_NAME } from '../../constructs/conventions/names.js';
import { isConflict, isNotFound } from './kube.js';
import { decideLease, nextTransitions } from './lease-decision.js';

export interface LeaderElectorOptions {
  readonly kubeConfig: KubeConfig;
  readonly log: Logger;
  readonly namespace: string;
  /** @default CONTROLLER_NAME (`etcd-gitops-controller`) */
  readonly name?: string;
  /** @default - `<$POD_NAME or hostname>_<random uuid>` */
  readonly identity?: string;
  /** @default 15_000 */
  readonly leaseDurationMs?: number;
  /** @default 10_000 */
  readonly renewDeadlineMs?: number;
  /** @default 2_000 */
  readonly retryPeriodMs?: number;
}

/**
 * `<$POD_NAME or hostname>_<random uuid>`, new for every process (as controller-runtime does): a leader
 * that crashed and came back under the same Pod name must wait for its old lease to expire like any other
 * candidate instead of silently renewing a lease its previous incarnation held.
 */
export function defaultIdentity(env: NodeJS.ProcessEnv = process.env): string {
  return `${env.POD_NAME || hostname()}_${randomUUID()}`;
}

export class LeaderElector {
  readonly identity: string;
  readonly name: string;
  private readonly api: CoordinationV1Api;
  private readonly log: Logger;
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private observedVersion: string | undefined;
  private observedAtMs = 0;
  private leading = false;

  constructor(private readonly options: LeaderElectorOptions) {
    this.identity = options.identity ?? defaultIdentity();
    this.name = options.name ?? CONTROLLER_NAME;
    this.api = options.kubeConfig.makeApiClient(CoordinationV1Api);
    this.leaseDurationMs = options.leaseDurationMs ?? 15_000;
    this.renewDeadlineMs = options.renewDeadlineMs ?? 10_000;
    this.retryPeriodMs = options.retryPeriodMs ?? 2_000;
    this.log = options.log.child({ lease: `${options.namespace}/${this.name}`, identity: this.identity });
  }

  get isLeader(): boolean {
    return this.leading;
  }

  /** Resolves once this candidate holds the Lease; rejects with the signal's reason when aborted first. */
  async acquire(signal: AbortSignal): Promise<void> {
    this.log.info('Waiting to acquire the leader lease');
    for (;;) {
      signal.throwIfAborted();
      if ((await this.attempt().catch((error: unknown) => this.failedAttempt(error))) === true) break;
      await sleep(this.retryPeriodMs * (1 + Math.random() * 0.2), undefined, { signal });
    }
    this.leading = true;
    this.log.info('Acquired the leader lease');
  }

  /**
   * Renews every retryPeriod while leading. Resolves 'lost' when no renewal succeeded for renewDeadline or
   * another holder appeared, 'stopped' when the signal aborted (the lease is kept: call `release`).
   */
  async holdLeadership(signal: AbortSignal): Promise<'lost' | 'stopped'> {
    let lastRenewMs = Date.now();
    while (!signal.aborted) {
      const woke = await sleep(this.retryPeriodMs, true, { signal }).catch(() => false);
      if (!woke) break;
      const remainingMs = this.renewDeadlineMs - (Date.now() - lastRenewMs);
      const renewed = await this.attemptWithin(Math.max(remainingMs, 0));
      if (renewed === true) lastRenewMs = Date.now();
      else if (renewed === 'taken' || Date.now() - lastRenewMs >= this.renewDeadlineMs) {
        this.leading = false;
        this.log.error(
          { reason: renewed === 'taken' ? 'another holder' : 'renew deadline passed' },
          'Lost the leader lease',
        );
        return 'lost';
      }
    }
    return 'stopped';
  }

  /** Gives the Lease up if we hold it (holder emptied, duration 1 s); never throws. */
  async release(): Promise<void> {
    if (!this.leading) return;
    this.leading = false;
    try {
      const lease = await this.read();
      if (lease?.spec?.holderIdentity !== this.identity) return;
      const now = new V1MicroTime();
      lease.spec = {
        ...lease.spec,
        holderIdentity: '',
        leaseDurationSeconds: 1,
        renewTime: now,
        acquireTime: now,
      };
      await this.api.replaceNamespacedLease({
        name: this.name,
        namespace: this.options.namespace,
        body: lease,
      });
      this.log.info('Released the leader lease');
    } catch (error) {
      this.log.warn({ err: error }, 'Could not release the leader lease; it expires by itself');
    }
  }

  private failedAttempt(error: unknown): false {
    this.log.warn({ err: error }, 'Leader lease attempt failed');
    return false;
  }

  private async attemptWithin(ms: number): Promise<boolean | 'taken'> {
    const timer = new AbortController();
    const timeout = sleep(ms, false as const, { signal: timer.signal }).catch(() => false as const);
    try {
      return await Promise.race([this.attempt(), timeout]);
    } catch (error) {
      this.log.warn({ err: error }, 'Could not renew the leader lease');
      return false;
    } finally {
      timer.abort();
    }
  }

  /** One read-decide-write; true when we hold the Lease afterwards, 'taken' when another valid holder has it. */
  private async attempt(): Promise<boolean | 'taken'> {
    const lease = await this.read();
    const nowMs = Date.now();
    const version = lease?.metadata?.resourceVersion;
    if (version !== this.observedVersion) {
      this.observedVersion = version;
      this.observedAtMs = nowMs;
    }
    const decision = decideLease({
      record: lease?.spec,
      identity: this.identity,
      nowMs,
      observedAtMs: this.observedAtMs,
      leaseDurationMs: this.leaseDurationMs,
    });
    if (decision.action === 'wait') {
      this.log.debug({ holder: decision.holder, expiresInMs: decision.expiresInMs }, 'Lease held by another');
      return 'taken';
    }
    return this.write(lease, decision.action === 'renew');
  }

  private async write(lease: V1Lease | undefined, renewing: boolean): Promise<boolean> {
    const now = new V1MicroTime();
    const spec = {
      holderIdentity: this.identity,
      leaseDurationSeconds: Math.ceil(this.leaseDurationMs / 1000),
      acquireTime: renewing && lease?.spec?.acquireTime ? lease.spec.acquireTime : now,
      renewTime: now,
      leaseTransitions: nextTransitions(lease?.spec, this.identity),
    };
    const namespace = this.options.namespace;
    try {
      const written = lease
        ? await this.api.replaceNamespacedLease({ name: this.name, namespace, body: { ...lease, spec } })
        : await this.api.createNamespacedLease({
            namespace,
            body: { metadata: { name: this.name, namespace }, spec },
          });
      this.observedVersion = written.metadata?.resourceVersion;
      this.observedAtMs = Date.now();
      return true;
    } catch (error) {
      if (isConflict(error)) return false;
      throw error;
    }
  }

  private async read(): Promise<V1Lease | undefined> {
    try {
      return await this.api.readNamespacedLease({ name: this.name, namespace: this.options.namespace });
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }
}
