// The cluster status while the restore branch acts (docs/design/membership.md, "The restore branch"): Progressing
// says Restoring and what the step does, a failing seed restore is Degraded, and the membership status never
// carries the lock (`status.restore` belongs to the lock's protocol, written only by resourceVersion-conditional
// patches).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EtcdCluster } from '../../../controller/etcdcluster/api.js';
import { buildStatus } from '../../../controller/etcdcluster/status.js';
import type { Action } from '../../../controller/etcdcluster/types.js';
import { restoreLock } from './fixtures.js';

const locked: EtcdCluster = {
  apiVersion: 'etcd.gitops.dev/v1alpha1',
  kind: 'EtcdCluster',
  metadata: { name: 'demo', namespace: 'ns', uid: 'u', generation: 2 },
  spec: { size: 3, version: '3.6.16' },
  status: { members: [{ name: 'demo-0', ready: true }], restore: restoreLock('Restoring') },
};
const condition = (action: Action, type: string) =>
  buildStatus(locked, action, undefined, new Date(0)).conditions?.find((c) => c.type === type);

describe('buildStatus during an in-place restore', () => {
  for (const [action, message] of [
    [
      { kind: 'RetainPVC', member: 'demo-0', pvc: 'demo-0-data', restore: 'r1' },
      'retaining PVC demo-0-data of old member demo-0 for EtcdRestore r1',
    ],
    [
      { kind: 'ReleaseToPlanner', member: 'demo-3', restore: 'r1' },
      'the seed demo-3 of EtcdRestore r1 serves; the cluster grows from it',
    ],
    [
      { kind: 'MarkAbandonedPVC', pvc: 'demo-0-data', restore: 'r1' },
      'marking PVC demo-0-data abandoned by the deleted EtcdRestore r1',
    ],
  ] as const) {
    it(`GIVEN ${action.kind} THEN Progressing True, reason Restoring, saying what it does`, () => {
      const progressing = condition(action, 'Progressing');
      assert.equal(progressing?.status, 'True');
      assert.equal(progressing?.reason, 'Restoring');
      assert.equal(progressing?.message, message);
    });
  }

  for (const action of [
    { kind: 'DeleteRetainedPVC', pvc: 'demo-0-data', restore: 'r1' },
    { kind: 'ClearRestoreLock', restore: 'r1', outcome: 'Completed', retained: [] },
  ] as const) {
    it(`GIVEN ${action.kind} after a completed restore THEN Progressing stays False (housekeeping of a Ready cluster: Healthy stays Healthy)`, () => {
      assert.equal(condition(action, 'Progressing')?.status, 'False');
    });
  }

  it("GIVEN the seed's restore fetch failing THEN Degraded SeedRestoreFailing with the planner's message", () => {
    const failing: Action = {
      kind: 'Wait',
      reason: 'SeedRestoreFailing',
      message: 'the seed demo-3 could not restore the backup of EtcdRestore r1: exit code 4',
      requeueAfterMs: 5_000,
      degraded: true,
    };
    const degraded = condition(failing, 'Degraded');
    assert.equal(degraded?.status, 'True');
    assert.equal(degraded?.reason, 'SeedRestoreFailing');
    assert.match(degraded?.message ?? '', /exit code 4/);
  });

  it('GIVEN a locked cluster THEN the status written after a pass has no restore field (the lock is left alone)', () => {
    const status = buildStatus(
      locked,
      { kind: 'RetainPVC', member: 'demo-0', pvc: 'demo-0-data', restore: 'r1' },
      undefined,
      new Date(0),
    );
    assert.equal('restore' in status, false);
  });
});
