import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { effectiveQuotaBytes } from '../../../constructs/conventions/etcd-backend.js';
import { QUANTITY_PATTERN, quantityBytes, sameQuantity } from '../../../constructs/conventions/quantity.js';

describe('quantityBytes', () => {
  // Every form the CRD's pattern accepts parses, so an unchanged spec is never refused for how it is written.
  const table: [string | number, number][] = [
    ['1Gi', 2 ** 30],
    ['512Mi', 512 * 2 ** 20],
    ['10G', 1e10],
    ['1e9', 1e9],
    ['1E9', 1e9],
    ['+1Gi', 2 ** 30],
    ['.5Gi', 2 ** 29],
    ['1.5Gi', 1.5 * 2 ** 30],
    ['1.Gi', 2 ** 30],
    ['500m', 0.5],
    ['2k', 2000],
    ['1073741824', 2 ** 30],
    [1073741824, 2 ** 30],
  ];
  for (const [text, amount] of table) {
    it(`GIVEN ${JSON.stringify(text)} THEN ${amount}`, () => {
      if (typeof text === 'string') assert.match(text, new RegExp(QUANTITY_PATTERN), 'the CRD accepts it');
      assert.equal(quantityBytes(text), amount);
    });
  }

  it('GIVEN text the CRD refuses THEN undefined', () => {
    for (const text of ['1GB', 'Gi', '1 Gi', '', '1Gii', '0x10']) {
      assert.doesNotMatch(text, new RegExp(QUANTITY_PATTERN));
      assert.equal(quantityBytes(text), undefined, text);
    }
  });

  it('GIVEN the same size written two ways THEN they are the same quantity', () => {
    assert.ok(sameQuantity('1Gi', '1073741824'));
    assert.ok(sameQuantity('1e9', '1G'));
    assert.ok(!sameQuantity('1Gi', '1G'));
  });

  it('GIVEN a volume written as 1e9 or .5Gi THEN the quota derives from it (no refusal of a valid spec)', () => {
    assert.equal(
      effectiveQuotaBytes({ storage: { size: '1e9' } }, '1Gi'),
      Math.floor((1e9 - 250_000_000) / 2),
    );
    assert.equal(
      effectiveQuotaBytes({ storage: { size: '.5Gi' } }, '1Gi'),
      Math.floor((2 ** 29 - 2 ** 27) / 2),
    );
  });
});
