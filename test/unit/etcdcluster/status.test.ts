// Status after a pass: conditions with reasons, refusals naming the field, transitions kept when unchanged.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EtcdCluster } from '../../../controller/etcdcluster/api.js';
import type { EtcdObservation } from '../../../controller/etcdcluster/observe-etcd.js';
import { buildStatus } from '../../../controller/etcdcluster/status.js';
import { crashSwitchFromEnv } from '../../../controller/runtime/crash-switch.js';
import { etcd, joinOf, member } from './fixtures.js';

const cluster = (status?: EtcdCluster['status']): EtcdCluster => ({
  apiVersion: 'etcd.gitops.dev/v1alpha1',
  kind: 'EtcdCluster',
  metadata: { name: 'demo', namespace: 'ns', uid: 'u', generation: 4 },
  spec: { size: 3, version: '3.6.16' },
  ...(status ? { status } : {}),
});

function observation(healthy: boolean[]): EtcdObservation {
  const view = etcd(healthy.map((ok, index) => member(index, { healthy: ok })));
  return {
    view: { ...view, quorum: healthy.filter(Boolean).length >= 2 },
    clusterId: '42',
    members: [],
    statuses: new Map(healthy.map((_, index) => [`demo-${index}`, { version: '3.6.16' } as never])),
    healthyEndpoints: [],
  };
}

const condition = (status: ReturnType<typeof buildStatus>, type: string) =>
  status.conditions?.find((candidate) => candidate.type === type);

