import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type Alarm,
  alarmDecision,
  DISARM_HEADROOM_BYTES,
  defragOrder,
  type MemberStatus,
  type PlanMember,
  type SizeAfter,
} from '../../../controller/defrag/plan.js';

const member = (id: string, name: string, isLearner = false, clientURLs = [`http://${name}:2379`]) =>
  ({ id, name, clientURLs, isLearner }) satisfies PlanMember;
const up = (leaderId: string, dbSize = 100): MemberStatus => ({
  ok: true,
  dbSize,
  dbSizeInUse: 10,
  leaderId,
  raftIndex: '42',
});
const down: MemberStatus = { ok: false, error: 'connect ECONNREFUSED' };

// Ids are 64-bit decimal strings; names sort differently from ids on purpose.
const [a, b, c, d, e] = [
  member('9', 'main-a'),
  member('8', 'main-b'),
  member('7', 'main-c'),
  member('6', 'main-d'),
  member('5', 'main-e'),
];

interface OrderRow {
  readonly name: string;
  readonly members: PlanMember[];
  readonly statuses: [string, MemberStatus][];
  /** Names in order, or `stop`. */
  readonly order: string[] | 'stop';
  readonly skipped: string[];
}

describe('defragOrder', () => {
  const rows: OrderRow[] = [
    {
      name: 'followers by name, then the leader',
      members: [c, a, b],
      statuses: [
        ['9', up('9')],
        ['8', up('9')],
        ['7', up('9')],
      ],
      order: ['main-b', 'main-c', 'main-a'],
      skipped: [],
    },
    {
      name: 'the leader last even when its name sorts first',
      members: [a, b, c],
      statuses: [
        ['9', up('8')],
        ['8', up('8')],
        ['7', up('8')],
      ],
      order: ['main-a', 'main-c', 'main-b'],
      skipped: [],
    },
    {
      name: 'one member: itself',
      members: [a],
      statuses: [['9', up('9')]],
      order: ['main-a'],
      skipped: [],
    },
    {
      name: 'a member that does not answer is skipped; 2 of 3 is a quorum',
      members: [a, b, c],
      statuses: [
        ['9', up('8')],
        ['8', up('8')],
        ['7', down],
      ],
      order: ['main-a', 'main-b'],
      skipped: ['main-c'],
    },
    {
      name: 'a member with no status at all is skipped',
      members: [a, b, c],
      statuses: [
        ['9', up('9')],
        ['8', up('9')],
      ],
      order: ['main-b', 'main-a'],
      skipped: ['main-c'],
    },
    {
      name: 'a member not started yet (no client URL) is skipped',
      members: [a, b, member('7', '', false, [])],
      statuses: [
        ['9', up('9')],
        ['8', up('9')],
      ],
      order: ['main-b', 'main-a'],
      skipped: [''],
    },
    {
      name: 'stop with 1 of 3 answering',
      members: [a, b, c],
      statuses: [
        ['9', up('9')],
        ['8', down],
        ['7', down],
      ],
      order: 'stop',
      skipped: ['main-b', 'main-c'],
    },
    {
      name: 'stop with 2 of 4 answering (quorum of 4 is 3)',
      members: [a, b, c, d],
      statuses: [
        ['9', up('9')],
        ['8', up('9')],
        ['7', down],
        ['6', down],
      ],
      order: 'stop',
      skipped: ['main-c', 'main-d'],
    },
    {
      name: 'stop with nobody answering',
      members: [a],
      statuses: [['9', down]],
      order: 'stop',
      skipped: ['main-a'],
    },
    {
      name: '3 of 5 is a quorum',
      members: [a, b, c, d, e],
      statuses: [
        ['9', up('5')],
        ['8', down],
        ['7', up('5')],
        ['6', down],
        ['5', up('5')],
      ],
      order: ['main-a', 'main-c', 'main-e'],
      skipped: ['main-b', 'main-d'],
    },
    {
      name: 'a learner is skipped and not counted among the voters (2 of 2 voters answer)',
      members: [a, b, member('7', 'main-c', true)],
      statuses: [
        ['9', up('9')],
        ['8', up('9')],
        ['7', up('9')],
      ],
      order: ['main-b', 'main-a'],
      skipped: ['main-c'],
    },
    {
      name: 'a learner answering does not make a quorum (1 of 3 voters)',
      members: [a, b, c, member('6', 'main-d', true)],
      statuses: [
        ['9', up('9')],
        ['8', down],
        ['7', down],
        ['6', up('9')],
      ],
      order: 'stop',
      skipped: ['main-b', 'main-c', 'main-d'],
    },
    {
      name: 'no leader known: all by name',
      members: [b, a],
      statuses: [
        ['9', up('0')],
        ['8', up('0')],
      ],
      order: ['main-a', 'main-b'],
      skipped: [],
    },
    {
      name: "the leader is the member whose own status names itself, not another member's stale view",
      members: [a, b, c],
      statuses: [
        ['9', up('9')],
        ['8', up('9')],
        ['7', up('8')],
      ],
      order: ['main-b', 'main-c', 'main-a'],
      skipped: [],
    },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const plan = defragOrder(row.members, new Map(row.statuses));
      assert.deepEqual(
        plan.action === 'stop' ? 'stop' : plan.order.map((m) => m.name),
        row.order,
        JSON.stringify(plan),
      );
      assert.deepEqual(
        plan.skipped.map((s) => s.name),
        row.skipped,
      );
    });
  }

  it('says why it stops: answering, voters and the quorum', () => {
    const plan = defragOrder(
      [a, b, c],
      new Map([
        ['9', up('9')],
        ['8', down],
        ['7', down],
      ]),
    );
    assert.equal(plan.action, 'stop');
    assert.match(
      plan.action === 'stop' ? plan.message : '',
      /^1 of 3 voting members answered Status; a quorum of 2 .* none was touched$/,
    );
  });

  it('says why a member is skipped', () => {
    const plan = defragOrder(
      [a, b, c, member('6', 'main-d', true)],
      new Map([
        ['9', up('9')],
        ['8', up('9')],
        ['7', down],
      ]),
    );
    assert.deepEqual(
      plan.skipped.map((s) => [s.name, s.reason]),
      [
        ['main-c', 'did not answer Status: connect ECONNREFUSED'],
        ['main-d', 'a learner (etcd refuses Defragment on learners)'],
      ],
    );
  });
});

