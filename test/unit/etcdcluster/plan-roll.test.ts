// Table tests of step 15 of planMembership, the rolling change, and the failed-member rule of steps 5, 7 and 10
// (docs/design/rolling-update.md): every decision and every crash point of its table.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { planMembership } from '../../../controller/etcdcluster/plan.js';
import type { Action, PlanInput, PodView } from '../../../controller/etcdcluster/types.js';
import { etcd, member, pod, pvc, REVISION, restoreLock, steady } from './fixtures.js';

interface Case {
  readonly given: string;
  readonly input: PlanInput;
  readonly expect: Partial<Record<string, unknown>> & { kind: Action['kind'] };
}

const OLD = 'old0000000';

/** `input` with the Pods of `members` (indexes) at the old revision. */
function outdated(input: PlanInput, ...members: number[]): PlanInput {
  return {
    ...input,
    pods: input.pods.map((p, i) => (members.includes(i) ? { ...p, revision: OLD } : p)),
  };
}

function withPod(input: PlanInput, index: number, overrides: Partial<PodView>): PlanInput {
  return { ...input, pods: input.pods.map((p, i) => (i === index ? { ...p, ...overrides } : p)) };
}

const s3 = steady(3);
const all3 = outdated(s3, 0, 1, 2);
const crashLoop = {
  crashLooping: true,
  running: false,
  ready: false,
  lastFailure: 'exit code 2: flag provided but not defined: -bogus',
};