describe('buildStatus', () => {
  it('GIVEN a NOSPACE alarm on two members THEN Degraded NoSpace names them and says what to do; members carry DB sizes', () => {
    const observed: EtcdObservation = {
      ...observation([true, true, true]),
      statuses: new Map([['demo-0', { version: '3.6.16', dbSize: 400, dbSizeInUse: 100 } as never]]),
      alarms: [
        { memberId: '2', alarm: 'NOSPACE', member: 'demo-1' },
        { memberId: '1', alarm: 'NOSPACE', member: 'demo-0' },
      ],
    };
    const status = buildStatus(cluster(), { kind: 'Steady' }, observed, new Date(0));
    const degraded = condition(status, 'Degraded');
    assert.equal(degraded?.status, 'True');
    assert.equal(degraded?.reason, 'NoSpace');
    assert.match(
      degraded?.message ?? '',
      /^etcd alarm NOSPACE on demo-0, demo-1 of demo: the backend reached its quota/,
    );
    assert.match(degraded?.message ?? '', /defrag CronJob .* or raise spec\.quotaBackendBytes$/);
    // Reads still work: a full backend is not lost quorum.
    assert.equal(condition(status, 'Available')?.status, 'True');
    assert.deepEqual(
      status.members?.map((m) => [m.name, m.dbSize, m.dbSizeInUse]),
      [
        ['demo-0', 400, 100],
        ['demo-1', undefined, undefined],
        ['demo-2', undefined, undefined],
      ],
    );
  });

  it('GIVEN a CORRUPT alarm only THEN Degraded Corrupt; an empty alarm list leaves Degraded False', () => {
    const corrupt = buildStatus(
      cluster(),
      { kind: 'Steady' },
      { ...observation([true, true, true]), alarms: [{ memberId: '3', alarm: 'CORRUPT' }] },
      new Date(0),
    );
    assert.equal(condition(corrupt, 'Degraded')?.reason, 'Corrupt');
    assert.match(condition(corrupt, 'Degraded')?.message ?? '', /on member 3 of demo/);
    const none = buildStatus(
      cluster(),
      { kind: 'Steady' },
      { ...observation([true, true, true]), alarms: [] },
      new Date(0),
    );
    assert.equal(condition(none, 'Degraded')?.status, 'False');
  });

  it('GIVEN three healthy members and a steady plan THEN Ready, Available, counts and selector for the scale subresource', () => {
    const status = buildStatus(cluster(), { kind: 'Steady' }, observation([true, true, true]), new Date(0));
    assert.equal(condition(status, 'Ready')?.status, 'True');
    assert.equal(condition(status, 'Available')?.status, 'True');
    assert.equal(condition(status, 'Degraded')?.status, 'False');
    assert.equal(status.replicas, 3);
    assert.equal(status.readyMembers, 3);
    assert.equal(status.observedGeneration, 4);
    assert.equal(
      status.selector,
      'app.kubernetes.io/name=etcd,app.kubernetes.io/instance=demo,app.kubernetes.io/component=member',
    );
    assert.equal(status.currentVersion, '3.6.16');
    assert.equal(status.clusterID, '42');
    assert.equal(status.members?.[0]?.peerURL, 'http://demo-0.demo-peer.ns.svc:2380');
  });

  it('GIVEN a refusal THEN Degraded and Stalled name the field, the value and what is allowed', () => {
    const status = buildStatus(
      cluster(),
      { kind: 'Refuse', field: 'spec.size', value: '11', allowed: 'an integer from 1 to 9' },
      observation([true, true, true]),
      new Date(0),
    );
    assert.equal(condition(status, 'Degraded')?.reason, 'InvalidSpec');
    assert.equal(
      condition(status, 'Degraded')?.message,
      'spec.size: 11 is not allowed; allowed: an integer from 1 to 9',
    );
    assert.equal(condition(status, 'Stalled')?.status, 'True');
  });

  it('GIVEN quorum loss THEN Available is False and Degraded says QuorumLost', () => {
    const status = buildStatus(
      cluster(),
      { kind: 'ReportQuorumLost', message: '1 of 3 voting members are healthy' },
      observation([true, false, false]),
      new Date(0),
    );
    assert.equal(condition(status, 'Available')?.status, 'False');
    assert.equal(condition(status, 'Degraded')?.reason, 'QuorumLost');
    assert.equal(status.phase, 'QuorumLost');
  });

  it('GIVEN the bootstrap seed could not restore its backup THEN Degraded names the reason and the exit code', () => {
    const message =
      "the seed demo-0 could not restore spec.bootstrap.backup: exit code 4 (BackupNotFound: no object s3://b/k) after 1 restart(s); it is retried, the seed's PVC is kept";
    const status = buildStatus(
      cluster(),
      { kind: 'Wait', reason: 'BootstrapRestoreFailed', message, requeueAfterMs: 5000, degraded: true },
      undefined,
      new Date(0),
    );
    assert.equal(condition(status, 'Degraded')?.status, 'True');
    assert.equal(condition(status, 'Degraded')?.reason, 'BootstrapRestoreFailed');
    assert.equal(condition(status, 'Degraded')?.message, message);
    assert.equal(condition(status, 'Ready')?.status, 'False');
    assert.equal(status.phase, 'BootstrapRestoreFailed');
  });

  it('GIVEN a seed that is only starting THEN Degraded stays False', () => {
    const status = buildStatus(
      cluster(),
      { kind: 'Wait', reason: 'SeedStarting', message: 'waiting', requeueAfterMs: 2000 },
      undefined,
      new Date(0),
    );
    assert.equal(condition(status, 'Degraded')?.status, 'False');
  });

  it('GIVEN a time within a second THEN lastTransitionTime is that whole second, as metav1.Time writes it (truncated, never rounded up)', () => {
    const status = buildStatus(
      cluster(),
      { kind: 'Steady' },
      observation([true, true, true]),
      new Date(1999),
    );
    assert.equal(condition(status, 'Ready')?.lastTransitionTime, '1970-01-01T00:00:01Z');
  });

  it('GIVEN an unchanged condition THEN its lastTransitionTime is kept; a changed one gets the new time', () => {
    const first = buildStatus(cluster(), { kind: 'Steady' }, observation([true, true, true]), new Date(1000));
    const second = buildStatus(
      cluster(first),
      { kind: 'AddLearner', member: 'demo-3', join: joinOf('demo-3') },
      observation([true, true, true]),
      new Date(2000),
    );
    assert.equal(condition(second, 'Available')?.lastTransitionTime, '1970-01-01T00:00:01Z');
    assert.equal(condition(second, 'Progressing')?.lastTransitionTime, '1970-01-01T00:00:02Z');
    assert.equal(condition(second, 'Progressing')?.reason, 'AddingMember');
  });

  it('GIVEN no member answers THEN the previous members are kept, none ready', () => {
    const first = buildStatus(cluster(), { kind: 'Steady' }, observation([true, true, true]), new Date(0));
    const second = buildStatus(
      cluster(first),
      { kind: 'ReportQuorumLost', message: 'x' },
      undefined,
      new Date(0),
    );
    assert.equal(second.members?.length, 3);
    assert.equal(second.readyMembers, 0);
    assert.equal(condition(second, 'Available')?.reason, 'NoMemberAnswers');
  });
});

describe('crash switch (test-only)', () => {
  it('GIVEN AddLearner:2 THEN it kills only after the second AddLearner', () => {
    let kills = 0;
    const crash = crashSwitchFromEnv('AddLearner:2', () => {
      kills += 1;
    });
    crash.after('AddLearner');
    crash.after('CreatePod');
    assert.equal(kills, 0);
    crash.after('AddLearner');
    assert.equal(kills, 1);
  });

  it('GIVEN no setting THEN it never kills', () => {
    let kills = 0;
    const crash = crashSwitchFromEnv(undefined, () => {
      kills += 1;
    });
    crash.after('AddLearner');
    assert.equal(kills, 0);
  });
});
