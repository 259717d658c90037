// Judging samples of members' leaders (test/env/leader-gap.ts), as the e2e monitors of rolls and renewals do.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { judgeLeaders, type LeaderAnswer, LeaderGap, type LeaderVerdict } from '../../env/leader-gap.js';

describe('judgeLeaders', () => {
  const cases: Array<[string, LeaderAnswer[], LeaderVerdict]> = [
    ['all three name one leader', ['a', 'a', 'a'], 'majority'],
    ['two of three name one leader, one is silent', ['a', 'a', undefined], 'majority'],
    ['two name one leader, the third another', ['a', 'a', 'b'], 'majority'],
    ['all answer, none knows a leader', ['0', '0', '0'], 'no-majority'],
    ['all answer, each names another', ['a', 'b', 'c'], 'no-majority'],
    ['one answers without a leader, two are silent', ['0', undefined, undefined], 'unobserved'],
    ['one names a leader, one is silent: the silent one may agree', ['a', '0', undefined], 'unobserved'],
    [
      'two answer without a leader, one is silent: no majority is possible',
      ['0', '0', undefined],
      'no-majority',
    ],
    ['nobody answers', [undefined, undefined, undefined], 'unobserved'],
    ['only one member asked (the others not Ready), it names a leader', ['a'], 'no-majority'],
    ['nobody asked', [], 'no-majority'],
  ];
  for (const [title, answers, verdict] of cases)
    it(`GIVEN ${title} THEN ${verdict}`, () => assert.equal(judgeLeaders(answers, 2), verdict));
});

describe('LeaderGap', () => {
  it('GIVEN a lost majority, then silence, then a majority THEN the gap runs from the first loss to the majority', () => {
    const gap = new LeaderGap();
    gap.record('majority', 0, 100);
    gap.record('no-majority', 500, 600);
    gap.record('unobserved', 1_000, 4_000);
    gap.record('majority', 4_000, 4_100);
    assert.equal(gap.longestNoMajorityMs, 3_500);
    assert.equal(gap.longestUnobservedMs, 3_000);
  });

  it('GIVEN silence between two majorities THEN no gap, only an unobserved stretch', () => {
    const gap = new LeaderGap();
    gap.record('majority', 0, 100);
    gap.record('unobserved', 500, 3_500);
    gap.record('unobserved', 3_500, 6_500);
    gap.record('majority', 6_500, 6_600);
    assert.equal(gap.longestNoMajorityMs, 0);
    assert.equal(gap.longestUnobservedMs, 6_000);
    assert.match(gap.summary(), /^2 samples with a majority on one leader, 0 without, 2 unobserved/);
  });

  it('GIVEN a loss that never ends THEN the gap grows with every sample', () => {
    const gap = new LeaderGap();
    gap.record('no-majority', 0, 100);
    gap.record('no-majority', 500, 600);
    assert.equal(gap.longestNoMajorityMs, 600);
  });
});
