// A backup Job's default memory request and limit are set from the committed backup bench, run with the Job's own
// NODE_OPTIONS: a bench whose peaks outgrow them fails here until the defaults (constructs/conventions/limits.ts)
// are raised.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RESULTS, readResults } from '../../../bench/readme-table.js';
import {
  DEFAULT_BACKUP_NODE_OPTIONS,
  DEFAULT_BACKUP_RESOURCES,
} from '../../../constructs/conventions/limits.js';
import { quantityBytes } from '../../../constructs/conventions/quantity.js';

const mib = (quantity: string) => (quantityBytes(quantity) ?? Number.NaN) / 2 ** 20;

describe('backup Job resources from bench/results/backup.json', () => {
  const backup = readResults(RESULTS).backup;
  const peak = Math.max(...backup.rows.map((row) => row.oursPeakRssMiB));

  it('GIVEN the bench THEN it ran the saves with the NODE_OPTIONS a backup Job gets', () => {
    assert.equal(backup.nodeOptions, DEFAULT_BACKUP_NODE_OPTIONS);
  });

  it('GIVEN the peak RSS of every database size THEN the memory request covers the largest', () => {
    assert.ok(backup.rows.length > 0, 'backup.json has no rows');
    assert.ok(
      mib(DEFAULT_BACKUP_RESOURCES.requests.memory) >= peak,
      `request ${DEFAULT_BACKUP_RESOURCES.requests.memory} < ${peak.toFixed(0)} MiB`,
    );
  });

  it('GIVEN the same peak THEN the memory limit is at least 1.5× it', () => {
    assert.ok(
      mib(DEFAULT_BACKUP_RESOURCES.limits.memory) >= 1.5 * peak,
      `limit ${DEFAULT_BACKUP_RESOURCES.limits.memory} < 1.5 × ${peak.toFixed(0)} MiB`,
    );
  });
});
