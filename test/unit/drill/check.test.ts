// `drill check`'s verdict (docs/design/restore-drill.md, "The drill Pod", 3): the restored etcd must serve at least
// the backup's recorded revision plus the restore's bump.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { judgeDrill } from '../../../controller/drill/check.js';
import { DrillError } from '../../../controller/drill/exit-codes.js';
import type { Restored } from '../../../controller/drill/fetch.js';

const restored: Restored = {
  key: 'team-a/main/20261201T040000Z-rev42.db',
  revision: '42',
  etcdVersion: '3.6.16',
  snapshotBytes: 4096,
  revisionBump: 1_000_000,
  startedAtMs: 1_000,
};

describe('judgeDrill', () => {
  for (const [what, servedRevision, ok] of [
    ['the recorded revision plus the bump', '1000042', true],
    ['a few writes after the recorded revision, plus the bump', '1000045', true],
    ['one below the recorded revision plus the bump', '1000041', false],
    ['the recorded revision without the bump', '42', false],
    ['beyond 2^53', '9007199254740993000', true],
  ] as const) {
    it(`GIVEN etcd serving ${what} WHEN judged THEN ${ok ? 'the drill succeeds' : 'REVISION_MISMATCH names both revisions'}`, () => {
      const verdict = judgeDrill(restored, { revision: servedRevision, keys: 17 }, 6_000);
      if (ok) {
        assert.deepEqual(verdict, {
          v: 1,
          outcome: 'Succeeded',
          key: restored.key,
          revision: '42',
          servedRevision,
          keys: 17,
          sizeBytes: 4096,
          durationMs: 5_000,
        });
      } else {
        assert.ok(verdict instanceof DrillError);
        assert.equal(verdict.code, 'REVISION_MISMATCH');
        assert.match(verdict.message, new RegExp(`serves revision ${servedRevision}, below 1000042`));
        assert.match(verdict.message, /recorded revision 42, restored with a bump of 1000000/);
      }
    });
  }

  it('GIVEN a backup of an etcd never written to (recorded revision 1, a snapshot of revision 0) WHEN etcd serves the bump alone THEN the drill succeeds; one less THEN REVISION_MISMATCH', () => {
    const pristine = { ...restored, revision: '1' };
    assert.ok(!(judgeDrill(pristine, { revision: '1000000', keys: 0 }, 1_000) instanceof DrillError));
    const verdict = judgeDrill(pristine, { revision: '999999', keys: 0 }, 1_000);
    assert.ok(verdict instanceof DrillError);
    assert.match(verdict.message, /serves revision 999999, below 1000000/);
  });

  it('GIVEN an empty restored keyspace WHEN judged THEN the drill succeeds and reports 0 keys (the count is a figure, not a rule)', () => {
    const verdict = judgeDrill(restored, { revision: '1000042', keys: 0 }, 1_000);
    assert.ok(!(verdict instanceof DrillError));
    assert.equal(verdict.keys, 0);
  });
});
