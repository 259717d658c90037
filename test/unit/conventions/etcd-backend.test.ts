import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  backendFlags,
  defaultQuotaBackendBytes,
  effectiveQuotaBytes,
  extraFlags,
  goDuration,
  OWNED_ETCD_FLAGS,
} from '../../../constructs/conventions/etcd-backend.js';

const MiB = 2 ** 20;
const GiB = 2 ** 30;

describe('backend quota from the volume', () => {
  const table: [string, number, number][] = [
    ['100Mi: a quarter reserved, half of the rest', 100 * MiB, Math.floor((100 * MiB - 25 * MiB) / 2)],
    ['1Gi (the default volume): 384Mi', GiB, 384 * MiB],
    ['10Gi: (10Gi - 256Mi) / 2', 10 * GiB, (10 * GiB - 256 * MiB) / 2],
    ['20Gi: capped at 8Gi', 20 * GiB, 8 * GiB],
  ];
  for (const [what, volume, quota] of table) {
    it(`GIVEN a ${what} THEN the quota is ${quota}`, () =>
      assert.equal(defaultQuotaBackendBytes(volume), quota));
  }

  it('GIVEN a quota in the spec THEN it wins; ephemeral storage without one gets etcd 2Gi', () => {
    assert.equal(
      effectiveQuotaBytes({ quotaBackendBytes: '512Mi', storage: { size: '1Gi' } }, '1Gi'),
      512 * MiB,
    );
    assert.equal(effectiveQuotaBytes({ storage: { ephemeral: true } }, '1Gi'), 2 * GiB);
    assert.equal(effectiveQuotaBytes({}, '1Gi'), 384 * MiB);
  });
});

describe('etcd flags', () => {
  it('GIVEN durations of our grammar THEN etcd gets Go durations', () => {
    assert.equal(goDuration(3_600_000), '1h0m0s');
    assert.equal(goDuration(86_400_000 + 90_000), '24h1m30s');
    assert.equal(goDuration(1500), '0h0m1.5s');
  });

  it('GIVEN ephemeral storage and no quota THEN no --quota-backend-bytes is written', () => {
    assert.deepEqual(backendFlags({ storage: { ephemeral: true } }, '1Gi'), [
      '--auto-compaction-mode=periodic',
      '--auto-compaction-retention=1h0m0s',
    ]);
  });

  it('GIVEN every owned flag as an extra flag THEN each is refused; an unowned one passes', () => {
    for (const flag of Object.keys(OWNED_ETCD_FLAGS)) {
      assert.throws(
        () => extraFlags({ [flag]: 'x' }),
        new RegExp(`spec.extraFlags: '${flag}' is not allowed`),
      );
    }
    assert.deepEqual(extraFlags({ 'snapshot-count': '1', 'election-timeout': '2000' }), [
      '--election-timeout=2000',
      '--snapshot-count=1',
    ]);
  });
});
