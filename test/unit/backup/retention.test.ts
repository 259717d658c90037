import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  planRetention,
  type RetentionCandidate,
  type RetentionPolicy,
} from '../../../controller/backup/retention.js';

const now = new Date('2026-03-01T12:00:00Z');
const hour = 3_600_000;

/** A backup `hoursAgo` before `now`, keyed like the default template. */
function backup(hoursAgo: number, revision: number | string): RetentionCandidate {
  const time = new Date(now.getTime() - hoursAgo * hour).toISOString();
  return { key: `ns/c/${time.replace(/[-:.]/g, '')}-rev${revision}.db`, time, revision: String(revision) };
}

interface Row {
  name: string;
  candidates: RetentionCandidate[];
  policy: RetentionPolicy;
  justWritten: string;
  deleted: string[];
}

const twelve = Array.from({ length: 12 }, (_, i) => backup(12 - i, 5 + i)); // revisions 5..16, newest last
const newest = twelve.at(-1)!;

const rows: Row[] = [
  {
    name: 'no policy deletes nothing',
    candidates: twelve,
    policy: {},
    justWritten: newest.key,
    deleted: [],
  },
  {
    name: 'keepLast 3 of 12 deletes the 9 oldest',
    candidates: twelve,
    policy: { keepLast: 3 },
    justWritten: newest.key,
    deleted: twelve
      .slice(0, 9)
      .map((b) => b.key)
      .reverse(),
  },
  {
    name: 'keepLast 1 keeps only the newest',
    candidates: twelve,
    policy: { keepLast: 1 },
    justWritten: newest.key,
    deleted: twelve
      .slice(0, 11)
      .map((b) => b.key)
      .reverse(),
  },
  {
    name: 'maxAge 4h keeps the backups younger than 4 hours',
    candidates: twelve,
    policy: { maxAgeMs: 4 * hour },
    justWritten: newest.key,
    // hours ago 12..1: younger than 4h are 3, 2, 1
    deleted: twelve
      .slice(0, 9)
      .map((b) => b.key)
      .reverse(),
  },
  {
    name: 'keepLast and maxAge together keep what either rule keeps',
    candidates: twelve,
    policy: { keepLast: 5, maxAgeMs: 2.5 * hour },
    justWritten: newest.key,
    deleted: twelve
      .slice(0, 7)
      .map((b) => b.key)
      .reverse(),
  },
  {
    name: 'a maxAge shorter than every age still keeps the newest',
    candidates: twelve,
    policy: { maxAgeMs: 1000 },
    justWritten: newest.key,
    deleted: twelve
      .slice(0, 11)
      .map((b) => b.key)
      .reverse(),
  },
];

// Revisions 95..106 gain a digit: as text, "rev99" sorts after "rev106", so a text sort would call rev99 the
// newest and delete rev106, the backup just written (the archived CoreOS operator's bug).
const digitGain = Array.from({ length: 12 }, (_, i) => backup(12 - i, 95 + i));
rows.push({
  name: 'revisions gaining a digit: keepLast 2 keeps rev106 and rev105, never orders by key text',
  candidates: [...digitGain].sort((a, b) => a.key.localeCompare(b.key)),
  policy: { keepLast: 2 },
  justWritten: digitGain.at(-1)!.key,
  deleted: digitGain
    .slice(0, 10)
    .map((b) => b.key)
    .reverse(),
});

// Key text that sorts the other way round from time (e.g. a template with the revision first).
const revFirst = [
  { key: 'c/rev9-b.db', time: '2026-03-01T11:00:00.000Z', revision: '9' },
  { key: 'c/rev10-a.db', time: '2026-03-01T11:30:00.000Z', revision: '10' },
  { key: 'c/rev11-a.db', time: '2026-03-01T11:59:00.000Z', revision: '11' },
];
rows.push({
  name: 'keys whose text order contradicts time: the recorded time wins',
  candidates: revFirst,
  policy: { keepLast: 2 },
  justWritten: 'c/rev11-a.db',
  deleted: ['c/rev9-b.db'],
});

rows.push({
  name: 'a candidate with an unparsable time or revision is never deleted',
  candidates: [
    ...twelve.slice(8),
    { key: 'ns/c/broken-time.db', time: 'yesterday', revision: '3' },
    { key: 'ns/c/broken-rev.db', time: '2020-01-01T00:00:00Z', revision: '0x10' },
  ],
  policy: { keepLast: 1 },
  justWritten: newest.key,
  deleted: twelve
    .slice(8, 11)
    .map((b) => b.key)
    .reverse(),
});

rows.push({
  name: 'equal times order by revision as a big integer',
  candidates: [
    { key: 'k/a', time: '2026-03-01T11:00:00Z', revision: '18446744073709551615' },
    { key: 'k/b', time: '2026-03-01T11:00:00Z', revision: '9' },
  ],
  policy: { keepLast: 1 },
  justWritten: 'k/a',
  deleted: ['k/b'],
});

rows.push({
  name: 'a backup from a clock ahead of ours stays the newest; the one just written is kept too',
  candidates: [backup(-5, 20), backup(0, 21), backup(1, 19)],
  policy: { keepLast: 1 },
  justWritten: backup(0, 21).key,
  deleted: [backup(1, 19).key],
});

describe('planRetention', () => {
  for (const row of rows) {
    it(row.name, () => {
      // GIVEN the listed backups and a policy
      // WHEN retention is planned after row.justWritten was stored
      const plan = planRetention(row.candidates, row.policy, { now, justWritten: row.justWritten });
      // THEN exactly the expected keys are deleted, and never the one just written
      assert.deepEqual(plan.deletions, row.deleted);
      assert.ok(!plan.deletions.includes(row.justWritten));
      assert.equal(plan.decisions.length, row.candidates.length);
    });
  }

  it('never deletes the just-written or the newest backup, for every keepLast and maxAge', () => {
    // GIVEN backups listed in shuffled order (newest by time is not the just-written one: clock skew)
    const skewed = [...digitGain, backup(-1, 200)];
    const justWritten = digitGain.at(-1)!.key;
    for (let keepLast = 1; keepLast <= 14; keepLast++) {
      for (const maxAgeMs of [undefined, 1, hour, 100 * hour]) {
        // WHEN planned
        const plan = planRetention([...skewed].reverse(), { keepLast, maxAgeMs }, { now, justWritten });
        // THEN both survive
        assert.ok(!plan.deletions.includes(justWritten));
        assert.ok(!plan.deletions.includes(backup(-1, 200).key));
        if (maxAgeMs === undefined)
          assert.equal(plan.deletions.length, Math.max(0, skewed.length - Math.max(keepLast, 2)));
      }
    }
  });

  it('fails when the just-written backup is not among the candidates', () => {
    assert.throws(
      () => planRetention(twelve.slice(0, 11), { keepLast: 1 }, { now, justWritten: newest.key }),
      /backup just written .* is not among the listed backups/,
    );
  });

  it('fails when keepLast is 0', () => {
    assert.throws(
      () => planRetention(twelve, { keepLast: 0 }, { now, justWritten: newest.key }),
      /'keepLast' must be an integer of at least 1, got 0/,
    );
  });

  it('fails when maxAge is not positive', () => {
    assert.throws(
      () => planRetention(twelve, { maxAgeMs: -1 }, { now, justWritten: newest.key }),
      /'maxAge' must be a positive duration/,
    );
  });
});
