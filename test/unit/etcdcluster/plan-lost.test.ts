// Table tests of lost members (docs/design/membership.md, "Lost members"): a member whose Pod is lost (its node died,
// or the Pod is stuck Terminating or unscheduled) and which does not answer is removed when quorum allows, its Pod
// deleted without blocking, its PVC kept until the Pod is gone, and a new member added under a new name; a lost Pod
// whose member answers is left alone; every crash point of the sequence resumes.
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

const LOST = 'its node node-2 has not been Ready for 2m5s (spec.failureDetection.nodeNotReady: 2m)';
const NOTE =
  'its node node-2 has not been Ready for 35s; it is replaced after 2m (spec.failureDetection.nodeNotReady)';

function withPod(input: PlanInput, index: number, overrides: Partial<PodView>): PlanInput {
  return {
    ...input,
    pods: input.pods.map((p) => (p.member === `demo-${index}` ? { ...p, ...overrides } : p)),
  };
}
const deleteWhenScaled = (input: PlanInput): PlanInput => ({
  ...input,
  cluster: { ...input.cluster, whenScaled: 'Delete' },
});

const s3 = steady(3);
/** demo-1's node died: its Pod is not running, the member does not answer. */
const down = (overrides: Partial<PodView>): PlanInput => ({
  ...withPod(s3, 1, { running: false, ready: false, ...overrides }),
  etcd: etcd([member(0), member(1, { healthy: false, caughtUp: false }), member(2)]),
});
/** After RemoveMember: demo-1 is out of etcd, its Pod still there (not running, lost). */
const removed: PlanInput = {
  ...withPod(s3, 1, { running: false, ready: false, lost: LOST }),
  etcd: etcd([member(0), member(2)]),
};
/** After DeletePod: the Pod stays Terminating on the dead node. */
const podTerminating = withPod(removed, 1, { terminating: true });
/** A replacement learner demo-3 was added while demo-1's Pod still terminates. */
const learnerAdded: PlanInput = {
  ...podTerminating,
  pods: [...podTerminating.pods, pod(3, { running: false, ready: false })],
  pvcs: [...podTerminating.pvcs, pvc(3)],
  etcd: etcd([member(0), member(2), member(3, { learner: true, started: false, healthy: false })]),
};
/** The node came back: the kubelet confirmed the deletion, the Pod is gone, its PVC left. */
const podGone: PlanInput = {
  ...s3,
  pods: [pod(0), pod(2), pod(3)],
  pvcs: [...s3.pvcs, pvc(3)],
  etcd: etcd([member(0), member(2), member(3)]),
};

const cases: Case[] = [
  {
    given: 'a member down on a node that is not Ready, within the bound',
    input: down({ nodeNotReady: NOTE }),
    expect: {
      kind: 'Wait',
      reason: 'MembersNotReady',
      message: `waiting for member demo-1 to be healthy: ${NOTE}`,
    },
  },
  {
    given: 'a member down whose Pod is lost (node not Ready past the bound)',
    input: down({ lost: LOST }),
    expect: { kind: 'RemoveMember', member: 'demo-1', id: '1001', reason: 'lost', detail: LOST },
  },
  {
    given: 'a lost Pod whose member still answers (a kubelet that died, containers running)',
    input: withPod(s3, 1, { ready: false, lost: LOST }),
    expect: { kind: 'Steady' },
  },
  {
    given: 'a lost Pod whose member still answers, and a roll pending: the roll waits for the Pod',
    input: withPod(s3, 1, { ready: false, lost: LOST, revision: 'old' }),
    expect: { kind: 'Wait', reason: 'MemberPodNotReady' },
  },
  {
    given: 'the lost Pod is terminating (evicted) and its member does not answer: no wait on it',
    input: down({ lost: LOST, terminating: true }),
    expect: { kind: 'RemoveMember', member: 'demo-1', reason: 'lost' },
  },
  {
    given: 'a terminating Pod that is not lost still blocks',
    input: down({ terminating: true }),
    expect: { kind: 'Wait', reason: 'PodTerminating' },
  },
  {
    given: 'a lost learner (its Pod unschedulable past the bound)',
    input: {
      ...s3,
      pods: [
        ...s3.pods,
        pod(3, { running: false, ready: false, lost: 'its Pod has not been scheduled for 5m1s' }),
      ],
      pvcs: [...s3.pvcs, pvc(3)],
      etcd: etcd([
        member(0),
        member(1),
        member(2),
        member(3, { learner: true, started: false, healthy: false }),
      ]),
    },
    expect: { kind: 'RemoveMember', member: 'demo-3', reason: 'lost' },
  },
  {
    given: 'two of three members lost: removing one would lose quorum',
    input: {
      ...withPod(withPod(s3, 1, { running: false, ready: false, lost: LOST }), 2, {
        running: false,
        ready: false,
        lost: LOST,
      }),
      etcd: etcd(
        [member(0, { healthy: false }), member(1, { healthy: false }), member(2, { healthy: false })],
        {
          quorum: false,
        },
      ),
    },
    expect: { kind: 'ReportQuorumLost' },
  },
  {
    given: 'no member answers and the only Pods are lost: quorum loss is reported, not "starting"',
    input: {
      ...withPod(steady(1), 0, { running: false, ready: false, lost: LOST }),
      etcd: undefined,
    },
    expect: { kind: 'ReportQuorumLost' },
  },
  // The sequence after the removal, and its crash points.
  {
    given: 'removed from etcd, its Pod still there',
    input: removed,
    expect: { kind: 'DeletePod', pod: 'demo-1' },
  },
  {
    given: 'its Pod terminating on the dead node: the replacement is added under a new name',
    input: podTerminating,
    expect: { kind: 'AddLearner', member: 'demo-3' },
  },
  {
    given: 'its Pod terminating, whenScaled Delete: the PVC waits for the Pod (a new member is added)',
    input: deleteWhenScaled(podTerminating),
    expect: { kind: 'AddLearner', member: 'demo-3' },
  },
  {
    given: 'the replacement learner runs and answers: promoted, the old Pod still terminating',
    input: {
      ...learnerAdded,
      pods: learnerAdded.pods.map((p) => (p.member === 'demo-3' ? { ...p, running: true } : p)),
      etcd: etcd([member(0), member(2), member(3, { learner: true, started: true, healthy: true })]),
    },
    expect: { kind: 'PromoteLearner', member: 'demo-3' },
  },
  {
    given: 'the node came back and the Pod is gone, whenScaled Delete: the old PVC is deleted',
    input: deleteWhenScaled(podGone),
    expect: { kind: 'DeletePVC', pvc: 'demo-1-data' },
  },
  {
    given: 'the node came back and the Pod is gone, whenScaled Retain: steady, the PVC kept',
    input: podGone,
    expect: { kind: 'Steady' },
  },
];

describe('planMembership: lost members', () => {
  for (const { given, input, expect } of cases) {
    it(`GIVEN ${given} THEN ${expect.kind}`, () => {
      const action = planMembership(input) as unknown as Record<string, unknown>;
      for (const [key, value] of Object.entries(expect)) {
        assert.deepEqual(action[key], value, `${key} of ${JSON.stringify(action)}`);
      }
    });
  }

  it('never reuses the lost member name while its Pod or PVC exists', () => {
    const action = planMembership(podTerminating);
    assert.equal(action.kind === 'AddLearner' && action.member, 'demo-3');
  });
});
