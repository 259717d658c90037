// Which passes make Degraded, Progressing, Stalled and Ready True (docs/design/conventions.md, "Conditions and
// health"): Degraded only for real faults, never for a learner joining, a member rolling or a Pod (re)starting;
// Stalled only when nothing but a user change clears the fault, and then never Progressing.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EtcdCluster } from '../../../controller/etcdcluster/api.js';
import type { EtcdObservation } from '../../../controller/etcdcluster/observe-etcd.js';
import { podRevision } from '../../../controller/etcdcluster/revision.js';
import { buildStatus } from '../../../controller/etcdcluster/status.js';
import type { Action, EtcdMemberView, PodView } from '../../../controller/etcdcluster/types.js';
import { etcd, member, pod } from './fixtures.js';

const cluster = (spec: Partial<EtcdCluster['spec']> = {}, status?: EtcdCluster['status']): EtcdCluster => ({
  apiVersion: 'etcd.gitops.dev/v1alpha1',
  kind: 'EtcdCluster',
  metadata: { name: 'demo', namespace: 'ns', uid: 'u', generation: 2 },
  spec: { size: 3, version: '3.6.16', ...spec },
  ...(status ? { status } : {}),
});
const REVISION = podRevision(cluster());
const OLD = 'old0000000';

/** An observation of `members`; quorum: healthy voters are a majority of the voters. */
function observed(members: EtcdMemberView[]): EtcdObservation {
  const voters = members.filter((m) => !m.learner);
  const quorum = voters.filter((m) => m.healthy).length > voters.length / 2;
  return {
    view: etcd(members, { quorum }),
    clusterId: '42',
    members: [],
    statuses: new Map(),
    healthyEndpoints: [],
  };
}
const healthy3 = () => [0, 1, 2].map((i) => member(i));
const down = (i: number) => member(i, { healthy: false });
const at =
  (revision: string) =>
  (i: number, overrides: Partial<PodView> = {}) =>
    pod(i, { revision, ...overrides });
const podsOf = (...made: PodView[]) => made;
const wait = (reason: string, extra: { degraded?: true; stalled?: true } = {}): Action => ({
  kind: 'Wait',
  reason,
  message: `waiting: ${reason}`,
  requeueAfterMs: 1,
  ...extra,
});

interface Case {
  readonly given: string;
  readonly action: Action;
  readonly observation: EtcdObservation | undefined;
  readonly pods: readonly PodView[];
  readonly spec?: Partial<EtcdCluster['spec']>;
  readonly previous?: EtcdCluster['status'];
  readonly alarms?: EtcdObservation['alarms'];
  readonly abandoned?: { restore: string; pvcs: string[] }[];
  /** [status, reason] of Ready, Progressing, Degraded, Stalled; `_` for a reason not asserted. */
  readonly expect: {
    readonly Ready: [string, string];
    readonly Progressing: [string, string];
    readonly Degraded: [string, string];
    readonly Stalled: [string, string];
  };
  /** The Degraded message matches. */
  readonly message?: RegExp;
}

const current = at(REVISION);
const three = podsOf(current(0), current(1), current(2));
const ok: Case['expect']['Degraded'] = ['False', 'AsExpected'];
const notStalled: Case['expect']['Stalled'] = ['False', 'AsExpected'];

