// The bound of ServiceMissing (docs/design/membership.md step 3): missing Services count only once the cluster is
// older than SERVICE_MISSING_AFTER_MS, so a sync that applies the EtcdCluster a moment before its Services is quiet.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EtcdCluster } from '../../../controller/etcdcluster/api.js';
import {
  type Observed,
  reportsMissingServices,
  SERVICE_MISSING_AFTER_MS,
} from '../../../controller/etcdcluster/observe.js';

const NOW = Date.parse('2026-11-26T12:00:00Z');

function observed(createdMsAgo: number, missing: string[]): Observed {
  const cluster = {
    metadata: { name: 'demo', namespace: 'db', creationTimestamp: new Date(NOW - createdMsAgo) },
    spec: { version: '3.6.16' },
  } as unknown as EtcdCluster;
  return {
    cluster,
    pods: [],
    pvcs: [],
    etcd: undefined,
    nodes: new Map(),
    missingServices: missing,
    backups: { cronJobs: [], pods: [] },
  };
}

describe('reportsMissingServices', () => {
  it('GIVEN a Service missing from a cluster created exactly the bound ago THEN it is reported', () => {
    assert.equal(reportsMissingServices(observed(SERVICE_MISSING_AFTER_MS, ['demo-peer']), NOW), true);
  });

  it('GIVEN the same a second earlier THEN it is not reported yet', () => {
    assert.equal(
      reportsMissingServices(observed(SERVICE_MISSING_AFTER_MS - 1_000, ['demo-peer']), NOW),
      false,
    );
  });

  it('GIVEN an old cluster with both Services THEN nothing is reported', () => {
    assert.equal(reportsMissingServices(observed(3_600_000, []), NOW), false);
  });
});
