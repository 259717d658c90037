// What the static bootstrap of a new cluster relies on (docs/design/bootstrap.md), against real etcd 3.4, 3.5 and
// 3.6: two of three static members form the cluster; the third, named in the member list before it ever ran, is
// observed as not started (no client URLs), not healthy, and costs no quorum; started later with the same
// `--initial-cluster`, token and `new`, it joins the cluster the others formed.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { listMembers } from '../../controller/etcd/members.js';
import { observeEtcd } from '../../controller/etcdcluster/observe-etcd.js';
import { waitFor } from '../env/wait.js';
import { createTestCluster, type TestCluster } from './helpers/membership-etcd.js';

const INITIAL = ['m0', 'm1', 'm2'];

for (const version of ['3.6', '3.5', '3.4'] as const) {
  describe(`etcd ${version}: a static bootstrap with a late member`, () => {
    let cluster: TestCluster;
    const token = `static-${version}`;
    const url = (name: string) => cluster.members.get(name)?.clientURL as string;
    const observe = () =>
      observeEtcd(
        INITIAL.map((member) => ({ member, clientURL: url(member) })),
        (peer) => cluster.memberOf(peer),
      );

    before(async () => {
      cluster = await createTestCluster(version);
      for (const name of INITIAL) await cluster.reserve(name);
      cluster.start('m0', 'new', INITIAL, token);
      cluster.start('m1', 'new', INITIAL, token);
      await waitFor(async () => (await observe())?.view.quorum, {
        what: 'm0 and m1 to form the cluster',
        timeoutMs: 30_000,
      });
    });
    after(async () => {
      await cluster?.stop();
    });

    test('GIVEN two of three static members running THEN the third is named but not started, not healthy, and quorum holds', async () => {
      const { members } = await listMembers(url('m0'));
      const m2 = members.find((member) =>
        member.peerURLs.includes(cluster.members.get('m2')?.peerURL as string),
      );
      // etcd names a static member from --initial-cluster before it ever ran: the name is no sign of a start.
      assert.equal(m2?.name, 'm2');
      assert.deepEqual(m2?.clientURLs, []);
      const observation = await observe();
      assert.equal(observation?.view.quorum, true);
      assert.deepEqual(
        observation?.view.members.map(({ member, learner, started, healthy }) => ({
          member,
          learner,
          started,
          healthy,
        })),
        [
          { member: 'm0', learner: false, started: true, healthy: true },
          { member: 'm1', learner: false, started: true, healthy: true },
          { member: 'm2', learner: false, started: false, healthy: false },
        ],
      );
    });

    test('GIVEN the formed cluster WHEN the late member starts with new, the same initial cluster and token THEN it joins it', async () => {
      const before = await observe();
      const ids = before?.view.members.map((member) => member.id);
      // WHEN
      cluster.start('m2', 'new', INITIAL, token);
      // THEN: the same three member ids, all started and healthy under one leader.
      const joined = await waitFor(
        async () => {
          const observation = await observe();
          return observation?.view.members.every((member) => member.healthy && member.started) && observation;
        },
        { what: 'm2 to join the cluster m0 and m1 formed', timeoutMs: 30_000 },
      );
      assert.deepEqual(
        joined.view.members.map((member) => member.id),
        ids,
      );
      assert.equal(joined.view.members.length, 3);
    });
  });
}
