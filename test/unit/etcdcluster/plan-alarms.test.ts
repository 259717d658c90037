// Table tests of step 9.3 (docs/design/compaction-quota-defrag.md, "Alarms of removed members"): a NOSPACE alarm
// raised for a member id the member list no longer holds is disarmed, that one only; every other alarm stays.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EtcdAlarm } from '../../../controller/etcd/members.js';
import { planMembership } from '../../../controller/etcdcluster/plan.js';
import type { Action, PlanInput } from '../../../controller/etcdcluster/types.js';
import { cluster, etcd, member, pod, pvc, steady } from './fixtures.js';

interface Case {
  readonly given: string;
  readonly input: PlanInput;
  /** The action, or for a wait only its reason. */
  readonly expect: Exclude<Action, { kind: 'Wait' }> | { readonly kind: 'Wait'; readonly reason: string };
}

/** A steady cluster of three (member ids 1000..1002) whose alarm list reads `alarms`. */
const withAlarms = (alarms: readonly EtcdAlarm[], input: PlanInput = steady(3)): PlanInput => ({
  ...input,
  etcd: { ...(input.etcd ?? etcd([])), alarms },
});
const gone = '1004';

const cases: Case[] = [
  {
    given: 'a NOSPACE alarm of a member scaled away (id 1004, not in the member list)',
    input: withAlarms([{ memberId: gone, alarm: 'NOSPACE' }]),
    expect: { kind: 'DisarmAlarm', memberId: gone, alarm: 'NOSPACE' },
  },
  {
    given: 'alarms of a listed member and of a gone one: only the gone one',
    input: withAlarms([
      { memberId: '1001', alarm: 'NOSPACE' },
      { memberId: gone, alarm: 'NOSPACE' },
    ]),
    expect: { kind: 'DisarmAlarm', memberId: gone, alarm: 'NOSPACE' },
  },
  {
    given: 'a NOSPACE alarm of a listed member (its backend is full)',
    input: withAlarms([{ memberId: '1001', alarm: 'NOSPACE' }]),
    expect: { kind: 'Steady' },
  },
  {
    given: 'a NOSPACE alarm of a learner (listed, not a voter)',
    input: {
      ...withAlarms([{ memberId: '1003', alarm: 'NOSPACE' }]),
      cluster: cluster({ size: 4, allowEvenSize: true }),
      pods: [...steady(3).pods, pod(3)],
      pvcs: [...steady(3).pvcs, pvc(3)],
      etcd: {
        ...etcd([member(0), member(1), member(2), member(3, { learner: true, healthy: false })]),
        alarms: [{ memberId: '1003', alarm: 'NOSPACE' }],
      },
    },
    expect: { kind: 'Wait', reason: 'LearnerStarting' },
  },
  {
    given: 'a CORRUPT alarm of a gone member (left to a human)',
    input: withAlarms([{ memberId: gone, alarm: 'CORRUPT' }]),
    expect: { kind: 'Steady' },
  },
  {
    given: 'no alarm list (not read this pass)',
    input: steady(3),
    expect: { kind: 'Steady' },
  },
  {
    given: "a gone member's Pod still there: its Pod goes first (step 9.1), the alarm next pass",
    input: {
      ...withAlarms([{ memberId: gone, alarm: 'NOSPACE' }]),
      pods: [...steady(3).pods, pod(4)],
    },
    expect: { kind: 'DeletePod', member: 'demo-4', pod: 'demo-4' },
  },
  {
    given: 'the member list did not come from the leader: it waits for the leader, nothing is disarmed',
    input: {
      ...steady(3),
      etcd: {
        ...etcd([member(0), member(1), member(2)]),
        quorum: false,
        alarms: [{ memberId: gone, alarm: 'NOSPACE' }],
      },
    },
    expect: { kind: 'Wait', reason: 'LeaderChanging' },
  },
];

describe('planMembership: alarms of removed members (step 9.3)', () => {
  for (const c of cases) {
    it(c.given, () => {
      const action = planMembership(c.input);
      if (c.expect.kind === 'Wait') {
        assert.equal(action.kind, 'Wait');
        assert.equal(action.reason, c.expect.reason);
      } else {
        assert.deepEqual(action, c.expect);
      }
    });
  }
});
