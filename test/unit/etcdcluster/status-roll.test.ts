// Status of a rolling change (docs/design/rolling-update.md, "Status, Events, metrics").
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EtcdCluster } from '../../../controller/etcdcluster/api.js';
import type { EtcdObservation } from '../../../controller/etcdcluster/observe-etcd.js';
import { podRevision } from '../../../controller/etcdcluster/revision.js';
import { buildStatus } from '../../../controller/etcdcluster/status.js';
import { reportedAction } from '../../../controller/etcdcluster/status-progress.js';
import { rollEvents } from '../../../controller/etcdcluster/status-roll.js';
import type { Action } from '../../../controller/etcdcluster/types.js';
import { etcd, member, pod } from './fixtures.js';

const cluster = (status?: EtcdCluster['status'], version = '3.6.16'): EtcdCluster => ({
  apiVersion: 'etcd.gitops.dev/v1alpha1',
  kind: 'EtcdCluster',
  metadata: { name: 'demo', namespace: 'ns', uid: 'u', generation: 5 },
  spec: { size: 3, version },
  ...(status ? { status } : {}),
});

const NEW = podRevision(cluster());
const OLD = 'old0000000';

/** Three members; `versions[i]` undefined means member i did not answer Status. */
function observation(
  versions: (string | undefined)[],
  healthy = versions.map((v) => v !== undefined),
): EtcdObservation {
  const view = etcd(versions.map((_, index) => member(index, { healthy: healthy[index] })));
  return {
    view: { ...view, quorum: healthy.filter(Boolean).length >= 2 },
    clusterId: '42',
    members: [],
    statuses: new Map(
      versions.flatMap((version, index) => (version ? [[`demo-${index}`, { version } as never]] : [])),
    ),
    healthyEndpoints: [],
  };
}

const pods = (revisions: (string | undefined)[]) => revisions.map((revision, i) => pod(i, { revision }));
const condition = (status: ReturnType<typeof buildStatus>, type: string) =>
  status.conditions?.find((candidate) => candidate.type === type);
const evict: Action = { kind: 'RollMember', member: 'demo-1', pod: 'demo-1', toRevision: NEW, evict: true };

