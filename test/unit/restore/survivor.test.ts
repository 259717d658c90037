// spec.survivor (docs/design/restore.md, "Recovery from a surviving member"): which member a restore recovers from,
// and the restore planner's steps around it (choose when verifying, lock with source.member, report without the
// survivor's Pod counted as an old member to stop). Pure.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { planRestore } from '../../../controller/etcdrestore/plan.js';
import { chooseSurvivor } from '../../../controller/etcdrestore/survivor.js';
import type { RestorePlanInput, RestoreView, SurvivorView } from '../../../controller/etcdrestore/types.js';
import { toSurvivorViews } from '../../../controller/etcdrestore/views.js';

const uid = 'aaaaaaaa-1111-2222-3333-444444444444';
/** The members with a Pod or a volume. */
const MEMBERS = ['main-0', 'main-1', 'main-2', 'main-4', 'main-10'];
const survivor = (member: string, over: Partial<SurvivorView> = {}): SurvivorView => ({
  member,
  id: `${member.length}${member.at(-1)}00`,
  sameCluster: true,
  learner: false,
  raftIndex: '100',
  revision: '50',
  version: '3.6.16',
  ...over,
});
const restore = (over: Partial<RestoreView> = {}): RestoreView => ({
  name: 'r1',
  uid,
  phase: 'Verifying',
  clusterName: 'main',
  allowHealthyCluster: false,
  survivor: { newest: true },
  ...over,
});

describe('chooseSurvivor', () => {
  it('newest: the fit member with the highest raft index (then revision, then lowest name); the message says what is kept and lost', () => {
    const action = chooseSurvivor(
      restore(),
      [
        survivor('main-0', { raftIndex: '120', revision: '60' }),
        survivor('main-1', { raftIndex: '900', learner: true }),
        survivor('main-2', { raftIndex: '130', revision: '61' }),
        survivor('main-4', { raftIndex: '999', sameCluster: false }),
      ],
      '3.6.16',
      MEMBERS,
    );
    assert.deepEqual(action, {
      kind: 'ChooseSurvivor',
      member: 'main-2',
      id: survivor('main-2').id,
      revision: '61',
      message:
        'recovering from member main-2 at revision 61 (raft index 130): every write it has applied is kept; writes it had not applied are lost (other members answering: main-0 at revision 60, main-1 at revision 50, main-4 at revision 50)',
    });
    const tie = chooseSurvivor(restore(), [survivor('main-10'), survivor('main-2')], undefined, MEMBERS);
    assert.equal(tie.kind === 'ChooseSurvivor' && tie.member, 'main-2', 'ties: the lowest index');
    const big = chooseSurvivor(
      restore(),
      [survivor('main-0', { raftIndex: '18446744073709551615' }), survivor('main-1', { raftIndex: '9' })],
      undefined,
      MEMBERS,
    );
    assert.equal(
      big.kind === 'ChooseSurvivor' && big.member,
      'main-0',
      '64-bit indexes compared as integers',
    );
  });

  it('member: that member when it answers fit; refused (nothing changed) when it is a learner, another cluster, or a newer etcd', () => {
    const named = restore({ survivor: { member: 'main-0' } });
    const ok = chooseSurvivor(
      named,
      [survivor('main-0'), survivor('main-1', { raftIndex: '999' })],
      '3.6.16',
      MEMBERS,
    );
    assert.equal(
      ok.kind === 'ChooseSurvivor' && ok.member,
      'main-0',
      'the named one, even when not the newest',
    );
    for (const [over, why] of [
      [{ learner: true }, 'main-0 is a learner'],
      [{ sameCluster: false }, 'main-0 answers as another member or another cluster'],
      [{ version: '3.6.16' }, 'newer than the cluster'],
    ] as const) {
      const action = chooseSurvivor(named, [survivor('main-0', over)], '3.5.35', MEMBERS);
      assert.equal(action.kind, 'Refuse', JSON.stringify(over));
      assert.equal(action.kind === 'Refuse' && action.reason, 'InvalidSurvivor');
      assert.match(
        action.kind === 'Refuse' ? action.message : '',
        new RegExp(
          `^spec\\.survivor\\.member: main-0 cannot seed the cluster: .*${why}.*nothing was changed$`,
        ),
      );
    }
  });

  it('waits (Degraded, nothing changed) while the named member or any fit member does not answer', () => {
    const named = chooseSurvivor(
      restore({ survivor: { member: 'main-2' } }),
      [survivor('main-0')],
      undefined,
      MEMBERS,
    );
    assert.deepEqual(
      {
        kind: named.kind,
        reason: named.kind === 'Wait' && named.reason,
        degraded: named.kind === 'Wait' && named.degraded,
      },
      { kind: 'Wait', reason: 'SurvivorUnavailable', degraded: true },
    );
    assert.match(
      named.kind === 'Wait' ? named.message : '',
      /^member main-2 does not answer \(answering: main-0 \(revision 50\)\)/,
    );
    const none = chooseSurvivor(restore(), [survivor('main-0', { learner: true })], undefined, MEMBERS);
    assert.equal(none.kind === 'Wait' && none.reason, 'SurvivorUnavailable');
  });

  it('member: refused (nothing changed) when the named member has no Pod and no volume: it has no data, now or later', () => {
    const action = chooseSurvivor(
      restore({ survivor: { member: 'mian-2' } }),
      [survivor('main-0')],
      undefined,
      ['main-1', 'main-0', 'main-1', 'main-10', 'main-2'],
    );
    assert.deepEqual(action, {
      kind: 'Refuse',
      reason: 'InvalidSurvivor',
      message:
        'spec.survivor.member: mian-2 has no member Pod or volume in cluster main, so it has no data to recover from; allowed: a voting member of this cluster that answers (members with a Pod or volume: main-0, main-1, main-2, main-10); nothing was changed',
    });
    const none = chooseSurvivor(restore({ survivor: { member: 'main-0' } }), [], undefined, []);
    assert.match(none.kind === 'Refuse' ? none.message : '', /\(members with a Pod or volume: none\)/);
    const retained = chooseSurvivor(restore({ survivor: { member: 'main-3' } }), [], undefined, ['main-3']);
    assert.equal(
      retained.kind === 'Wait' && retained.reason,
      'SurvivorUnavailable',
      'a volume alone: waited for',
    );
  });
});

