import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseDuration } from '../../../controller/backup/duration.js';

describe('parseDuration', () => {
  for (const [text, ms] of [
    ['30d', 30 * 86_400_000],
    ['12h', 12 * 3_600_000],
    ['90m', 90 * 60_000],
    ['3600s', 3_600_000],
    ['1d12h', 36 * 3_600_000],
  ] as const) {
    it(`reads ${text}`, () => assert.equal(parseDuration(text), ms));
  }
  for (const text of ['', '7', '1w', '1d 2h', '-1h', 'h']) {
    it(`fails when the value is '${text}'`, () =>
      assert.throws(() => parseDuration(text), /is not a duration/));
  }
  it('fails when the duration is zero', () => assert.throws(() => parseDuration('0h'), /longer than zero/));
});