const cases: Case[] = [
  // Not faults.
  {
    given: 'three healthy members, Steady',
    action: { kind: 'Steady' },
    observation: observed(healthy3()),
    pods: three,
    expect: {
      Ready: ['True', 'AllMembersReady'],
      Progressing: ['False', 'Idle'],
      Degraded: ok,
      Stalled: notStalled,
    },
  },
  {
    given: 'every member of a static bootstrap ready, one still to be marked existing (housekeeping)',
    action: { kind: 'MarkExisting', member: 'demo-2', pod: 'demo-2' },
    observation: observed(healthy3()),
    pods: podsOf(current(0), current(1), current(2, { initialState: 'new' })),
    expect: {
      Ready: ['True', 'AllMembersReady'],
      Progressing: ['False', 'Idle'],
      Degraded: ok,
      Stalled: notStalled,
    },
  },
  {
    given: 'a lone seed of size 3 that served, marked existing before the others join',
    action: { kind: 'MarkExisting', member: 'demo-0', pod: 'demo-0' },
    observation: observed([member(0)]),
    pods: podsOf(current(0, { initialState: 'new' })),
    expect: {
      Ready: ['False', 'Seeding'],
      Progressing: ['True', 'Seeding'],
      Degraded: ok,
      Stalled: notStalled,
    },
  },
  {
    given: 'a learner just added, its Pod not made yet (scale-up)',
    action: { kind: 'CreatePVC', member: 'demo-3' },
    observation: observed([...healthy3(), member(3, { learner: true, healthy: false, started: false })]),
    pods: three,
    spec: { size: 5 },
    expect: {
      Ready: ['False', 'AddingMember'],
      Progressing: ['True', 'AddingMember'],
      Degraded: ok,
      Stalled: notStalled,
    },
  },
  {
    given: 'a learner whose Pod is starting',
    action: wait('LearnerStarting'),
    observation: observed([...healthy3(), member(3, { learner: true, healthy: false, started: false })]),
    pods: podsOf(...three, current(3, { running: false, ready: false })),
    spec: { size: 5 },
    expect: {
      Ready: ['False', 'LearnerStarting'],
      Progressing: ['True', 'LearnerStarting'],
      Degraded: ok,
      Stalled: notStalled,
    },
  },
  {
    given: 'a learner caught up, promoted',
    action: { kind: 'PromoteLearner', member: 'demo-3', id: '1003' },
    observation: observed([...healthy3(), member(3, { learner: true })]),
    pods: podsOf(...three, current(3)),
    spec: { size: 5 },
    expect: {
      Ready: ['False', 'AddingMember'],
      Progressing: ['True', 'AddingMember'],
      Degraded: ok,
      Stalled: notStalled,
    },
  },
  {
    given: 'a member whose Pod was deleted, recreated on its PVC',
    action: {
      kind: 'CreatePod',
      member: 'demo-1',
      reason: 'recreate',
      state: 'existing',
      initialCluster: ['demo-0', 'demo-1', 'demo-2'],
    },
    observation: observed([member(0), down(1), member(2)]),
    pods: podsOf(current(0), current(2)),
    expect: {
      Ready: ['False', 'RecreatingMemberPod'],
      Progressing: ['True', 'RecreatingMemberPod'],
      Degraded: ok,
      Stalled: notStalled,
    },
  },
  {
    given: 'a member Pod restarting (killed from outside, not crash-looping)',
    action: wait('MembersNotReady'),
    observation: observed([member(0), down(1), member(2)]),
    pods: podsOf(current(0), current(1, { ready: false }), current(2)),
    expect: {
      Ready: ['False', 'MembersNotReady'],
      Progressing: ['True', 'MembersNotReady'],
      Degraded: ok,
      Stalled: notStalled,
    },
  },
  {
    given: 'a member stopped by the roll',
    action: wait('MembersNotReady'),
    observation: observed([member(0), down(1), member(2)]),
    pods: podsOf(at(OLD)(0), current(1, { ready: false, running: false }), at(OLD)(2)),
    expect: {
      Ready: ['False', 'RollingUpdate'],
      Progressing: ['True', 'RollingUpdate'],
      Degraded: ok,
      Stalled: notStalled,
    },
  },
  {
    given: 'the seed starting (no member answers yet, none known)',
    action: wait('SeedStarting'),
    observation: undefined,
    pods: podsOf(current(0, { running: false, ready: false })),
    expect: {
      Ready: ['False', 'SeedStarting'],
      Progressing: ['True', 'SeedStarting'],
      Degraded: ok,
      Stalled: notStalled,
    },
  },
  {
    given: 'a size-1 cluster whose only member restarts (no quorum while it starts)',
    action: wait('MembersStarting'),
    observation: undefined,
    pods: podsOf(current(0, { running: false, ready: false })),
    spec: { size: 1 },
    previous: { members: [{ name: 'demo-0', id: '1000', learner: false, ready: true }] },
    expect: {
      Ready: ['False', 'MembersStarting'],
      Progressing: ['True', 'MembersStarting'],
      Degraded: ok,
      Stalled: notStalled,
    },
  },
  {
    given: 'an in-place restore holding the cluster',
    action: wait('Restoring'),
    observation: undefined,
    pods: [],
    previous: { members: [{ name: 'demo-0', id: '1000', learner: false, ready: true }] },
    expect: {
      Ready: ['False', 'Restoring'],
      Progressing: ['True', 'Restoring'],
      Degraded: ok,
      Stalled: notStalled,
    },
  },
  {
    given: 'a paused cluster with quorum and every member',
    action: { kind: 'Paused' },
    observation: observed(healthy3()),
    pods: three,
    expect: {
      Ready: ['True', 'AllMembersReady'],
      Progressing: ['False', 'Paused'],
      Degraded: ok,
      Stalled: notStalled,
    },
  },
  {
    given: 'a paused cluster that lost quorum while a member Pod is starting (it may come back)',
    action: { kind: 'Paused' },
    observation: observed([member(0), down(1), down(2)]),
    pods: podsOf(current(0), current(1, { running: false, ready: false }), current(2)),
    expect: {
      Ready: ['False', 'Paused'],
      Progressing: ['False', 'Paused'],
      Degraded: ok,
      Stalled: notStalled,
    },
  },
  {
    given: 'a new paused cluster before its seed (no member anywhere)',
    action: { kind: 'Paused' },
    observation: undefined,
    pods: [],
    expect: {
      Ready: ['False', 'Paused'],
      Progressing: ['False', 'Paused'],
      Degraded: ok,
      Stalled: notStalled,
    },
  },
  // Faults being repaired: Degraded and Progressing.
  {
    given: 'a member whose Pod crash-loops, removed as dead',
    action: { kind: 'RemoveMember', member: 'demo-1', id: '1001', reason: 'dead' },
    observation: observed([member(0), down(1), member(2)]),
    pods: podsOf(
      current(0),
      current(1, { crashLooping: true, ready: false, lastFailure: 'exit code 2: raft panic' }),
      current(2),
    ),
    expect: {
      Ready: ['False', 'ReplacingMember'],
      Progressing: ['True', 'ReplacingMember'],
      Degraded: ['True', 'MemberDead'],
      Stalled: notStalled,
    },
    message:
      /^member demo-1 is dead \(its Pod crash-loops \(exit code 2: raft panic\)\); it is removed from etcd and replaced$/,
  },
  {
    given: 'a member whose data is gone, removed as dead',
    action: { kind: 'RemoveMember', member: 'demo-2', id: '1002', reason: 'dead' },
    observation: observed([member(0), member(1), down(2)]),
    pods: podsOf(current(0), current(1)),
    expect: {
      Ready: ['False', 'ReplacingMember'],
      Progressing: ['True', 'ReplacingMember'],
      Degraded: ['True', 'MemberDead'],
      Stalled: notStalled,
    },
    message: /^member demo-2 is dead \(its data is gone, or it answers as another member\)/,
  },
  {
    given: 'a member deleted with its data while it still answers, removed as dead',
    action: {
      kind: 'RemoveMember',
      member: 'demo-1',
      id: '1001',
      reason: 'dead',
      detail: 'its Pod and its PVC are being deleted',
    },
    observation: observed([member(0), member(1), member(2)]),
    pods: podsOf(current(0), current(1, { terminating: true }), current(2)),
    expect: {
      Ready: ['False', 'ReplacingMember'],
      Progressing: ['True', 'ReplacingMember'],
      Degraded: ['True', 'MemberDead'],
      Stalled: notStalled,
    },
    message:
      /^member demo-1 is dead \(its Pod and its PVC are being deleted\); it is removed from etcd and replaced$/,
  },
  {
    given: 'a member whose node is not Ready, for less than spec.failureDetection.nodeNotReady',
    action: wait('MembersNotReady'),
    observation: observed([member(0), down(1), member(2)]),
    pods: podsOf(
      current(0),
      current(1, { ready: false, nodeNotReady: 'node node-2 not Ready for 30s' }),
      current(2),
    ),
    expect: {
      Ready: ['False', 'MembersNotReady'],
      Progressing: ['True', 'MembersNotReady'],
      Degraded: ok,
      Stalled: notStalled,
    },
  },
  {
    given: 'a member whose Pod is lost (its node died past the bound), removed',
    action: {
      kind: 'RemoveMember',
      member: 'demo-1',
      id: '1001',
      reason: 'lost',
      detail: 'its node node-2 has not been Ready for 2m4s (spec.failureDetection.nodeNotReady: 2m)',
    },
    observation: observed([member(0), down(1), member(2)]),
    pods: podsOf(
      current(0),
      current(1, { ready: false, lost: 'its node node-2 has not been Ready for 2m4s' }),
      current(2),
    ),
    expect: {
      Ready: ['False', 'ReplacingMember'],
      Progressing: ['True', 'ReplacingMember'],
      Degraded: ['True', 'MemberLost'],
      Stalled: notStalled,
    },
    message:
      /^member demo-1 is lost \(its Pod is lost: its node node-2 has not been Ready for 2m4s \(spec\.failureDetection\.nodeNotReady: 2m\)\); it is removed from etcd and replaced$/,
  },
  {
    given: 'a lost member that cannot be removed without losing quorum',
    action: wait('ReplacementWouldLoseQuorum'),
    observation: observed([member(0), member(1), down(2)]),
    pods: podsOf(current(0), current(1), current(2, { ready: false, lost: 'stuck Terminating for 5m1s' })),
    expect: {
      Ready: ['False', 'ReplacementWouldLoseQuorum'],
      Progressing: ['True', 'ReplacementWouldLoseQuorum'],
      Degraded: ['True', 'MemberDown'],
      Stalled: notStalled,
    },
    message: /^member demo-2: its Pod is lost \(stuck Terminating for 5m1s\)$/,
  },
  {
    given: 'a crash-looping member while the pass waits on something else',
    action: wait('ReplacementWouldLoseQuorum'),
    observation: observed([member(0), member(1), down(2)]),
    pods: podsOf(current(0), current(1), current(2, { crashLooping: true, ready: false })),
    expect: {
      Ready: ['False', 'ReplacementWouldLoseQuorum'],
      Progressing: ['True', 'ReplacementWouldLoseQuorum'],
      Degraded: ['True', 'MemberDown'],
      Stalled: notStalled,
    },
    message: /^member demo-2: its Pod crash-loops$/,
  },
  // Faults nothing repairs without the user: Degraded and Stalled, not Progressing.
  {
    given: 'quorum lost (the planner reports it)',
    action: { kind: 'ReportQuorumLost', message: '1 of 3 voting members are healthy' },
    observation: observed([member(0), down(1), down(2)]),
    pods: podsOf(current(0)),
    expect: {
      Ready: ['False', 'QuorumLost'],
      Progressing: ['False', 'QuorumLost'],
      Degraded: ['True', 'QuorumLost'],
      Stalled: ['True', 'QuorumLost'],
    },
  },
  {
    given: 'a paused cluster that lost quorum, no Pod starting',
    action: { kind: 'Paused' },
    observation: observed([member(0), down(1), down(2)]),
    pods: podsOf(current(0)),
    expect: {
      Ready: ['False', 'QuorumLost'],
      Progressing: ['False', 'Paused'],
      Degraded: ['True', 'QuorumLost'],
      Stalled: ['True', 'QuorumLost'],
    },
    message:
      /^1 of 3 voting members are healthy; spec\.paused is true: the controller changes nothing until it is unpaused$/,
  },
  {
    given: 'a paused cluster of which no member answers',
    action: { kind: 'Paused' },
    observation: undefined,
    pods: podsOf(current(0)),
    previous: {
      members: [0, 1, 2].map((i) => ({ name: `demo-${i}`, id: `${1000 + i}`, learner: false, ready: true })),
    },
    expect: {
      Ready: ['False', 'QuorumLost'],
      Progressing: ['False', 'Paused'],
      Degraded: ['True', 'QuorumLost'],
      Stalled: ['True', 'QuorumLost'],
    },
    message: /^no member of 3 answers; spec\.paused is true/,
  },
  {
    given: 'a refused spec (the members are fine)',
    action: { kind: 'Refuse', field: 'spec.storage.size', value: '3Gi', allowed: '1Gi' },
    observation: observed(healthy3()),
    pods: three,
    expect: {
      Ready: ['True', 'AllMembersReady'],
      Progressing: ['False', 'InvalidSpec'],
      Degraded: ['True', 'InvalidSpec'],
      Stalled: ['True', 'InvalidSpec'],
    },
  },
  {
    given: 'a failing bootstrap restore (a degraded wait only the user clears: stalled)',
    action: wait('BootstrapRestoreFailed', { degraded: true, stalled: true }),
    observation: undefined,
    pods: podsOf(current(0, { running: false, ready: false, restoreFailure: 'exit code 4' })),
    expect: {
      Ready: ['False', 'BootstrapRestoreFailed'],
      Progressing: ['False', 'BootstrapRestoreFailed'],
      Degraded: ['True', 'BootstrapRestoreFailed'],
      Stalled: ['True', 'BootstrapRestoreFailed'],
    },
  },
  {
    given: 'a bootstrap restore failing with a fault a retry may clear (a degraded wait, not stalled)',
    action: wait('BootstrapRestoreFailed', { degraded: true }),
    observation: undefined,
    pods: podsOf(current(0, { running: false, ready: false, restoreFailure: 'exit code 4 (S3Unavailable)' })),
    expect: {
      Ready: ['False', 'BootstrapRestoreFailed'],
      Progressing: ['True', 'BootstrapRestoreFailed'],
      Degraded: ['True', 'BootstrapRestoreFailed'],
      Stalled: notStalled,
    },
  },
  {
    given: 'any other wait the planner marks degraded and stalled',
    action: wait('SomeFaultOnlyTheUserClears', { degraded: true, stalled: true }),
    observation: observed([member(0), member(1), down(2)]),
    pods: three,
    expect: {
      Ready: ['False', 'SomeFaultOnlyTheUserClears'],
      Progressing: ['False', 'SomeFaultOnlyTheUserClears'],
      Degraded: ['True', 'SomeFaultOnlyTheUserClears'],
      Stalled: ['True', 'SomeFaultOnlyTheUserClears'],
    },
  },
  // Faults that do not stop the controller: Degraded, neither Stalled nor Progressing.
  {
    given: 'a NOSPACE alarm on a steady cluster',
    action: { kind: 'Steady' },
    observation: observed(healthy3()),
    alarms: [{ memberId: '1000', alarm: 'NOSPACE', member: 'demo-0' }],
    pods: three,
    expect: {
      Ready: ['True', 'AllMembersReady'],
      Progressing: ['False', 'Idle'],
      Degraded: ['True', 'NoSpace'],
      Stalled: notStalled,
    },
  },
  {
    given: 'a paused cluster with quorum, one member without its Pod (nothing starts it)',
    action: { kind: 'Paused' },
    observation: observed([member(0), down(1), member(2)]),
    pods: podsOf(current(0), current(2)),
    expect: {
      Ready: ['False', 'MemberDown'],
      Progressing: ['False', 'Paused'],
      Degraded: ['True', 'MemberDown'],
      Stalled: notStalled,
    },
    message: /^member demo-1: no Pod, and spec\.paused is true: nothing starts it$/,
  },
  {
    given: 'data abandoned by a deleted restore while quorum is lost',
    action: { kind: 'ReportQuorumLost', message: '1 of 3 voting members are healthy' },
    observation: observed([member(0), down(1), down(2)]),
    pods: podsOf(current(0)),
    abandoned: [{ restore: 'r', pvcs: ['demo-1-data'] }],
    expect: {
      Ready: ['False', 'RestoreAbandoned'],
      Progressing: ['False', 'RestoreAbandoned'],
      Degraded: ['True', 'RestoreAbandoned'],
      Stalled: ['True', 'RestoreAbandoned'],
    },
    message:
      /^quorum lost \(1 of 3 voting members are healthy\); EtcdRestore r was deleted before it completed/,
  },
];

