// A NOSPACE alarm outlives the member it was raised for, against real etcd 3.6, 3.5 and 3.4 (docs/design/
// compaction-quota-defrag.md, "Alarms of removed members"): a fourth member with a quota of its own fills up,
// raises the alarm for itself, and is removed; the three left, far below their quota, still refuse writes. The
// observation carries the alarm with a member id the member list no longer holds, the planner's input of step
// 9.3; the executor's `disarmAlarm` for that id and NOSPACE clears it, and writes succeed again.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { withClient } from '../../controller/etcd/client.js';
import {
  addLearner,
  disarmAlarm,
  listAlarms,
  promoteMember,
  removeMember,
} from '../../controller/etcd/members.js';
import { observeEtcd } from '../../controller/etcdcluster/observe-etcd.js';
import { waitFor } from '../env/wait.js';
import { createTestCluster, type TestCluster } from './helpers/membership-etcd.js';

const SMALL_QUOTA = 4 * 2 ** 20;
const VALUE_BYTES = 256 * 1024;
const NOSPACE_MESSAGE = /etcdserver: mvcc: database space exceeded/;

for (const version of ['3.6', '3.5', '3.4'] as const) {
  describe(`etcd ${version}: the NOSPACE alarm of a removed member`, () => {
    let cluster: TestCluster;
    const names = ['m0', 'm1', 'm2'];
    const url = (name: string) => cluster.members.get(name)?.clientURL as string;
    const put = (name: string, key: string) =>
      withClient(url(name), async (client) => {
        await client.put(key).value(randomBytes(VALUE_BYTES));
      }).then(
        () => undefined,
        (error: Error) => error,
      );
    const observe = () =>
      observeEtcd(
        names.map((name) => ({ member: name, clientURL: url(name) })),
        (peerURL) => cluster.memberOf(peerURL),
      );
    let fullId = '';

    before(async () => {
      cluster = await createTestCluster(version);
      for (const name of [...names, 'm3']) await cluster.reserve(name);
      for (const name of names) cluster.start(name, 'new', names, `stale-alarm-${version}`);
      await cluster.waitForLeader(names);
      // etcd refuses a member add until its members have been connected a while ("unhealthy cluster"): retried.
      const added = await waitFor(() => addLearner(url('m0'), cluster.members.get('m3')?.peerURL as string), {
        what: 'm3 added as a learner',
        timeoutMs: 30_000,
      });
      assert.equal(added.outcome, 'added');
      fullId = added.outcome === 'added' ? added.member.id : '';
      cluster.start('m3', 'existing', [...names, 'm3'], `stale-alarm-${version}`, {
        extraArgs: [`--quota-backend-bytes=${SMALL_QUOTA}`],
      });
      await waitFor(async () => (await promoteMember(url('m0'), fullId)) === 'promoted', {
        what: 'm3 promoted',
        timeoutMs: 30_000,
      });
    });
    after(async () => {
      await cluster?.stop();
    });

    test('GIVEN a member with a small quota filled until it refuses WHEN it is removed THEN its alarm stays and the members left refuse writes', async () => {
      let refused: Error | undefined;
      for (let writes = 0; writes < 200 && !refused; writes++) refused = await put('m3', `key-${writes % 4}`);
      assert.ok(refused, 'm3 refused a write within 200 writes of 256 KiB');
      assert.match(refused.message, NOSPACE_MESSAGE);
      assert.deepEqual(await listAlarms(url('m0')), [{ memberId: fullId, alarm: 'NOSPACE' }]);

      assert.equal(await removeMember(url('m0'), fullId), 'removed');
      await cluster.kill('m3');

      assert.deepEqual(await listAlarms(url('m0')), [{ memberId: fullId, alarm: 'NOSPACE' }]);
      const stillRefused = await put('m1', 'after-removal');
      assert.match(stillRefused?.message ?? 'the write succeeded', NOSPACE_MESSAGE);
    });

    test('GIVEN that removed member WHEN the cluster is observed THEN the alarm names a member id the member list does not hold', async () => {
      const observation = await observe();
      assert.equal(observation?.view.quorum, true);
      assert.deepEqual(observation?.view.alarms, [{ memberId: fullId, alarm: 'NOSPACE' }]);
      assert.deepEqual(
        observation?.view.members.map((member) => member.member),
        names,
        'only m0..m2 are members',
      );
      assert.ok(!observation?.view.members.some((member) => member.id === fullId));
    });

    test('GIVEN that alarm WHEN disarmAlarm clears it for that member id THEN no alarm is left and writes succeed', async () => {
      await disarmAlarm(url('m0'), fullId, 'NOSPACE');
      assert.deepEqual(await listAlarms(url('m2')), []);
      for (const name of names) assert.equal(await put(name, `after-disarm-${name}`), undefined);
    });
  });
}
