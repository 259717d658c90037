// The etcd member API wrapper and the etcd observation against real etcd 3.4, 3.5 and 3.6 processes:
// seed, learner add, promote (refused until caught up), move leader, remove, quorum loss.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DEFAULT_CALL_TIMEOUT_MS } from '../../controller/etcd/client.js';
import {
  addLearner,
  listMembers,
  moveLeader,
  promoteMember,
  removeMember,
} from '../../controller/etcd/members.js';
import { type EtcdObservation, observeEtcd } from '../../controller/etcdcluster/observe-etcd.js';
import { waitFor } from '../env/wait.js';
import { createTestCluster, type TestCluster } from './helpers/membership-etcd.js';

for (const version of ['3.6', '3.5', '3.4'] as const) {
  describe(`etcd ${version} membership`, () => {
    let cluster: TestCluster;
    const endpoints = () =>
      [...cluster.members.values()].map((member) => ({ member: member.name, clientURL: member.clientURL }));
    const observe = () => observeEtcd(endpoints(), (url) => cluster.memberOf(url));
    const url = (name: string) => cluster.members.get(name)?.clientURL as string;
    const idOf = (observation: EtcdObservation | undefined, name: string) =>
      observation?.view.members.find((member) => member.member === name)?.id as string;
    const healthyQuorum = (size: number) =>
      waitFor(
        async () => {
          const observation = await observe();
          const healthy = observation?.view.members.filter((member) => member.healthy).length;
          return observation?.view.quorum && healthy === size && observation;
        },
        { what: `${size} healthy members with quorum`, timeoutMs: 30_000 },
      );

    before(async () => {
      cluster = await createTestCluster(version);
      for (const name of ['m0', 'm1', 'm2']) await cluster.reserve(name);
      cluster.start('m0', 'new', ['m0'], `test-${version}`);
      await healthyQuorum(1);
    });
    after(async () => {
      await cluster?.stop();
    });

    test('GIVEN a seed WHEN a learner is added before its process exists THEN it is an unstarted learner and quorum holds', async () => {
      const added = await addLearner(url('m0'), cluster.members.get('m1')?.peerURL as string);
      assert.equal(added.outcome, 'added');
      const { members } = await listMembers(url('m0'));
      const learner = members.find((member) =>
        member.peerURLs.includes(cluster.members.get('m1')?.peerURL as string),
      );
      assert.equal(learner?.isLearner, true);
      assert.equal(learner?.name, '');
      const observation = await observe();
      assert.equal(observation?.view.quorum, true);
      // The seed answers its linearizable read; an unstarted learner is not caught up (the roll's gate).
      assert.deepEqual(
        observation?.view.members.map(({ member, caughtUp }) => [member, caughtUp]),
        [
          ['m0', true],
          ['m1', false],
        ],
      );
      assert.deepEqual(
        observation?.view.members.map(({ member, learner, started }) => ({ member, learner, started })),
        [
          { member: 'm0', learner: false, started: true },
          { member: 'm1', learner: true, started: false },
        ],
      );
    });

    test('GIVEN the learner is not running WHEN promoted THEN etcd refuses and the wrapper reports not-ready', async () => {
      const observation = await observe();
      assert.equal(await promoteMember(url('m0'), idOf(observation, 'm1')), 'not-ready');
    });

    test('GIVEN the same peer URL WHEN added again THEN the wrapper reports already-exists', async () => {
      const again = await addLearner(url('m0'), cluster.members.get('m1')?.peerURL as string);
      assert.equal(again.outcome, 'already-exists');
    });

    test('GIVEN the learner started with existing WHEN promoted until caught up THEN two healthy voters', async () => {
      cluster.start('m1', 'existing', ['m0', 'm1']);
      const id = idOf(await observe(), 'm1');
      await waitFor(async () => (await promoteMember(url('m0'), id)) === 'promoted', {
        what: 'the learner to be promoted',
        timeoutMs: 30_000,
        intervalMs: 250,
      });
      const observation = await healthyQuorum(2);
      assert.deepEqual(
        observation.view.members.map((member) => member.learner),
        [false, false],
      );
      assert.equal(await promoteMember(url('m0'), id), 'not-learner');
    });

    test('GIVEN a third member joined WHEN leadership moves to it THEN it leads', async () => {
      // etcd refuses reconfiguration for ~5 s after the previous one ("unhealthy cluster"): retry as the controller does.
      await waitFor(
        async () => (await addLearner(url('m0'), cluster.members.get('m2')?.peerURL as string)).outcome,
        {
          what: 'm2 to be added',
          timeoutMs: 30_000,
          intervalMs: 500,
        },
      );
      cluster.start('m2', 'existing', ['m0', 'm1', 'm2']);
      const id = idOf(await observe(), 'm2');
      await waitFor(async () => (await promoteMember(url('m1'), id)) === 'promoted', {
        what: 'm2 to be promoted',
        timeoutMs: 30_000,
        intervalMs: 250,
      });
      const before = await healthyQuorum(3);
      await moveLeader(before.leaderEndpoint as string, id);
      const afterMove = await waitFor(
        async () => (await observe())?.view.leaderId === id && (await observe()),
        {
          what: 'm2 to lead',
          timeoutMs: 15_000,
        },
      );
      assert.equal(afterMove?.leaderEndpoint, url('m2'));
      assert.equal(afterMove?.healthyEndpoints[0], url('m2'));
    });

    test('GIVEN three voters WHEN one is removed twice THEN removed, then not-found, and two remain with quorum', async () => {
      const id = idOf(await observe(), 'm0');
      assert.equal(
        await waitFor(() => removeMember(url('m2'), id), { what: 'm0 removed', timeoutMs: 30_000 }),
        'removed',
      );
      assert.equal(await removeMember(url('m2'), id), 'not-found');
      await cluster.kill('m0');
      cluster.members.delete('m0');
      const observation = await healthyQuorum(2);
      assert.deepEqual(
        observation.view.members.map((member) => member.member),
        ['m1', 'm2'],
      );
    });

    test('GIVEN two voters WHEN one is killed THEN the next observation reports quorum lost within the Status deadline (the caught-up read and the alarm list, which need a quorum, are not asked), and the survivor electing once its election timeout passes', async (t) => {
      await cluster.kill('m1');
      // Right after the loss the survivor still names a leader for up to its election timeout (1 s), so it looks
      // healthy; its caught-up read (5 s deadline) and the alarm list (3 s) could only wait for the lost quorum.
      // The killed member's Status is refused at once on loopback: nothing else takes time.
      const started = Date.now();
      const observation = await observe();
      const elapsedMs = Date.now() - started;
      const survivorView = observation?.view.members.find((member) => member.member !== 'm1');
      t.diagnostic(
        `observed in ${elapsedMs} ms; the survivor ${survivorView?.healthy ? 'still named' : 'no longer named'} a leader`,
      );
      assert.equal(observation?.view.quorum, false);
      assert.ok(elapsedMs < DEFAULT_CALL_TIMEOUT_MS, `the observation took ${elapsedMs} ms`);
      assert.equal(survivorView?.caughtUp, false);
      assert.equal(observation?.alarms, undefined);
      const m1 = observation?.view.members.find((member) => member.member === 'm1');
      assert.equal(m1?.healthy, false);
      assert.equal(m1?.caughtUp, false);
      assert.equal(observation?.view.members.length, 2);
      assert.equal(m1?.electing, false, 'a member that does not answer is not electing');
      // Raft clears the leader a member knew once its election timeout passes without one (a follower standing
      // for election, or a leader that lost its quorum stepping down): the survivor answers, naming no leader.
      const survivor = observation?.view.members.find((member) => member.member !== 'm1')?.member;
      const electing = await waitFor(
        async () => {
          const view = (await observe())?.view;
          const member = view?.members.find((candidate) => candidate.member === survivor);
          return member?.electing && view;
        },
        { what: `${survivor} answering without a leader`, timeoutMs: 30_000 },
      );
      assert.equal(electing.quorum, false);
      assert.equal(electing.members.find((member) => member.member === survivor)?.healthy, false);
    });
  });
}
