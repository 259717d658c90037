// The soak's backup invariants (test/soak/backups.ts).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { BackupMetadata } from '../../../controller/backup/metadata.js';
import { backupViolations } from '../../soak/backups.js';

const metadata = (revision: string, objectSize: number, objectSha256: string): BackupMetadata => ({
  namespace: 'soak',
  cluster: 'plain',
  revision,
  etcdVersion: '3.6.16',
  member: 'plain-0',
  time: '2026-11-29T02:00:00Z',
  snapshotSize: objectSize,
  snapshotSha256: objectSha256,
  objectSize,
  objectSha256,
  compression: 'none',
});
const listing = (...backups: { key: string; size: number; metadata: BackupMetadata }[]) => ({
  backups,
  partials: [],
  foreign: [],
});

it('passes complete backups with the revisions taken; names a short or mismatched object, a wrong revision and a deleted newest backup', () => {
  const a = { key: 'b/1.db', size: 10, metadata: metadata('5', 10, 'aa') };
  const b = { key: 'b/2.db', size: 20, metadata: metadata('9', 20, 'bb') };
  const taken = [
    { key: 'b/1.db', revision: '5' },
    { key: 'b/2.db', revision: '9' },
  ];
  assert.deepEqual(backupViolations(listing(a, b), taken, new Map([['b/2.db', 'bb']])), []);
  assert.deepEqual(
    backupViolations(
      listing({ ...a, size: 7 }, { ...b, metadata: metadata('8', 20, 'bb') }),
      taken,
      new Map([['b/1.db', 'cc']]),
    ),
    [
      'partial backup b/1.db: 7 bytes stored, its metadata says 10',
      'partial backup b/1.db: sha256 cc, its metadata says aa',
      'backup b/2.db records revision 8, taken at 9',
    ],
  );
  assert.deepEqual(backupViolations(listing(a), taken), ['the newest backup b/2.db is gone']);
  assert.deepEqual(backupViolations(listing(b), taken), [], 'an older backup may expire');
});
