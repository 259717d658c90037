// The scale bench's arithmetic: histogram quantiles between two scrapes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseBuckets, quantileBound } from '../../../bench/scale-stats.js';

const scrape = (counts: [string, string, number][]) =>
  counts
    .map(
      ([result, le, n]) =>
        `etcd_gitops_reconcile_duration_seconds_bucket{controller="etcdcluster",result="${result}",le="${le}"} ${n}`,
    )
    .concat(
      'etcd_gitops_reconcile_duration_seconds_bucket{controller="etcdrestore",result="success",le="+Inf"} 99',
    )
    .join('\n');

describe('scale bench arithmetic', () => {
  const name = 'etcd_gitops_reconcile_duration_seconds';
  const labels = { controller: 'etcdcluster' };

  it('GIVEN two scrapes THEN the quantile is the bound of the bucket holding it, over both results', () => {
    const before = parseBuckets(
      scrape([
        ['success', '0.1', 10],
        ['success', '1', 10],
        ['success', '+Inf', 10],
      ]),
      name,
      labels,
    );
    const after = parseBuckets(
      scrape([
        ['success', '0.1', 108],
        ['success', '1', 109],
        ['success', '+Inf', 110],
        ['requeue', '0.1', 0],
        ['requeue', '1', 0],
        ['requeue', '+Inf', 0],
      ]),
      name,
      labels,
    );
    assert.equal(after.get(Number.POSITIVE_INFINITY), 110);
    assert.equal(quantileBound(before, after, 0.5), 0.1);
    assert.equal(quantileBound(before, after, 0.99), 1);
    assert.equal(quantileBound(before, after, 1), Number.POSITIVE_INFINITY);
  });

  it('GIVEN no observation between the scrapes THEN there is no quantile', () => {
    const same = parseBuckets(scrape([['success', '+Inf', 3]]), name, labels);
    assert.equal(quantileBound(same, same, 0.99), undefined);
  });
});
