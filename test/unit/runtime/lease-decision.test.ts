import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decideLease, nextTransitions } from '../../../controller/runtime/lease-decision.js';

const base = { identity: 'me', nowMs: 100_000, observedAtMs: 100_000, leaseDurationMs: 15_000 };

describe('decideLease', () => {
  const table: Array<[string, Parameters<typeof decideLease>[0], ReturnType<typeof decideLease>]> = [
    ['creates a missing Lease', { ...base, record: undefined }, { action: 'create' }],
    [
      'renews its own Lease',
      { ...base, record: { holderIdentity: 'me', leaseDurationSeconds: 15 } },
      { action: 'renew' },
    ],
    [
      'takes a released Lease at once',
      { ...base, record: { holderIdentity: '', leaseDurationSeconds: 1 } },
      { action: 'acquire' },
    ],
    ['takes a Lease without holder field', { ...base, record: {} }, { action: 'acquire' }],
    [
      'waits while another holder renewed within the lease duration (our clock)',
      { ...base, observedAtMs: 90_000, record: { holderIdentity: 'other', leaseDurationSeconds: 15 } },
      { action: 'wait', holder: 'other', expiresInMs: 5_000 },
    ],
    [
      'takes over once the holder has not renewed for the lease duration',
      { ...base, observedAtMs: 85_000, record: { holderIdentity: 'other', leaseDurationSeconds: 15 } },
      { action: 'acquire' },
    ],
    [
      'uses our own duration when the record states none',
      { ...base, observedAtMs: 90_000, record: { holderIdentity: 'other' } },
      { action: 'wait', holder: 'other', expiresInMs: 5_000 },
    ],
  ];
  for (const [name, input, expected] of table) it(name, () => assert.deepEqual(decideLease(input), expected));
});

describe('nextTransitions', () => {
  it('starts at 0, keeps the count on renew, counts one more on takeover', () => {
    assert.equal(nextTransitions(undefined, 'me'), 0);
    assert.equal(nextTransitions({ holderIdentity: 'me', leaseTransitions: 3 }, 'me'), 3);
    assert.equal(nextTransitions({ holderIdentity: 'other', leaseTransitions: 3 }, 'me'), 4);
    assert.equal(nextTransitions({ holderIdentity: '', leaseTransitions: 3 }, 'me'), 4);
  });
});
