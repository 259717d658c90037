import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Metrics } from '../../../controller/runtime/metrics.js';

const cluster = { namespace: 'db', name: 'main' };

describe('Metrics', () => {
  it('exposes the process metrics and every controller metric by name', async () => {
    // GIVEN metrics with a reconcile of each outcome and a membership change
    const metrics = new Metrics();
    const observer = metrics.observer('etcdcluster');
    observer.reconciled(cluster, 'success', 0.02);
    observer.reconciled(cluster, 'error', 0.5);
    metrics.membershipChange(cluster, 'add-learner');
    metrics.membersReady(cluster, 2);
    metrics.membersDesired(cluster, 3);
    metrics.quorumLost(cluster, true);
    metrics.setLeader(true);
    // WHEN exposed
    const { body, contentType } = await metrics.expose();
    // THEN the text format carries each series
    assert.match(contentType, /^text\/plain/);
    assert.match(body, /^process_resident_memory_bytes \d+/m);
    assert.match(
      body,
      /^etcd_gitops_reconcile_duration_seconds_count\{controller="etcdcluster",result="error"\} 1$/m,
    );
    assert.match(body, /^etcd_gitops_reconcile_errors_total\{controller="etcdcluster"\} 1$/m);
    assert.match(
      body,
      /^etcd_gitops_membership_changes_total\{namespace="db",cluster="main",action="add-learner"\} 1$/m,
    );
    assert.match(body, /^etcd_gitops_members_ready\{namespace="db",cluster="main"\} 2$/m);
    assert.match(body, /^etcd_gitops_members_desired\{namespace="db",cluster="main"\} 3$/m);
    assert.match(body, /^etcd_gitops_quorum_lost\{namespace="db",cluster="main"\} 1$/m);
    assert.match(body, /^etcd_gitops_leader 1$/m);
  });

  it('forgets every series of a deleted cluster and keeps the others', async () => {
    // GIVEN two clusters with series
    const metrics = new Metrics({ processMetrics: false });
    const other = { namespace: 'db', name: 'other' };
    for (const c of [cluster, other]) {
      metrics.membershipChange(c, 'seed');
      metrics.membershipChange(c, 'remove');
      metrics.membersReady(c, 3);
      metrics.membersDesired(c, 3);
      metrics.quorumLost(c, false);
      metrics.alarms(c, { NOSPACE: 1, CORRUPT: 0 });
      metrics.memberDbSizes(c, [{ member: `${c.name}-0`, dbSize: 10, dbSizeInUse: 5 }]);
      metrics.restoreDrills(c, [{ schedule: `${c.name}-backup`, failed: true }]);
    }
    // WHEN one is forgotten
    metrics.forget(cluster);
    // THEN none of its series remain, and the other's do
    const { body } = await metrics.expose();
    assert.doesNotMatch(body, /cluster="main"/);
    assert.match(
      body,
      /etcd_gitops_membership_changes_total\{namespace="db",cluster="other",action="remove"\} 1/,
    );
    assert.match(body, /etcd_gitops_members_ready\{namespace="db",cluster="other"\} 3/);
    assert.match(body, /etcd_gitops_alarms\{namespace="db",cluster="other",alarm="NOSPACE"\} 1/);
    assert.match(
      body,
      /etcd_gitops_backup_drill_failed\{namespace="db",cluster="other",schedule="other-backup"\} 1/,
    );
  });

  it('GIVEN two drilled schedules, one failing THEN 1 and 0; a schedule no longer drilled loses its series', async () => {
    const metrics = new Metrics({ processMetrics: false });
    metrics.restoreDrills(cluster, [
      { schedule: 'main-backup', failed: true },
      { schedule: 'main-backup-hourly', failed: false },
    ]);
    let { body } = await metrics.expose();
    assert.match(
      body,
      /etcd_gitops_backup_drill_failed\{namespace="db",cluster="main",schedule="main-backup"\} 1/,
    );
    assert.match(
      body,
      /etcd_gitops_backup_drill_failed\{namespace="db",cluster="main",schedule="main-backup-hourly"\} 0/,
    );
    metrics.restoreDrills(cluster, [{ schedule: 'main-backup-hourly', failed: false }]);
    ({ body } = await metrics.expose());
    assert.doesNotMatch(body, /schedule="main-backup"\}/);
    assert.match(body, /schedule="main-backup-hourly"\} 0/);
  });

  it('GIVEN alarms and member DB sizes THEN they are series; a member gone from the next report loses its own', async () => {
    const metrics = new Metrics({ processMetrics: false });
    metrics.alarms(cluster, { NOSPACE: 1, CORRUPT: 0 });
    metrics.memberDbSizes(cluster, [
      { member: 'main-0', dbSize: 400, dbSizeInUse: 100 },
      { member: 'main-1', dbSize: 300, dbSizeInUse: 100 },
    ]);
    metrics.memberDbSizes(cluster, [{ member: 'main-0', dbSize: 120, dbSizeInUse: 100 }]);
    const { body } = await metrics.expose();
    assert.match(body, /^etcd_gitops_alarms\{namespace="db",cluster="main",alarm="NOSPACE"\} 1$/m);
    assert.match(body, /^etcd_gitops_alarms\{namespace="db",cluster="main",alarm="CORRUPT"\} 0$/m);
    assert.match(
      body,
      /^etcd_gitops_member_db_size_bytes\{namespace="db",cluster="main",member="main-0"\} 120$/m,
    );
    assert.match(
      body,
      /^etcd_gitops_member_db_size_in_use_bytes\{namespace="db",cluster="main",member="main-0"\} 100$/m,
    );
    assert.doesNotMatch(body, /member="main-1"/);
  });
});
