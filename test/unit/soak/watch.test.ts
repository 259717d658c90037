// The soak's watch invariant (test/soak/watch.ts), over the histories a restore makes (WriteRecord).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type WatchEntry, watchViolations } from '../../soak/watch.js';
import { WriteRecord } from '../../soak/writes.js';

const resync = (revision: bigint): WatchEntry => ({ kind: 'resync', revision });
const event = (key: string, revision: bigint): WatchEntry => ({ kind: 'event', revision, key });
const error: WatchEntry = { kind: 'error', message: 'mvcc: required revision has been compacted' };

describe('watchViolations', () => {
  it('passes a watcher given every write in order; a write beyond what it has seen is not yet owed', () => {
    const record = new WriteRecord();
    record.acknowledged('a', '1', 11n);
    record.acknowledged('b', '2', 12n);
    record.acknowledged('c', '3', 13n);
    assert.deepEqual(watchViolations([resync(10n), event('a', 11n), event('b', 12n)], record.ackedNow()), []);
  });

  it('names a write skipped by a watcher that saw a later revision', () => {
    const record = new WriteRecord();
    record.acknowledged('a', '1', 11n);
    record.acknowledged('b', '2', 12n);
    assert.deepEqual(watchViolations([resync(10n), event('b', 12n)], record.ackedNow()), [
      'write a at revision 11 never given, though the watcher saw revision 12 (resynced at 10)',
    ]);
  });

  it('a restore without a revision bump: the watcher resumes past the new writes (a silent gap) and is given reused revisions', () => {
    const record = new WriteRecord();
    record.acknowledged('a', '1', 11n);
    const backup = record.backupAt(11n);
    record.acknowledged('b', '2', 12n);
    record.acknowledged('c', '3', 13n);
    record.restoredFrom(backup); // etcd is back at revision 11
    record.acknowledged('d', '4', 12n);
    record.acknowledged('e', '5', 13n);
    record.acknowledged('f', '6', 14n);
    const log = [resync(10n), event('a', 11n), event('b', 12n), event('c', 13n), event('f', 14n)];
    assert.deepEqual(watchViolations(log, record.ackedNow()), [
      'write d at revision 12 never given, though the watcher saw revision 14 (resynced at 10)',
      'write e at revision 13 never given, though the watcher saw revision 14 (resynced at 10)',
    ]);
    // Told by an error, it resyncs: at a revision below what it saw, which is the reuse itself.
    const told = [
      resync(10n),
      event('a', 11n),
      event('b', 12n),
      event('c', 13n),
      error,
      resync(12n),
      event('e', 13n),
    ];
    assert.deepEqual(watchViolations(told, record.ackedNow()), [
      'resynced at revision 12, below revision 13 seen before',
      'event e at revision 13, not above revision 13 seen before',
    ]);
  });

  it('a restore with the revision bump and the range marked compacted: an error, a resync above, no violation', () => {
    const record = new WriteRecord();
    record.acknowledged('a', '1', 11n);
    const backup = record.backupAt(11n);
    record.acknowledged('b', '2', 12n);
    record.restoredFrom(backup); // restored with --bump-revision 1000 --mark-compacted
    record.acknowledged('c', '3', 1012n);
    record.acknowledged('d', '4', 1013n);
    const log = [resync(10n), event('a', 11n), event('b', 12n), error, resync(1012n), event('d', 1013n)];
    assert.deepEqual(watchViolations(log, record.ackedNow()), []);
  });
});
