// A merge patch that changes nothing is recognised, so the reconciler skips writing an identical status.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mergePatchChanges } from '../../../controller/runtime/merge-patch.js';

describe('mergePatchChanges', () => {
  const current = {
    phase: 'Running',
    replicas: 3,
    members: [{ name: 'a-0', ready: true }],
    nested: { x: 1, y: { z: 'k' } },
    restore: { phase: 'Completed' },
  };
  const cases: [string, Record<string, unknown>, boolean][] = [
    ['the same values', { phase: 'Running', replicas: 3, members: [{ name: 'a-0', ready: true }] }, false],
    ['a subset of keys (the rest is kept)', { phase: 'Running' }, false],
    ['an undefined value (not serialized)', { phase: 'Running', currentVersion: undefined }, false],
    ['a nested object with the same values', { nested: { y: { z: 'k' } } }, false],
    ['null for a key that is absent', { clusterID: null }, false],
    ['a changed scalar', { replicas: 2 }, true],
    ['a changed array element', { members: [{ name: 'a-0', ready: false }] }, true],
    [
      'a longer array',
      {
        members: [
          { name: 'a-0', ready: true },
          { name: 'a-1', ready: true },
        ],
      },
      true,
    ],
    ['a new key', { currentVersion: '3.6.16' }, true],
    ['null for a key that is there', { restore: null }, true],
    ['a changed nested value', { nested: { y: { z: 'j' } } }, true],
    ['an object where a scalar was', { phase: { a: 1 } }, true],
  ];
  for (const [what, patch, changes] of cases) {
    it(`GIVEN ${what} THEN it ${changes ? 'changes' : 'does not change'} the object`, () => {
      assert.equal(mergePatchChanges(current, patch), changes);
    });
  }

  it('GIVEN no current object THEN any defined value is a change', () => {
    assert.equal(mergePatchChanges(undefined, { phase: 'Running' }), true);
    assert.equal(mergePatchChanges(undefined, { phase: undefined }), false);
  });
});
