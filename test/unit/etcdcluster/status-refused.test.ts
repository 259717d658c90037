// A write the API server refused (controller/etcdcluster/execute.ts, `unperformed`; docs/design/conventions.md,
// "Real faults"): the status says Degraded WriteRefused with the action and the API server's message, still
// Progressing (what clears it, a quota freed or a ServiceAccount made, needs no change to the spec), never Stalled.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EtcdCluster } from '../../../controller/etcdcluster/api.js';
import { buildStatus } from '../../../controller/etcdcluster/status.js';
import { reportedAction } from '../../../controller/etcdcluster/status-progress.js';
import type { Action } from '../../../controller/etcdcluster/types.js';

const cluster: EtcdCluster = {
  apiVersion: 'etcd.gitops.dev/v1alpha1',
  kind: 'EtcdCluster',
  metadata: { name: 'demo', namespace: 'ns', uid: 'u', generation: 1 },
  spec: { size: 3, version: '3.6.16' },
};

const seed: Action = {
  kind: 'CreatePod',
  member: 'demo-0',
  reason: 'seed',
  state: 'new',
  initialCluster: ['demo-0'],
  token: 't',
};

const refused =
  'the API server refused CreatePod demo-0 (HTTP 403): pods "demo-0" is forbidden: error looking up service account ns/demo-backup: serviceaccount "demo-backup" not found';

describe('a refused write in the status', () => {
  it('GIVEN the seed Pod refused THEN Degraded and Progressing say WriteRefused with the message, not Stalled', () => {
    const told = reportedAction(seed, { refused });
    const status = buildStatus(cluster, told, undefined, new Date(0), [], []);
    const condition = (type: string) => status.conditions?.find((c) => c.type === type);
    assert.deepEqual(
      ['Degraded', 'Progressing', 'Stalled', 'Ready'].map((type) => [
        type,
        condition(type)?.status,
        condition(type)?.reason,
      ]),
      [
        ['Degraded', 'True', 'WriteRefused'],
        ['Progressing', 'True', 'WriteRefused'],
        ['Stalled', 'False', 'AsExpected'],
        ['Ready', 'False', 'WriteRefused'],
      ],
    );
    assert.equal(condition('Degraded')?.message, refused);
  });

  it('GIVEN no refusal THEN the action is told as planned', () => {
    assert.equal(reportedAction(seed, {}), seed);
  });
});