describe('alarmDecision', () => {
  // The headroom is etcd's default largest request, 1.5 MiB: the limit is 1000 bytes above it.
  const quota = DISARM_HEADROOM_BYTES + 1000;
  const nospace = (memberId: string): Alarm => ({ memberId, alarm: 'Nospace' });
  const corrupt = (memberId: string): Alarm => ({ memberId, alarm: 'Corrupt' });
  const size = (name: string, dbSize?: number): SizeAfter => ({ id: name, name, dbSize });

  const rows: [string, Alarm[], SizeAfter[], string[], string[]][] = [
    [
      'NOSPACE kept when a member is below the quota but within one largest write of it',
      [nospace('1')],
      [size('a', 10), size('b', quota - 1)],
      [],
      ['1'],
    ],
    ['no alarms: nothing to do', [], [size('a', 5000)], [], []],
    [
      'NOSPACE disarmed when every member is below the quota less the headroom',
      [nospace('1')],
      [size('a', 10), size('b', 999)],
      ['1'],
      [],
    ],
    [
      'NOSPACE kept when one member is at the limit',
      [nospace('1')],
      [size('a', 10), size('b', 1000)],
      [],
      ['1'],
    ],
    [
      'NOSPACE kept when one member is above the limit',
      [nospace('1')],
      [size('a', 1001), size('b', 10)],
      [],
      ['1'],
    ],
    [
      'NOSPACE kept when a member did not answer after defragmentation',
      [nospace('1')],
      [size('a', 10), size('b')],
      [],
      ['1'],
    ],
    [
      'every NOSPACE alarm disarmed (one per member)',
      [nospace('1'), nospace('2')],
      [size('a', 10)],
      ['1', '2'],
      [],
    ],
    ['CORRUPT never disarmed, even below the quota', [corrupt('1')], [size('a', 10)], [], ['1']],
    [
      'CORRUPT kept, NOSPACE of another member disarmed',
      [corrupt('1'), nospace('2')],
      [size('a', 10)],
      ['2'],
      ['1'],
    ],
  ];
  for (const [name, alarms, after, disarmed, kept] of rows) {
    it(name, () => {
      const decision = alarmDecision(alarms, after, quota);
      assert.deepEqual(
        decision.disarm.map((alarm) => alarm.memberId),
        disarmed,
      );
      assert.deepEqual(
        decision.keep.map((alarm) => alarm.memberId),
        kept,
      );
    });
  }

  it('a kept NOSPACE says compaction freed too little, names the member, size and quota, and what to do', () => {
    const [kept] = alarmDecision([nospace('1')], [size('main-a', 10), size('main-b', 1500)], quota).keep;
    assert.equal(
      kept?.reason,
      'compaction freed too little: main-b is at 1500 bytes; allowed: below 1000 bytes (the quota of 1573864 bytes less 1572864 bytes for one largest write); raise spec.quotaBackendBytes or delete data',
    );
  });

  it('a kept CORRUPT says it is never disarmed', () => {
    const [kept] = alarmDecision([corrupt('1')], [size('a', 10)], quota).keep;
    assert.equal(kept?.reason, 'a Corrupt alarm is never disarmed by the defrag job');
  });
});
