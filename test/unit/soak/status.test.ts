// The soak's status invariant (test/soak/status.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DisagreementClock, type EtcdAnswer, statusDisagreements } from '../../soak/status.js';

const healthy: EtcdAnswer = { quorum: true, voters: 3, healthyVoters: 3, learners: 0 };
const conditions = (ready: string, available: string) => [
  { type: 'Ready', status: ready },
  { type: 'Available', status: available },
];

describe('statusDisagreements', () => {
  it('agrees when Ready and Available say what etcd answers', () => {
    assert.deepEqual(statusDisagreements(conditions('True', 'True'), 3, healthy), []);
    const lost = { quorum: false, voters: 3, healthyVoters: 1, learners: 0 };
    assert.deepEqual(statusDisagreements(conditions('False', 'False'), 3, lost), []);
    const adding = { ...healthy, learners: 1 };
    assert.deepEqual(statusDisagreements(conditions('False', 'True'), 3, adding), []);
  });

  it('names each disagreement with what etcd answered', () => {
    const lost = { quorum: false, voters: 3, healthyVoters: 1, learners: 0 };
    assert.deepEqual(statusDisagreements(conditions('True', 'True'), 3, lost), [
      'Ready=True, but etcd has 1/3 healthy voters of 3, 0 learners, quorum false',
      'Available=True, but etcd has no quorum',
    ]);
    assert.deepEqual(statusDisagreements(conditions('False', 'False'), 3, healthy), [
      'Ready=False, but all 3 members are ready',
      'Available=False, but etcd has quorum',
    ]);
    assert.deepEqual(statusDisagreements(conditions('True', 'True'), 5, healthy), [
      'Ready=True, but etcd has 3/3 healthy voters of 5, 0 learners, quorum true',
    ]);
  });
});

describe('DisagreementClock', () => {
  it('reports a disagreement only once it has lasted longer than the bound, and forgets it when it ends', () => {
    const clock = new DisagreementClock(10_000);
    assert.deepEqual(clock.observe(0, ['x']), []);
    assert.deepEqual(clock.observe(10_000, ['x']), [], 'exactly the bound is within it');
    assert.deepEqual(clock.observe(10_001, ['x', 'y']), [{ disagreement: 'x', forMs: 10_001 }]);
    assert.deepEqual(clock.observe(12_000, ['y']), []);
    assert.deepEqual(clock.observe(13_000, ['x']), [], 'x came back: its clock starts again');
    assert.deepEqual(clock.observe(23_001, ['x']), [{ disagreement: 'x', forMs: 10_001 }]);
  });
});
