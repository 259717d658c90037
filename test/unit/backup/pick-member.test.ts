import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chooseMember, type MemberProbe } from '../../../controller/backup/pick-member.js';

const ok = (endpoint: string, revision: string, applied = '1', isLearner = false): MemberProbe => ({
  endpoint,
  ok: true,
  revision,
  raftAppliedIndex: applied,
  isLearner,
  version: '3.6.16',
});
const down = (endpoint: string): MemberProbe => ({ endpoint, ok: false, error: 'connection refused' });

describe('chooseMember', () => {
  const rows: [string, MemberProbe[], string | undefined][] = [
    ['the only healthy member', [down('a'), ok('b', '5')], 'b'],
    ['the highest revision, compared as numbers (10 > 9)', [ok('a', '9'), ok('b', '10')], 'b'],
    ['beyond 2^53', [ok('a', '9007199254740993'), ok('b', '9007199254740992')], 'a'],
    ['on equal revisions, the highest applied index', [ok('a', '7', '20'), ok('b', '7', '21')], 'b'],
    ['on a full tie, the first given', [ok('a', '7', '20'), ok('b', '7', '20')], 'a'],
    ['never a learner, even ahead', [ok('a', '7'), ok('b', '8', '1', true)], 'a'],
    ['nobody when all are down or learners', [down('a'), ok('b', '8', '1', true)], undefined],
  ];
  for (const [name, probes, expected] of rows) {
    it(`picks ${name}`, () => assert.equal(chooseMember(probes)?.endpoint, expected));
  }
});
