// Which `.part` objects a later save deletes (docs/design/backup.md, "Staging objects left by a killed save").
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DEFAULT_STAGING_GRACE_MS,
  planStagingSweep,
  type StagingObject,
  stagingMetadata,
} from '../../../controller/backup/staging.js';

const reference = new Date('2026-03-01T12:00:00Z');
const hour = 3_600_000;
const ours = { namespace: 'ns', cluster: 'main' };

function part(key: string, hoursAgo: number, metadata = stagingMetadata(ours, reference)): StagingObject {
  return { key, lastModified: new Date(reference.getTime() - hoursAgo * hour), metadata };
}

interface Row {
  name: string;
  object: StagingObject;
  expected: ReturnType<typeof planStagingSweep>[number];
}

const rows: Row[] = [
  {
    name: 'ours, older than the grace',
    object: part('ns/main/a.db.part', 25),
    expected: { key: 'ns/main/a.db.part', delete: true },
  },
  {
    name: 'ours, within the grace (another save may be renaming it)',
    object: part('ns/main/b.db.part', 23),
    expected: { key: 'ns/main/b.db.part', delete: false, reason: 'within-grace' },
  },
  {
    name: 'ours, exactly the grace old',
    object: part('ns/main/c.db.part', 24),
    expected: { key: 'ns/main/c.db.part', delete: false, reason: 'within-grace' },
  },
  {
    name: 'a .part without the staging marker (an earlier release, or not ours)',
    object: part('ns/main/d.db.part', 100, { 'etcd-namespace': 'ns', 'etcd-cluster': 'main' }),
    expected: { key: 'ns/main/d.db.part', delete: false, reason: 'not-ours' },
  },
  {
    name: 'a .part carrying the backup marker instead of the staging one',
    object: part('ns/main/e.db.part', 100, {
      'etcd-gitops-backup': 'v1',
      'etcd-namespace': 'ns',
      'etcd-cluster': 'main',
    }),
    expected: { key: 'ns/main/e.db.part', delete: false, reason: 'not-ours' },
  },
  {
    name: "another cluster's staging object under the same prefix",
    object: part('ns/main/f.db.part', 100, stagingMetadata({ namespace: 'ns', cluster: 'other' }, reference)),
    expected: { key: 'ns/main/f.db.part', delete: false, reason: 'other-cluster' },
  },
  {
    name: "another namespace's staging object",
    object: part('ns/main/g.db.part', 100, stagingMetadata({ namespace: 'x', cluster: 'main' }, reference)),
    expected: { key: 'ns/main/g.db.part', delete: false, reason: 'other-cluster' },
  },
  {
    name: 'a backup (no .part suffix), even with the staging marker',
    object: part('ns/main/h.db', 100),
    expected: { key: 'ns/main/h.db', delete: false, reason: 'not-staging' },
  },
  {
    name: 'no LastModified from the store',
    object: { key: 'ns/main/i.db.part', metadata: stagingMetadata(ours, reference) },
    expected: { key: 'ns/main/i.db.part', delete: false, reason: 'no-time' },
  },
];

describe('planStagingSweep', () => {
  for (const row of rows) {
    it(`GIVEN ${row.name} WHEN a save of ns/main sweeps THEN ${row.expected.delete ? 'it is deleted' : `it is kept (${'reason' in row.expected ? row.expected.reason : ''})`}`, () => {
      const [decision] = planStagingSweep([row.object], {
        ...ours,
        reference,
        graceMs: DEFAULT_STAGING_GRACE_MS,
      });
      assert.deepEqual(decision, row.expected);
    });
  }

  it('GIVEN a grace of 0 THEN any older staging object of ours is deleted, one of the same instant is kept', () => {
    const plan = planStagingSweep([part('ns/main/old.db.part', 0.001), part('ns/main/now.db.part', 0)], {
      ...ours,
      reference,
      graceMs: 0,
    });
    assert.deepEqual(
      plan.map((d) => d.delete),
      [true, false],
    );
  });

  it('fails when the grace is negative', () => {
    assert.throws(
      () => planStagingSweep([], { ...ours, reference, graceMs: -1 }),
      /^Error: staging grace must be a duration of 0 or more, got -1 ms$/,
    );
  });

  it('GIVEN the staging metadata THEN it never carries the backup marker (a .part is never listed as a backup)', () => {
    const metadata = stagingMetadata(ours, reference);
    assert.equal(metadata['etcd-gitops-backup'], undefined);
    assert.deepEqual(metadata, {
      'etcd-gitops-staging': 'v1',
      'etcd-namespace': 'ns',
      'etcd-cluster': 'main',
      'backup-time': '2026-03-01T12:00:00.000Z',
    });
  });
});