describe('toSurvivorViews', () => {
  const status = (memberId: string, clusterId = 'c1', isLearner = false) => ({
    memberId,
    clusterId,
    isLearner,
    raftIndex: '7',
    revision: '3',
    version: '3.6.16',
  });
  it('a member answering with the id the member list gives it, in the recorded cluster, is one; impostors are not', () => {
    const views = toSurvivorViews(
      {
        view: {
          quorum: false,
          members: [
            { id: '11', member: 'main-0', healthy: false, learner: false, wrongIdentity: false },
            { id: '12', member: 'main-1', healthy: false, learner: false, wrongIdentity: false },
            { id: '13', member: 'main-2', healthy: false, learner: true, wrongIdentity: false },
          ],
        },
        clusterId: 'c1',
        statuses: new Map([
          ['main-0', status('11')],
          ['main-1', status('99')],
          ['main-2', status('13')],
          ['main-3', status('14', 'c2')],
        ]),
      },
      'c1',
    );
    assert.deepEqual(
      views.map((v) => [v.member, v.sameCluster, v.learner]),
      [
        ['main-0', true, false],
        ['main-1', false, false],
        ['main-2', true, true],
        ['main-3', false, false],
      ],
    );
  });
});

describe('planRestore with spec.survivor', () => {
  const base = (over: Partial<RestorePlanInput> = {}): RestorePlanInput => ({
    restore: restore(),
    cluster: { name: 'main', uid: 'c-uid', deleting: false, paused: false, size: 3 },
    pods: [],
    pvcs: [],
    etcd: { quorum: false, members: 3, healthyVoters: 1, learners: 0 },
    survivors: [survivor('main-0')],
    clusterVersion: '3.6.16',
    nonce: 'abc123',
    ...over,
  });

  it('Verifying → ChooseSurvivor (no S3, no Secret); the chosen one recorded → TakeLock with source.member', () => {
    assert.equal(planRestore(base()).kind, 'ChooseSurvivor');
    const chosen = base({
      restore: restore({ phase: 'Restoring', sourceMember: { name: 'main-0', id: '600' } }),
    });
    assert.deepEqual(planRestore(chosen), {
      kind: 'TakeLock',
      token: `main-${uid.slice(0, 8)}-abc123`,
      source: { member: { name: 'main-0', id: '600' } },
    });
  });

  it("a named member is checked against the cluster's member Pods and volumes: one with a volume only is waited for, one with neither is refused", () => {
    const named = (member: string) => restore({ survivor: { member } });
    const volumeOnly = base({
      restore: named('main-2'),
      pvcs: [{ name: 'main-2-data', member: 'main-2', terminating: false }],
    });
    const waiting = planRestore(volumeOnly);
    assert.equal(waiting.kind === 'Wait' && waiting.reason, 'SurvivorUnavailable');
    const podOnly = base({
      restore: named('main-2'),
      pods: [{ name: 'main-2', member: 'main-2', terminating: true, ready: false }],
    });
    assert.equal(planRestore(podOnly).kind, 'Wait');
    const neither = planRestore(
      base({ restore: named('main-7'), pods: volumeOnly.pvcs.map((p) => ({ ...p, ready: false })) }),
    );
    assert.equal(neither.kind === 'Refuse' && neither.reason, 'InvalidSurvivor');
    assert.match(neither.kind === 'Refuse' ? neither.message : '', /members with a Pod or volume: main-2\)/);
  });

  it('a healthy cluster is refused as for a backup, unless allowHealthyCluster', () => {
    const healthy = { quorum: true, members: 3, healthyVoters: 3, learners: 0 };
    assert.equal(planRestore(base({ etcd: healthy })).kind, 'Refuse');
    const allowed = base({ etcd: healthy, restore: restore({ allowHealthyCluster: true }) });
    assert.equal(planRestore(allowed).kind, 'ChooseSurvivor');
  });

  it('while locked, the survivor’s running Pod is not an old member to stop: the report says Seeding', () => {
    const lock = {
      name: 'r1',
      uid,
      token: 'tok',
      source: { member: { name: 'main-0', id: '600' } },
      phase: 'Restoring' as const,
    };
    const action = planRestore(
      base({
        restore: restore({ phase: 'Restoring', sourceMember: { name: 'main-0', id: '600' } }),
        cluster: { name: 'main', uid: 'c-uid', deleting: false, paused: false, size: 3, lock },
        pods: [{ name: 'main-0', member: 'main-0', terminating: false, ready: false }],
        pvcs: [{ name: 'main-0-data', member: 'main-0', terminating: false, retainedBy: 'r1' }],
      }),
    );
    assert.equal(action.kind === 'Wait' && action.reason, 'Seeding');
    assert.match(
      action.kind === 'Wait' ? action.message : '',
      /creates the seed that restores member main-0$/,
    );
  });
});