describe('buildStatus: when Degraded, Progressing, Stalled and Ready are True', () => {
  for (const c of cases) {
    it(`GIVEN ${c.given} THEN Ready ${c.expect.Ready.join('/')}, Progressing ${c.expect.Progressing.join('/')}, Degraded ${c.expect.Degraded.join('/')}, Stalled ${c.expect.Stalled.join('/')}`, () => {
      const observation = c.observation && c.alarms ? { ...c.observation, alarms: c.alarms } : c.observation;
      const status = buildStatus(
        cluster(c.spec, c.previous),
        c.action,
        observation,
        new Date(0),
        c.abandoned ?? [],
        c.pods,
      );
      const found = (type: string) => status.conditions?.find((condition) => condition.type === type);
      for (const type of ['Ready', 'Progressing', 'Degraded', 'Stalled'] as const) {
        const condition = found(type);
        assert.deepEqual([condition?.status, condition?.reason], c.expect[type], type);
      }
      if (c.message) assert.match(found('Degraded')?.message ?? '', c.message);
      // Invariants of docs/design/conventions.md: Reconciling is Progressing; never Stalled and Progressing.
      const { type: _reconciling, ...reconciling } = found('Reconciling') ?? { type: '' };
      const { type: _progressing, ...progressing } = found('Progressing') ?? { type: '' };
      assert.deepEqual(reconciling, progressing);
      assert.ok(!(found('Stalled')?.status === 'True' && found('Progressing')?.status === 'True'));
      // A fault is named by Ready's reason whenever nothing is in progress.
      if (found('Degraded')?.status === 'True' && found('Ready')?.status === 'False') {
        assert.ok(
          [found('Degraded')?.reason, found('Progressing')?.reason].includes(found('Ready')?.reason),
          'Ready names the fault or the step',
        );
      }
    });
  }
});
