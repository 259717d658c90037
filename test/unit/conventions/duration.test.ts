import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  formatDuration,
  parseDuration,
  positiveDurationMs,
} from '../../../constructs/conventions/duration.js';

describe('the duration grammar', () => {
  for (const [text, ms] of [
    ['30d', 30 * 86_400_000],
    ['12h', 12 * 3_600_000],
    ['90m', 90 * 60_000],
    ['3600s', 3_600_000],
    ['1d12h', 36 * 3_600_000],
    ['1h30m', 5_400_000],
    ['1m30s', 90_000],
    ['500ms', 500],
    ['1.5s', 1_500],
    ['0s', 0],
  ] as const) {
    it(`GIVEN '${text}' WHEN parsed THEN it is ${ms} ms`, () => assert.equal(parseDuration(text), ms));
  }

  for (const text of ['', '7', '1w', '1d 2h', '-1h', 'h', '5 minutes', '1.h', '30D']) {
    it(`fails when the text is '${text}'`, () => assert.equal(parseDuration(text), undefined));
  }

  it('fails when a positive duration is zero or not a duration, naming the prop, the value and the grammar', () => {
    assert.throws(
      () => positiveDurationMs("'maxAge'", '0h'),
      /^Error: 'maxAge' must be a positive duration such as 30d, 12h, 90m, 1d12h, 30s or 500ms, got '0h'$/,
    );
    assert.throws(() => positiveDurationMs("'maxAge'", '30'), /got '30'$/);
  });

  it('GIVEN whole milliseconds WHEN formatted THEN the text parses back to the same amount', () => {
    for (const ms of [0, 1, 500, 1_000, 90_000, 3_600_000, 36 * 3_600_000, 30 * 86_400_000 + 1]) {
      assert.equal(parseDuration(formatDuration(ms)), ms, formatDuration(ms));
    }
    assert.equal(formatDuration(36 * 3_600_000), '1d12h');
    assert.equal(formatDuration(90_500), '1m30s500ms');
  });

  it('fails when a duration to format is negative or fractional', () => {
    assert.throws(() => formatDuration(-1), /whole milliseconds, got -1/);
    assert.throws(() => formatDuration(1.5), /whole milliseconds, got 1.5/);
  });
});
