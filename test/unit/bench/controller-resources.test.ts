// The controller's default memory request and limit are set from the committed scale bench: a bench whose figures
// outgrow them fails here until the defaults (constructs/conventions/limits.ts) are raised.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RESULTS, readResults } from '../../../bench/readme-table.js';
import { DEFAULT_CONTROLLER_RESOURCES } from '../../../constructs/conventions/limits.js';
import { quantityBytes } from '../../../constructs/conventions/quantity.js';

const mib = (quantity: string) => (quantityBytes(quantity) ?? Number.NaN) / 2 ** 20;

describe('controller resources from bench/results/scale.json', () => {
  const scale = readResults(RESULTS).scale;
  const rows = scale.rows;
  const byClusters = (clusters: number) => {
    const row = rows.find((r) => r.clusters === clusters);
    assert.ok(row, `scale.json has no row for ${clusters} clusters`);
    return row;
  };

  it('GIVEN the peak RSS of a run up to 50 clusters Ready THEN the memory limit is at least 1.5× it', () => {
    assert.equal(byClusters(50).clusters, 50);
    const peak = scale.controllerPeakRssMiB;
    assert.ok(
      mib(DEFAULT_CONTROLLER_RESOURCES.limits.memory) >= 1.5 * peak,
      `limit ${DEFAULT_CONTROLLER_RESOURCES.limits.memory} < 1.5 × ${peak.toFixed(0)} MiB`,
    );
  });

  it('GIVEN the RSS at rest with one cluster THEN the memory request covers it', () => {
    const rest = byClusters(1).restPeakRssMiB;
    assert.ok(
      mib(DEFAULT_CONTROLLER_RESOURCES.requests.memory) >= rest,
      `request ${DEFAULT_CONTROLLER_RESOURCES.requests.memory} < ${rest.toFixed(0)} MiB`,
    );
  });
});
