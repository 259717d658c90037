// The soak's write record (test/soak/writes.ts): what the cluster must hold after acknowledged writes, backups,
// backup restores and survivor restores, and the violations it reports.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WriteRecord } from '../../soak/writes.js';

const map = (entries: Record<string, string>) => new Map(Object.entries(entries));

describe('WriteRecord', () => {
  it('expects every acknowledged write with its value; reports lost, wrong and phantom keys', () => {
    const record = new WriteRecord();
    record.acknowledged('a', '1', 10n);
    record.acknowledged('b', '2', 11n);
    assert.deepEqual(record.check(map({ a: '1', b: '2' })), []);
    assert.deepEqual(record.check(map({ a: '1', b: 'x', c: '3' })), [
      { key: 'b', kind: 'wrong', expected: '2', found: 'x' },
      { key: 'c', kind: 'phantom', found: '3' },
    ]);
    assert.deepEqual(record.check(map({ b: '2' })), [{ key: 'a', kind: 'lost', expected: '1' }]);
  });

  it('lets a write of unknown outcome be there or not, with its value only', () => {
    const record = new WriteRecord();
    record.indeterminate('u', '9');
    assert.deepEqual(record.check(map({})), []);
    assert.deepEqual(record.check(map({ u: '9' })), []);
    assert.deepEqual(record.check(map({ u: '8' })), [{ key: 'u', kind: 'wrong', expected: '9', found: '8' }]);
    record.acknowledged('u', '9', 5n);
    assert.deepEqual(
      record.check(map({})),
      [{ key: 'u', kind: 'lost', expected: '9' }],
      'acknowledged later: required',
    );
    assert.throws(
      () => record.acknowledged('u', '9', 6n),
      /u was acknowledged before: the writer puts each key once/,
    );
  });

  it('after a backup restore: exactly the writes up to the backup revision, then the new ones; later old writes are gone, and must be', () => {
    const record = new WriteRecord();
    record.acknowledged('a', '1', 10n);
    const backup = record.backupAt(11n);
    record.acknowledged('b', '2', 11n);
    record.acknowledged('c', '3', 12n);
    assert.equal(record.restoredFrom(backup), 1);
    record.acknowledged('d', '4', 13n);
    assert.deepEqual(record.expected(), map({ a: '1', b: '2', d: '4' }));
    assert.deepEqual(record.check(map({ a: '1', b: '2', d: '4' })), []);
    // The restore did not rewind: c is still there.
    assert.deepEqual(record.check(map({ a: '1', b: '2', c: '3', d: '4' })), [
      { key: 'c', kind: 'phantom', found: '3' },
    ]);
  });

  it('after a survivor restore: what the survivor had applied stays, its later writes are gone', () => {
    const record = new WriteRecord();
    record.acknowledged('a', '1', 10n);
    record.acknowledged('b', '2', 20n);
    record.restoredFromSurvivor(15n);
    assert.deepEqual(record.expected(), map({ a: '1' }));
  });

  it('a backup from an older history restores that history, not what came after it', () => {
    const record = new WriteRecord();
    record.acknowledged('a', '1', 10n);
    const old = record.backupAt(10n);
    record.acknowledged('b', '2', 11n);
    record.restoredFromSurvivor(11n); // history 1: a, b
    record.acknowledged('c', '3', 12n);
    const newer = record.backupAt(12n);
    record.restoredFrom(old); // history 2: a
    assert.deepEqual(record.expected(), map({ a: '1' }));
    record.restoredFrom(newer); // history 3: a, b, c
    assert.deepEqual(record.expected(), map({ a: '1', b: '2', c: '3' }));
    assert.throws(() => record.restoredFrom({ history: 9, revision: 1n }), /no history 9 yet/);
  });
});
