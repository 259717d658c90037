// The backup Pod's termination message (docs/design/backup-status.md): what `backup save` writes, the controller
// reads back; never more than the kubelet keeps.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type BackupReport,
  decodeBackupReport,
  encodeBackupReport,
  TERMINATION_MESSAGE_LIMIT_BYTES,
} from '../../../controller/backup/termination-report.js';

const success: BackupReport = {
  v: 1,
  outcome: 'Succeeded',
  key: 'team-a/main/2026-11-29T10:00:00Z-rev42.db',
  revision: '42',
  sizeBytes: 1_048_576,
  durationMs: 1234,
};
const failure: BackupReport = {
  v: 1,
  outcome: 'Failed',
  code: 'S3_ERROR',
  reason: 'HeadBucket: 403 Forbidden',
};

describe('backup termination report', () => {
  for (const [what, report] of [
    ['a success', success],
    ['a failure', failure],
  ] as const) {
    it(`GIVEN ${what} WHEN encoded and decoded THEN the same report comes back`, () => {
      assert.deepEqual(decodeBackupReport(encodeBackupReport(report)), report);
    });
  }

  for (const [what, reason] of [
    ['ASCII', 'x'.repeat(10_000)],
    ['multi-byte characters', 'é€😀'.repeat(2_000)],
  ] as const) {
    it(`GIVEN a failure whose reason of ${what} is too long WHEN encoded THEN it fits the kubelet's limit and the reason is cut with …`, () => {
      const encoded = encodeBackupReport({ ...failure, reason });
      assert.ok(
        Buffer.byteLength(encoded) <= TERMINATION_MESSAGE_LIMIT_BYTES,
        `${Buffer.byteLength(encoded)}`,
      );
      assert.ok(Buffer.byteLength(encoded) > TERMINATION_MESSAGE_LIMIT_BYTES - 8, 'it keeps as much as fits');
      const decoded = decodeBackupReport(encoded);
      assert.equal(decoded?.outcome, 'Failed');
      const cut = decoded?.outcome === 'Failed' ? decoded.reason : '';
      assert.ok(cut.endsWith('…'));
      assert.ok(reason.startsWith(cut.slice(0, -1)), 'the cut reason is a prefix of the reason');
      assert.equal(decoded?.outcome === 'Failed' && decoded.code, 'S3_ERROR');
    });
  }

  for (const [what, message] of [
    ['no message', undefined],
    ['an empty message', ''],
    ['a message that is not JSON (a kubelet fallback to logs)', 'panic: something\n'],
    ['another version', JSON.stringify({ ...success, v: 2 })],
    ['a success without its key', JSON.stringify({ ...success, key: undefined })],
    ['a failure without its code', JSON.stringify({ v: 1, outcome: 'Failed', reason: 'x' })],
    ['an array', '[1]'],
  ] as const) {
    it(`GIVEN ${what} WHEN decoded THEN no report`, () => {
      assert.equal(decodeBackupReport(message), undefined);
    });
  }
});
