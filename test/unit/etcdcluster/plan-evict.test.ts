// Table tests of the member that leaves (docs/design/membership.md, "The member that leaves, and evict-and-replace"):
// scale-in removes a marked member, then one that is not healthy, then the highest index; a marked member at the
// same size is replaced add-first (healthy) or remove-first (not healthy); every crash point of the sequence.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { planMembership } from '../../../controller/etcdcluster/plan.js';
import type { Action, PlanInput, PodView } from '../../../controller/etcdcluster/types.js';
import { etcd, member, pod, pvc, steady } from './fixtures.js';

interface Case {
  readonly given: string;
  readonly input: PlanInput;
  readonly expect: Partial<Record<string, unknown>> & { kind: Action['kind'] };
}

function withPod(input: PlanInput, index: number, overrides: Partial<PodView>): PlanInput {
  return { ...input, pods: input.pods.map((p, i) => (i === index ? { ...p, ...overrides } : p)) };
}
const sized = (input: PlanInput, size: number): PlanInput => ({
  ...input,
  cluster: { ...input.cluster, size },
});
const marked = { evict: true };

const s3 = steady(3);
const s5 = steady(5);
/** Size 3, demo-1 marked, a learner demo-3 added for it (Pod running). */
const learnerAdded: PlanInput = {
  ...withPod(s3, 1, marked),
  pods: [...withPod(s3, 1, marked).pods, pod(3)],
  pvcs: [...s3.pvcs, pvc(3)],
  etcd: etcd([member(0), member(1), member(2), member(3, { learner: true })]),
};
/** Size 3, demo-1 marked, demo-3 promoted: four voters. */
const promoted: PlanInput = { ...learnerAdded, etcd: etcd([member(0), member(1), member(2), member(3)]) };

const cases: Case[] = [
  // Scale-in: who leaves.
  {
    given: 'size 5 → 3 with nothing marked',
    input: sized(s5, 3),
    expect: { kind: 'RemoveMember', member: 'demo-4', reason: 'scale-in' },
  },
  {
    given: 'size 5 → 3 with demo-1 marked',
    input: sized(withPod(s5, 1, marked), 3),
    expect: { kind: 'RemoveMember', member: 'demo-1', id: '1001', reason: 'evict' },
  },
  {
    given: 'size 5 → 3, demo-1 marked and leading',
    input: {
      ...sized(withPod(s5, 1, marked), 3),
      etcd: etcd(
        [0, 1, 2, 3, 4].map((i) => member(i)),
        { leaderId: '1001' },
      ),
    },
    expect: { kind: 'MoveLeader', fromId: '1001', toId: '1000', purpose: 'scale-in' },
  },
  {
    given: 'size 5 → 3 with demo-2 not answering: it leaves, no wait for it',
    input: { ...sized(s5, 3), etcd: etcd([0, 1, 2, 3, 4].map((i) => member(i, { healthy: i !== 2 }))) },
    expect: { kind: 'RemoveMember', member: 'demo-2', reason: 'scale-in' },
  },
  {
    given: 'size 5 → 3 with demo-3 marked and demo-2 not answering: the marked one first',
    input: {
      ...sized(withPod(s5, 3, marked), 3),
      etcd: etcd([0, 1, 2, 3, 4].map((i) => member(i, { healthy: i !== 2 }))),
    },
    expect: { kind: 'RemoveMember', member: 'demo-3', reason: 'evict' },
  },
  {
    given: 'a crash after removing demo-1 (5 → 3): its Pod left',
    input: { ...sized(withPod(s5, 1, marked), 3), etcd: etcd([0, 2, 3, 4].map((i) => member(i))) },
    expect: { kind: 'DeletePod', member: 'demo-1' },
  },
  {
    given: 'demo-1 gone, four members for size 3: the highest index next',
    input: {
      ...sized(s5, 3),
      pods: s5.pods.filter((p) => p.member !== 'demo-1'),
      etcd: etcd([0, 2, 3, 4].map((i) => member(i))),
    },
    expect: { kind: 'RemoveMember', member: 'demo-4', reason: 'scale-in' },
  },
  {
    given: 'size 3 → 2 with two members not answering: removing one would lose quorum',
    input: {
      ...sized(s3, 2),
      cluster: { ...s3.cluster, size: 2, allowEvenSize: true },
      etcd: etcd([member(0), member(1, { healthy: false }), member(2, { healthy: false })], {
        quorum: false,
      }),
    },
    expect: { kind: 'ReportQuorumLost' },
  },
  // Evict-and-replace at the same size.
  {
    given: 'size 3 with healthy demo-1 marked: a new member first',
    input: withPod(s3, 1, marked),
    expect: { kind: 'AddLearner', member: 'demo-3' },
  },
  {
    given: 'a crash after AddLearner for the replacement: its PVC next',
    input: {
      ...withPod(s3, 1, marked),
      etcd: etcd([member(0), member(1), member(2), member(3, { learner: true, started: false })]),
    },
    expect: { kind: 'CreatePVC', member: 'demo-3' },
  },
  {
    given: 'the replacement learner running: promoted, not undone',
    input: learnerAdded,
    expect: { kind: 'PromoteLearner', member: 'demo-3' },
  },
  {
    given: 'the mark taken off before the promotion: the add is undone',
    input: withPod(learnerAdded, 1, { evict: false }),
    expect: { kind: 'RemoveMember', member: 'demo-3', reason: 'undo' },
  },
  {
    given: 'the replacement promoted: the marked member leaves',
    input: promoted,
    expect: { kind: 'RemoveMember', member: 'demo-1', reason: 'evict' },
  },
  {
    given: 'the replacement promoted, the marked member leading',
    input: { ...promoted, etcd: etcd([member(0), member(1), member(2), member(3)], { leaderId: '1001' }) },
    expect: { kind: 'MoveLeader', fromId: '1001', toId: '1000' },
  },
  {
    given: 'a crash after the marked member was removed: its Pod next',
    input: { ...promoted, etcd: etcd([member(0), member(2), member(3)]) },
    expect: { kind: 'DeletePod', member: 'demo-1' },
  },
  {
    given: 'its Pod gone, PVC kept (whenScaled Retain): steady at size 3',
    input: {
      ...promoted,
      pods: promoted.pods.filter((p) => p.member !== 'demo-1'),
      etcd: etcd([member(0), member(2), member(3)]),
    },
    expect: { kind: 'Steady' },
  },
  {
    given: 'a marked member that is not healthy: replaced remove-first, as a dead member',
    input: { ...withPod(s3, 1, marked), etcd: etcd([member(0), member(1, { healthy: false }), member(2)]) },
    expect: { kind: 'RemoveMember', member: 'demo-1', reason: 'dead' },
  },
  {
    given: 'size 1 with its only member marked: a second member first (two voters for a while)',
    input: withPod(steady(1), 0, marked),
    expect: { kind: 'AddLearner', member: 'demo-1' },
  },
];

describe('planMembership: the member that leaves, evict-and-replace', () => {
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