const cases: Case[] = [
  {
    given: 'every Pod at the spec revision',
    input: s3,
    expect: { kind: 'Steady' },
  },
  {
    given: 'all three out of date, demo-0 leads',
    input: all3,
    expect: { kind: 'RollMember', member: 'demo-1', evict: true, fromRevision: OLD, toRevision: REVISION },
  },
  {
    given: 'a Pod made before rolling updates (no revision)',
    input: withPod(s3, 2, { revision: undefined }),
    expect: { kind: 'RollMember', member: 'demo-2', evict: true, toRevision: REVISION },
  },
  {
    given: 'only the leader out of date',
    input: outdated(s3, 0),
    expect: { kind: 'MoveLeader', fromId: '1000', toId: '1001', toMember: 'demo-1', purpose: 'roll' },
  },
  {
    given: 'a crash after MoveLeader (roll): leadership moved to demo-1',
    input: { ...outdated(s3, 0), etcd: etcd([member(0), member(1), member(2)], { leaderId: '1001' }) },
    expect: { kind: 'RollMember', member: 'demo-0', evict: true },
  },
  {
    given: 'the leader and a follower out of date: the follower first',
    input: outdated(s3, 0, 2),
    expect: { kind: 'RollMember', member: 'demo-2' },
  },
  {
    given: 'a crash after RollMember: the rolled Pod terminating',
    input: withPod(all3, 1, { terminating: true }),
    expect: { kind: 'Wait', reason: 'PodTerminating' },
  },
  {
    given: 'the rolled Pod gone, its PVC kept',
    input: {
      ...all3,
      pods: all3.pods.filter((p) => p.member !== 'demo-1'),
      etcd: etcd([member(0), member(1, { healthy: false }), member(2)]),
    },
    expect: { kind: 'CreatePod', member: 'demo-1', reason: 'recreate', state: 'existing' },
  },
  {
    given: 'a crash after CreatePod: the recreated member not healthy yet',
    input: {
      ...withPod(all3, 1, { revision: REVISION, ready: false }),
      etcd: etcd([member(0), member(1, { healthy: false }), member(2)]),
    },
    expect: { kind: 'Wait', reason: 'MembersNotReady' },
  },
  {
    given: 'the recreated member healthy but its Pod not Ready',
    input: withPod(all3, 1, { revision: REVISION, ready: false }),
    expect: { kind: 'Wait', reason: 'MemberPodNotReady' },
  },
  {
    given: 'the recreated member healthy and Ready but not caught up',
    input: {
      ...withPod(all3, 1, { revision: REVISION }),
      etcd: etcd([member(0), member(1, { caughtUp: false }), member(2)]),
    },
    expect: { kind: 'Wait', reason: 'MemberCatchingUp', message: 'waiting for member demo-1 to catch up' },
  },
  {
    given: 'demo-1 updated and caught up: the next follower',
    input: withPod(all3, 1, { revision: REVISION }),
    expect: { kind: 'RollMember', member: 'demo-2' },
  },
  {
    given: 'spec changed again mid-roll (three revisions): every out-of-date member, followers first',
    input: withPod(withPod(all3, 1, { revision: 'mid0000000' }), 2, { revision: REVISION }),
    expect: { kind: 'RollMember', member: 'demo-1', fromRevision: 'mid0000000' },
  },
  {
    given: 'the last member caught up',
    input: s3,
    expect: { kind: 'Steady' },
  },
  {
    given: 'size 5, two followers out of date (4 healthy others, quorum 3)',
    input: outdated(steady(5), 3, 4),
    expect: { kind: 'RollMember', member: 'demo-3' },
  },
  {
    given: 'size 1: no quorum to keep, rolled anyway',
    input: outdated(steady(1), 0),
    expect: { kind: 'RollMember', member: 'demo-0', evict: true },
  },
  {
    given: 'size 2 (allowEvenSize): stopping one loses quorum',
    input: (() => {
      const two = outdated(steady(2), 1);
      return { ...two, cluster: { ...two.cluster, allowEvenSize: true } };
    })(),
    expect: { kind: 'Wait', reason: 'RollWouldLoseQuorum' },
  },
  {
    given: 'size 3 with a member unhealthy: no roll on top of it',
    input: { ...all3, etcd: etcd([member(0), member(1), member(2, { healthy: false })]) },
    expect: { kind: 'Wait', reason: 'MembersNotReady' },
  },
  {
    given: 'size 3 → 5 with every Pod out of date: scaling first',
    input: { ...all3, cluster: { ...all3.cluster, size: 5 } },
    expect: { kind: 'AddLearner', member: 'demo-3' },
  },
  {
    given: 'size 3 → 1 with every Pod out of date: scaling first',
    input: { ...all3, cluster: { ...all3.cluster, size: 1 } },
    expect: { kind: 'RemoveMember', member: 'demo-2', reason: 'scale-in' },
  },
  {
    given: 'paused with every Pod out of date',
    input: { ...all3, cluster: { ...all3.cluster, paused: true } },
    expect: { kind: 'Paused' },
  },
  {
    given: 'an in-place restore holding the cluster (its branch, not the roll)',
    input: { ...all3, cluster: { ...all3.cluster, restore: restoreLock('Restoring') } },
    expect: { kind: 'RetainPVC', pvc: 'demo-0-data' },
  },
  {
    given: 'a refused spec (downgrade) with every Pod out of date',
    input: { ...all3, cluster: { ...all3.cluster, version: '3.5.35', runningVersion: '3.6.16' } },
    expect: { kind: 'Refuse', field: 'spec.version' },
  },
  {
    given: 'ephemeral storage: rolled by replacement',
    input: {
      ...all3,
      cluster: { ...all3.cluster, storage: { size: '1Gi', ephemeral: true } },
      pods: all3.pods.map((p) => ({ ...p, ephemeral: true })),
      pvcs: [],
    },
    expect: { kind: 'RemoveMember', member: 'demo-1', reason: 'roll' },
  },
  // The failed-member rule (step 10): a crash loop on a revision no healthy member runs is the spec's fault.
  {
    given: 'the first rolled member crash-loops on the current revision',
    input: {
      ...withPod(all3, 1, { revision: REVISION, ...crashLoop }),
      etcd: etcd([member(0), member(1, { healthy: false }), member(2)]),
    },
    expect: { kind: 'Wait', reason: 'RollingUpdateFailed', degraded: true, stalled: true },
  },
  {
    given: 'the failed member after the spec was fixed (its Pod now out of date)',
    input: {
      ...withPod(all3, 1, { revision: 'bad0000000', ...crashLoop }),
      etcd: etcd([member(0), member(1, { healthy: false }), member(2)]),
    },
    expect: { kind: 'RollMember', member: 'demo-1', evict: false, fromRevision: 'bad0000000' },
  },
  {
    given: 'a member crash-looping on a revision healthy members run (its data): dead, as before',
    input: {
      ...withPod(s3, 2, crashLoop),
      etcd: etcd([member(0), member(1), member(2, { healthy: false })]),
    },
    expect: { kind: 'RemoveMember', member: 'demo-2', reason: 'dead' },
  },
  {
    given: 'size 1 broken by a bad flag, spec fixed since (no member answers)',
    input: {
      ...outdated(steady(1), 0),
      pods: [pod(0, { revision: 'bad0000000', ...crashLoop })],
      etcd: undefined,
    },
    expect: { kind: 'RollMember', member: 'demo-0', evict: false },
  },
  {
    given: 'size 1 failing on the current revision (no member answers): quorum lost is reported',
    input: { ...steady(1), pods: [pod(0, crashLoop)], etcd: undefined },
    expect: { kind: 'ReportQuorumLost' },
  },
  {
    given: 'quorum lost with an out-of-date crash-looping Pod on its PVC',
    input: {
      ...withPod(withPod(all3, 1, crashLoop), 2, crashLoop),
      etcd: etcd([member(0), member(1, { healthy: false }), member(2, { healthy: false })], {
        quorum: false,
      }),
      pvcs: [pvc(0), pvc(1), pvc(2)],
    },
    expect: { kind: 'RollMember', member: 'demo-1', evict: false },
  },
];

describe('planMembership: rolling changes (step 15)', () => {
  for (const { given, input, expect } of cases) {
    it(`GIVEN ${given} THEN ${expect.kind}${expect.member ? ` ${expect.member}` : ''}`, () => {
      // WHEN
      const action = planMembership(input) as unknown as Record<string, unknown>;
      // THEN
      for (const [key, value] of Object.entries(expect)) {
        assert.deepEqual(action[key], value, `${key} of ${JSON.stringify(action)}`);
      }
    });
  }
});
