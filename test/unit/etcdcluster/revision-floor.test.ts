// status.revisionFloor (docs/design/restore.md, "The revision floor"): the highest revision seen, raised only, and
// only in steps of at least a million; and the restore bump counted from it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nextRevisionFloor, REVISION_FLOOR_STEP } from '../../../controller/etcdcluster/revision-floor.js';
import {
  RESTORE_REVISION_BUMP,
  restoreToolOf,
  revisionBumpOf,
} from '../../../controller/restore/etcd-version.js';

describe('nextRevisionFloor', () => {
  const step = Number(REVISION_FLOOR_STEP);
  for (const [what, recorded, observed, expected] of [
    ['no member answered: the recorded floor stays', '5000', [], '5000'],
    ['nothing recorded, nothing seen', undefined, [], undefined],
    ['nothing recorded: the highest answer', undefined, ['12', '40', '7'], '40'],
    [
      'grown by less than a step: unchanged (no status write every pass)',
      '1000',
      [String(1000 + step - 1)],
      '1000',
    ],
    ['grown by a step: raised', '1000', [String(1000 + step)], String(1000 + step)],
    ['a restored cluster 10^9 above: raised at once', '4000047532', ['5000047532'], '5000047532'],
    ['a lagging member below the floor: never lowered', '9000000', ['5'], '9000000'],
  ] as const) {
    it(what, () => {
      assert.equal(nextRevisionFloor(recorded, observed), expected);
    });
  }
});

describe('revisionBumpOf', () => {
  const v36 = restoreToolOf('3.6.16');
  it('GIVEN no floor (a new cluster) THEN the fixed bump above the snapshot', () => {
    assert.equal(revisionBumpOf(v36, '4000047532'), RESTORE_REVISION_BUMP);
  });
  it('GIVEN a floor at or below the snapshot (recorded before the writes the backup holds) THEN the fixed bump', () => {
    assert.equal(revisionBumpOf(v36, '5000', '4000'), RESTORE_REVISION_BUMP);
    assert.equal(revisionBumpOf(v36, '5000', '5000'), RESTORE_REVISION_BUMP);
  });
  it('GIVEN a floor above the snapshot (writes after the backup were seen) THEN 10^9 above the floor', () => {
    assert.equal(revisionBumpOf(v36, '5000', '6000'), RESTORE_REVISION_BUMP + 1000);
  });
  it("GIVEN the soak's case: the same snapshot restored again after the first restore gave out revisions THEN the bump lifts the new base 10^9 above the floor", () => {
    // Snapshot at 3000047532; the first restore started at 4000047532 and gave out up to 4000047646.
    const bump = revisionBumpOf(v36, '3000047532', '4000047646');
    assert.equal(3000047532 + bump, 4000047646 + RESTORE_REVISION_BUMP);
  });
  it('GIVEN etcd 3.4 THEN no bump at all (its restore tool has none)', () => {
    assert.equal(revisionBumpOf(restoreToolOf('3.4.23'), '5000', '9000000000'), 0);
  });
});