describe('buildStatus: rolling changes', () => {
  it('GIVEN two Pods out of date and RollMember THEN Progressing RollingUpdate says revision, version and count', () => {
    const status = buildStatus(
      cluster(),
      evict,
      observation(['3.6.16', '3.6.16', '3.6.16']),
      new Date(0),
      [],
      pods([NEW, OLD, OLD]),
    );
    assert.equal(condition(status, 'Progressing')?.reason, 'RollingUpdate');
    assert.equal(
      condition(status, 'Progressing')?.message,
      `rolling to ${NEW} (3.6.16): 1 of 3 members updated; restarting member demo-1 at revision ${NEW}`,
    );
    assert.equal(status.updateRevision, NEW);
    assert.equal(status.updatedMembers, 1);
    assert.deepEqual(
      status.members?.map((m) => m.podRevision),
      [NEW, OLD, OLD],
    );
    assert.equal(status.phase, 'Rolling');
  });

  it('GIVEN the rolled member down while its Pod restarts THEN Degraded stays False (no fault), Ready False', () => {
    const wait: Action = {
      kind: 'Wait',
      reason: 'MembersNotReady',
      message: 'waiting for member demo-1 to be healthy',
      requeueAfterMs: 1,
    };
    const status = buildStatus(
      cluster(),
      wait,
      observation(['3.6.16', undefined, '3.6.16']),
      new Date(0),
      [],
      pods([NEW, NEW, OLD]),
    );
    assert.equal(condition(status, 'Progressing')?.reason, 'RollingUpdate');
    assert.equal(condition(status, 'Degraded')?.status, 'False');
    assert.equal(condition(status, 'Ready')?.status, 'False');
    assert.equal(condition(status, 'Available')?.status, 'True');
  });

  it('GIVEN the same member down outside a roll, its Pod restarting THEN Degraded stays False (within its start bound)', () => {
    const wait: Action = { kind: 'Wait', reason: 'MembersNotReady', message: 'waiting', requeueAfterMs: 1 };
    const status = buildStatus(
      cluster(),
      wait,
      observation(['3.6.16', undefined, '3.6.16']),
      new Date(0),
      [],
      pods([NEW, NEW, NEW]),
    );
    assert.equal(condition(status, 'Progressing')?.reason, 'MembersNotReady');
    assert.equal(condition(status, 'Degraded')?.status, 'False');
  });

  it('GIVEN the last rolled member catching up after a roll THEN still RollingUpdate (sticky until every member is updated)', () => {
    const rolling = buildStatus(
      cluster(),
      evict,
      observation(['3.6.16', '3.6.16', '3.6.16']),
      new Date(0),
      [],
      pods([NEW, OLD, NEW]),
    );
    const wait: Action = {
      kind: 'Wait',
      reason: 'MembersNotReady',
      message: 'waiting for member demo-1',
      requeueAfterMs: 1,
    };
    const status = buildStatus(
      cluster(rolling),
      wait,
      observation(['3.6.16', undefined, '3.6.16']),
      new Date(1),
      [],
      pods([NEW, NEW, NEW]),
    );
    assert.equal(condition(status, 'Progressing')?.reason, 'RollingUpdate');
    const done = buildStatus(
      cluster(status),
      { kind: 'Steady' },
      observation(['3.6.16', '3.6.16', '3.6.16']),
      new Date(2),
      [],
      pods([NEW, NEW, NEW]),
    );
    assert.equal(condition(done, 'Progressing')?.status, 'False');
    assert.equal(done.updatedMembers, 3);
    assert.deepEqual(
      rollEvents(status, done).map((e) => e.reason),
      ['MemberUpdated', 'RollingUpdateCompleted'],
    );
    assert.match(
      rollEvents(status, done)[1]?.message ?? '',
      /^all 3 members run revision \w+ \(etcd 3\.6\.16\)$/,
    );
    assert.deepEqual(rollEvents(done, done), [], 'no Event without a change');
  });

  it('GIVEN every Pod at the revision but the last rolled member not caught up (the planner says Steady) THEN still RollingUpdate until it is, then RollingUpdateCompleted', () => {
    const rolling = buildStatus(
      cluster(),
      evict,
      observation(['3.6.16', '3.6.16', '3.6.16']),
      new Date(0),
      [],
      pods([NEW, OLD, NEW]),
    );
    const behind: EtcdObservation = {
      ...observation(['3.6.16', '3.6.16', '3.6.16']),
      view: {
        ...observation(['3.6.16', '3.6.16', '3.6.16']).view,
        members: [member(0), member(1, { caughtUp: false }), member(2)],
      },
    };
    const finishing = buildStatus(
      cluster(rolling),
      { kind: 'Steady' },
      behind,
      new Date(1),
      [],
      pods([NEW, NEW, NEW]),
    );
    assert.equal(condition(finishing, 'Progressing')?.reason, 'RollingUpdate');
    assert.match(
      condition(finishing, 'Progressing')?.message ?? '',
      /2 of 3 members updated; waiting for the last rolled member to be Ready and caught up$/,
    );
    assert.deepEqual(rollEvents(rolling, finishing), []);
    const done = buildStatus(
      cluster(finishing),
      { kind: 'Steady' },
      observation(['3.6.16', '3.6.16', '3.6.16']),
      new Date(2),
      [],
      pods([NEW, NEW, NEW]),
    );
    assert.equal(condition(done, 'Progressing')?.status, 'False');
    assert.deepEqual(
      rollEvents(finishing, done).map((e) => e.reason),
      ['MemberUpdated', 'RollingUpdateCompleted'],
    );
    // Without a roll before, a Steady pass with a member not caught up is just steady.
    const steadyNow = buildStatus(
      cluster(),
      { kind: 'Steady' },
      behind,
      new Date(0),
      [],
      pods([NEW, NEW, NEW]),
    );
    assert.equal(condition(steadyNow, 'Progressing')?.status, 'False');
  });

  it('GIVEN a member of the old version that does not answer THEN currentVersion is kept, not the new version early', () => {
    const before = buildStatus(
      cluster(),
      { kind: 'Steady' },
      observation(['3.5.35', '3.5.35', '3.5.35']),
      new Date(0),
    );
    assert.equal(before.currentVersion, '3.5.35');
    const mid = buildStatus(
      cluster(before),
      evict,
      observation(['3.6.16', '3.6.16', undefined]),
      new Date(1),
      [],
      pods([NEW, NEW, OLD]),
    );
    assert.equal(mid.currentVersion, '3.5.35');
    const mixed = buildStatus(
      cluster(mid),
      evict,
      observation(['3.6.16', '3.6.16', '3.5.35']),
      new Date(2),
      [],
      pods([NEW, NEW, OLD]),
    );
    assert.equal(mixed.currentVersion, '3.5.35');
    const after = buildStatus(
      cluster(mixed),
      { kind: 'Steady' },
      observation(['3.6.16', '3.6.16', '3.6.16']),
      new Date(3),
      [],
      pods([NEW, NEW, NEW]),
    );
    assert.equal(after.currentVersion, '3.6.16');
  });

  it('GIVEN RollingUpdateFailed THEN Degraded and Stalled name the member and its exit; not Progressing (the spec must change)', () => {
    const failed: Action = {
      kind: 'Wait',
      reason: 'RollingUpdateFailed',
      message:
        'member demo-1 does not start on revision x: exit code 2: flag provided but not defined: -bogus',
      requeueAfterMs: 5000,
      degraded: true,
      stalled: true,
    };
    const status = buildStatus(
      cluster(),
      failed,
      observation(['3.6.16', undefined, '3.6.16']),
      new Date(0),
      [],
      pods([OLD, NEW, OLD]),
    );
    assert.equal(condition(status, 'Degraded')?.reason, 'RollingUpdateFailed');
    assert.match(condition(status, 'Degraded')?.message ?? '', /flag provided but not defined/);
    assert.equal(condition(status, 'Stalled')?.status, 'True');
    assert.equal(condition(status, 'Stalled')?.reason, 'RollingUpdateFailed');
    for (const type of ['Progressing', 'Reconciling']) {
      assert.equal(condition(status, type)?.status, 'False', type);
      assert.equal(condition(status, type)?.reason, 'RollingUpdateFailed', type);
      assert.match(
        condition(status, type)?.message ?? '',
        /^rolling to \w+ \(3\.6\.16\): 0 of 3 members updated; member demo-1 does not start/,
      );
    }
    assert.equal(status.phase, 'RollingUpdateFailed');
  });

  it('GIVEN an eviction the PodDisruptionBudget refused (429) THEN the status says the member waits on the budget', () => {
    const told = reportedAction(evict, { notYet: 'the PodDisruptionBudget allows no disruption now' });
    const status = buildStatus(
      cluster(),
      told,
      observation(['3.6.16', '3.6.16', '3.6.16']),
      new Date(0),
      [],
      pods([NEW, OLD, OLD]),
    );
    assert.equal(condition(status, 'Progressing')?.reason, 'RollingUpdate');
    assert.match(
      condition(status, 'Progressing')?.message ?? '',
      /; member demo-1 waits to be restarted: the PodDisruptionBudget allows no disruption now$/,
    );
    assert.equal(reportedAction(evict, {}), evict, 'an eviction that went through is told as planned');
  });

  it('GIVEN a scale-in MoveLeader with Pods out of date THEN it is not called a roll step', () => {
    const move: Action = {
      kind: 'MoveLeader',
      fromId: '1',
      toId: '2',
      toMember: 'demo-1',
      purpose: 'scale-in',
    };
    const status = buildStatus(
      cluster(),
      move,
      observation(['3.6.16', '3.6.16', '3.6.16']),
      new Date(0),
      [],
      pods([OLD, OLD, OLD]),
    );
    assert.equal(condition(status, 'Progressing')?.reason, 'RemovingMember');
  });
});
