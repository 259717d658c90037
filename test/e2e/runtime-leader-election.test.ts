// Leader election on a real coordination.k8s.io/v1 Lease: one leader among two candidates, a fast takeover
// after a release, a takeover after the leader silently stops renewing, and the old leader noticing it lost.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CoordinationV1Api, type V1Lease } from '@kubernetes/client-node';
import { pino } from 'pino';
import { LeaderElector } from '../../controller/runtime/leader-election.js';
import { type ControlPlane, startControlPlane } from '../env/control-plane.js';
import { waitFor } from '../env/wait.js';
import { createNamespace } from './runtime-support.js';

const log = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
/** Short timings so the test takes seconds; the ordering lease > renew deadline > retry is the real one. */
const timings = { leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 250 };

describe('LeaderElector against a real API server', { timeout: 300_000 }, () => {
  let cp: ControlPlane;
  let leases: CoordinationV1Api;
  const cleanups: Array<() => void> = [];

  before(async () => {
    cp = await startControlPlane();
    leases = cp.kubeConfig.makeApiClient(CoordinationV1Api);
  });
  after(async () => {
    for (const cleanup of cleanups) cleanup();
    await cp?.stop();
  });

  async function candidates(
    name: string,
  ): Promise<{ namespace: string; a: LeaderElector; b: LeaderElector }> {
    const namespace = await createNamespace(cp.kubeConfig, 'lease');
    const make = (identity: string) =>
      new LeaderElector({ kubeConfig: cp.kubeConfig, log, namespace, name, identity, ...timings });
    return { namespace, a: make('candidate-a'), b: make('candidate-b') };
  }

  const readLease = (namespace: string, name: string): Promise<V1Lease> =>
    leases.readNamespacedLease({ namespace, name });

  /** An AbortController aborted when the test file ends, whatever happened. */
  function stopper(): AbortController {
    const controller = new AbortController();
    cleanups.push(() => controller.abort());
    return controller;
  }

  it('elects exactly one of two candidates and hands over at once when the leader releases', async () => {
    // GIVEN candidate a leads and keeps renewing
    const { namespace, a, b } = await candidates('handover');
    const aStop = stopper();
    await a.acquire(aStop.signal);
    const aHolding = a.holdLeadership(aStop.signal);
    // WHEN b tries while a renews the Lease twice
    const bStop = stopper();
    const bAcquired = b.acquire(bStop.signal).then(
      () => 'acquired',
      () => 'aborted',
    );
    const first = await readLease(namespace, 'handover');
    await waitFor(
      async () => {
        const now = await readLease(namespace, 'handover');
        return String(now.spec?.renewTime) !== String(first.spec?.renewTime) ? now : undefined;
      },
      { what: 'a to renew the Lease' },
    );
    // THEN a holds a sane Lease and b does not lead
    const held = await readLease(namespace, 'handover');
    assert.equal(held.spec?.holderIdentity, 'candidate-a');
    assert.equal(held.spec?.leaseDurationSeconds, 3);
    assert.equal(held.spec?.leaseTransitions, 0);
    // (the client types MicroTime as V1MicroTime but hands it over as the RFC 3339 string the server sent)
    const acquired = Date.parse(String(held.spec?.acquireTime));
    assert.ok(acquired > 0 && Date.parse(String(held.spec?.renewTime)) >= acquired);
    assert.equal(b.isLeader, false);
    assert.equal(a.isLeader, true);
    // WHEN a stops and releases the Lease
    aStop.abort();
    assert.equal(await aHolding, 'stopped');
    await a.release();
    // THEN b acquires it, one transition later, and a is no longer leader
    assert.equal(await bAcquired, 'acquired');
    const taken = await readLease(namespace, 'handover');
    assert.equal(taken.spec?.holderIdentity, 'candidate-b');
    assert.equal(taken.spec?.leaseTransitions, 1);
    assert.equal(a.isLeader, false);
    bStop.abort();
    await b.release();
    assert.equal((await readLease(namespace, 'handover')).spec?.holderIdentity, '');
  });

  it('takes over from a leader that stopped renewing, and the old leader then reports the lease lost', async () => {
    // GIVEN candidate a leads, then stops renewing without releasing (as a hung or partitioned process would)
    const { namespace, a, b } = await candidates('takeover');
    const aStop = stopper();
    await a.acquire(aStop.signal);
    aStop.abort();
    // WHEN b tries to acquire
    const bStop = stopper();
    await b.acquire(bStop.signal);
    // THEN b got it (once a's renewals stopped for a lease duration), one transition later
    const lease = await readLease(namespace, 'takeover');
    assert.equal(lease.spec?.holderIdentity, 'candidate-b');
    assert.equal(lease.spec?.leaseTransitions, 1);
    const bHolding = b.holdLeadership(bStop.signal);
    // WHEN a wakes up and tries to keep leading
    const resumed = stopper();
    const outcome = await a.holdLeadership(resumed.signal);
    // THEN a learns it lost, and b still leads
    assert.equal(outcome, 'lost');
    assert.equal(a.isLeader, false);
    assert.equal(b.isLeader, true);
    assert.equal((await readLease(namespace, 'takeover')).spec?.holderIdentity, 'candidate-b');
    bStop.abort();
    assert.equal(await bHolding, 'stopped');
  });
});
