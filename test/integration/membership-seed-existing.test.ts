// Why the controller marks a seed `existing` once it has served (docs/design/membership.md, "The member record"):
// with `ETCD_INITIAL_CLUSTER_STATE=existing` and an `ETCD_INITIAL_CLUSTER` naming only itself, a seed whose data dir
// was lost exits with an error instead of bootstrapping an empty cluster under the same ids (real etcd 3.4, 3.5, 3.6).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { addLearner, promoteMember } from '../../controller/etcd/members.js';
import { observeEtcd } from '../../controller/etcdcluster/observe-etcd.js';
import { waitFor } from '../env/wait.js';
import { createTestCluster, type TestCluster } from './helpers/membership-etcd.js';

for (const version of ['3.6', '3.5', '3.4'] as const) {
  describe(`etcd ${version}: a seed marked existing that lost its data`, () => {
    let cluster: TestCluster;
    const url = (name: string) => cluster.members.get(name)?.clientURL as string;
    const observe = (name: string) =>
      observeEtcd([{ member: name, clientURL: url(name) }], (peer) => cluster.memberOf(peer));

    before(async () => {
      cluster = await createTestCluster(version);
      for (const name of ['m0', 'm1']) await cluster.reserve(name);
      cluster.start('m0', 'new', ['m0'], `seed-${version}`);
      await waitFor(async () => (await observe('m0'))?.view.quorum, {
        what: 'the seed healthy',
        timeoutMs: 30_000,
      });
      await addLearner(url('m0'), cluster.members.get('m1')?.peerURL as string);
      cluster.start('m1', 'existing', ['m0', 'm1']);
      const m1 = await waitFor(
        async () => (await observe('m0'))?.view.members.find((member) => member.member === 'm1')?.id,
        { what: 'm1 in the member list', timeoutMs: 30_000 },
      );
      await waitFor(async () => (await promoteMember(url('m0'), m1)) === 'promoted', {
        what: 'm1 promoted',
        timeoutMs: 30_000,
        intervalMs: 250,
      });
    });
    after(async () => {
      await cluster?.stop();
    });

    test('GIVEN two voters WHEN the seed loses its data dir and restarts as existing THEN etcd exits with an error and never answers', async () => {
      await cluster.kill('m0');
      await cluster.wipe('m0');
      // WHEN: what the Pod's environment says after MarkExisting: existing, the seed's own initial cluster.
      const seed = cluster.start('m0', 'existing', ['m0']);
      // THEN
      await waitFor(() => seed.process?.exitStatus(), {
        what: `etcd ${version} to exit rather than run on an empty data dir`,
        timeoutMs: 30_000,
      });
      const exit = await (seed.process as NonNullable<typeof seed.process>).exited;
      assert.equal(exit.signal, null, seed.process?.logTail(10));
      assert.notEqual(exit.code, 0, seed.process?.logTail(10));
      assert.match(seed.process?.logTail(20) ?? '', /cluster info|peer urls|member/i);
      assert.equal(await observe('m0'), undefined, 'nothing answers at the seed’s URL');
    });
  });
}
