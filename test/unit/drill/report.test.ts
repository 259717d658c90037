// A restore drill's termination message (docs/design/restore-drill.md, "The report"): what `drill check` and a failed
// `drill fetch` write, the controller reads back; the backup report's format, never more than the kubelet keeps.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  encodeReport,
  TERMINATION_MESSAGE_LIMIT_BYTES,
} from '../../../controller/backup/termination-report.js';
import { type DrillReport, decodeDrillReport } from '../../../controller/drill/report.js';

const success: DrillReport = {
  v: 1,
  outcome: 'Succeeded',
  key: 'team-a/main/20261201T040000Z-rev42.db',
  revision: '42',
  servedRevision: '1000045',
  keys: 17,
  sizeBytes: 1_048_576,
  durationMs: 5678,
};
const failure: DrillReport = {
  v: 1,
  outcome: 'Failed',
  code: 'CHECKSUM_MISMATCH',
  reason: 's3://b/team-a/main/20261201T040000Z-rev42.db: sha256 differs',
};

describe('restore drill termination report', () => {
  for (const [what, report] of [
    ['a success', success],
    ['a failure', failure],
  ] as const) {
    it(`GIVEN ${what} WHEN encoded and decoded THEN the same report comes back`, () => {
      assert.deepEqual(decodeDrillReport(encodeReport(report)), report);
    });
  }

  it('GIVEN a failure with a reason longer than the kubelet keeps WHEN encoded THEN it fits and still decodes', () => {
    const encoded = encodeReport({ ...failure, reason: 'y'.repeat(10_000) });
    assert.ok(Buffer.byteLength(encoded) <= TERMINATION_MESSAGE_LIMIT_BYTES);
    const decoded = decodeDrillReport(encoded);
    assert.equal(decoded?.outcome, 'Failed');
    assert.ok(decoded.reason.endsWith('…'));
  });

  for (const [what, message] of [
    ['nothing', undefined],
    [
      'a backup report',
      JSON.stringify({ v: 1, outcome: 'Succeeded', key: 'k', revision: '1', sizeBytes: 1, durationMs: 1 }),
    ],
    ['another version', JSON.stringify({ ...success, v: 2 })],
    ['a success without its key count', JSON.stringify({ ...success, keys: undefined })],
    ['etcd log lines', 'panic: runtime error'],
  ] as const) {
    it(`GIVEN ${what} WHEN decoded THEN it is no drill report`, () => {
      assert.equal(decodeDrillReport(message), undefined);
    });
  }
});
