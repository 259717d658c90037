// The pieces around an orphaned restore lock that are pure: which restore key a cluster's lock enqueues, which lock
// the EtcdRestore reconciler abandons, the PVCs a deleted restore left behind, and the cluster's Degraded condition
// naming them (built by the membership status; the marking itself is in test/unit/etcdcluster/plan-restore.test.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1PersistentVolumeClaim } from '@kubernetes/client-node';
import { abandonedData, abandonedMessage } from '../../../controller/etcdcluster/abandoned.js';
import type { EtcdCluster } from '../../../controller/etcdcluster/api.js';
import { buildStatus } from '../../../controller/etcdcluster/status.js';
import { toPvcView } from '../../../controller/etcdcluster/views.js';
import { planOrphanedLock } from '../../../controller/etcdrestore/plan.js';
import { lockHolderKeys } from '../../../controller/etcdrestore/watch-keys.js';

const pvc = (
  name: string,
  annotations?: Record<string, string>,
  deleting = false,
): V1PersistentVolumeClaim => ({
  metadata: {
    name,
    labels: { 'etcd.gitops.dev/retained-by-restore': 'r0' },
    ...(annotations ? { annotations } : {}),
    ...(deleting ? { deletionTimestamp: new Date(0) } : {}),
  },
});
const abandoned = (restore: string) => ({ 'etcd.gitops.dev/abandoned-by-restore': restore });

const cluster: EtcdCluster = {
  apiVersion: 'etcd.gitops.dev/v1alpha1',
  kind: 'EtcdCluster',
  metadata: { name: 'demo', namespace: 'ns', uid: 'u', generation: 1 },
  spec: { size: 3, version: '3.6.16' },
  status: { members: [{ name: 'demo-0', ready: true }] },
};

describe('lockHolderKeys', () => {
  it('GIVEN a cluster whose status.restore names a restore THEN that key, in the cluster namespace', () => {
    const locked = { ...cluster, status: { restore: { name: 'r0', uid: 'x', phase: 'Restoring' as const } } };
    assert.deepEqual(lockHolderKeys(locked), [{ namespace: 'ns', name: 'r0' }]);
  });
  it('GIVEN no lock THEN no key', () => {
    assert.deepEqual(lockHolderKeys(cluster), []);
  });
});

describe('abandoned PVCs', () => {
  it('GIVEN annotated PVCs of two restores THEN grouped by restore, sorted, deleting PVCs left out', () => {
    const data = abandonedData([
      pvc('demo-2-data', abandoned('r0')),
      pvc('demo-0-data', abandoned('r0')),
      pvc('demo-1-data', abandoned('a')),
      pvc('demo-3-data', abandoned('r0'), true),
      pvc('demo-4-data'),
    ]);
    assert.deepEqual(data, [
      { restore: 'a', pvcs: ['demo-1-data'] },
      { restore: 'r0', pvcs: ['demo-0-data', 'demo-2-data'] },
    ]);
  });
  it('GIVEN PVCs THEN the message names each, the label to find them and the annotation to clear', () => {
    const message = abandonedMessage('r0', ['demo-0-data', 'demo-1-data']);
    assert.match(message, /EtcdRestore r0 was deleted before it completed/);
    assert.match(
      message,
      /PVCs demo-0-data, demo-1-data \(label etcd\.gitops\.dev\/retained-by-restore=r0\)/,
    );
    assert.match(message, /etcd\.gitops\.dev\/abandoned-by-restore/);
  });
  it('GIVEN a PVC view THEN retainedBy and abandonedBy come from the label and the annotation', () => {
    assert.equal(toPvcView(pvc('demo-0-data', abandoned('r0')))?.abandonedBy, 'r0');
    assert.equal(toPvcView(pvc('demo-0-data', abandoned('r0')))?.retainedBy, 'r0');
    assert.equal(toPvcView(pvc('demo-0-data'))?.abandonedBy, undefined);
  });
});

describe('planOrphanedLock', () => {
  for (const phase of ['Restoring', 'Growing'] as const) {
    it(`GIVEN the lock of a deleted restore in phase ${phase} THEN its phase becomes Abandoned`, () => {
      assert.deepEqual(planOrphanedLock({ name: 'r0', uid: 'x', phase }), {
        kind: 'AbandonLock',
        holder: 'r0',
        phase,
      });
    });
  }
  for (const phase of ['Completed', 'Abandoned'] as const) {
    it(`GIVEN a lock already ${phase} THEN it is left to the membership planner`, () => {
      assert.equal(planOrphanedLock({ name: 'r0', uid: 'x', phase }), undefined);
    });
  }
});

describe('the cluster status with abandoned PVCs', () => {
  const degraded = (status: ReturnType<typeof buildStatus>) =>
    status.conditions?.find((condition) => condition.type === 'Degraded');
  it('GIVEN abandoned PVCs WHEN quorum is lost THEN Degraded RestoreAbandoned names the PVCs and says quorum is lost', () => {
    const status = buildStatus(
      cluster,
      { kind: 'ReportQuorumLost', message: 'no member of 3 answers' },
      undefined,
      new Date(0),
      [{ restore: 'r0', pvcs: ['demo-0-data'] }],
    );
    assert.equal(degraded(status)?.status, 'True');
    assert.equal(degraded(status)?.reason, 'RestoreAbandoned');
    assert.match(
      degraded(status)?.message ?? '',
      /^quorum lost \(no member of 3 answers\); EtcdRestore r0 .*demo-0-data/,
    );
  });
  it('GIVEN no abandoned PVC THEN the Degraded condition is the membership one', () => {
    const status = buildStatus(
      cluster,
      { kind: 'ReportQuorumLost', message: 'no member of 3 answers' },
      undefined,
      new Date(0),
    );
    assert.equal(degraded(status)?.reason, 'QuorumLost');
  });
  it('GIVEN a refused spec and abandoned data THEN InvalidSpec still wins', () => {
    const refuse = { kind: 'Refuse' as const, field: 'spec.size', value: '4', allowed: 'odd' };
    const status = buildStatus(cluster, refuse, undefined, new Date(0), [
      { restore: 'r0', pvcs: ['demo-0-data'] },
    ]);
    assert.equal(degraded(status)?.reason, 'InvalidSpec');
  });
});
