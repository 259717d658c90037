// A wiped seed restarted with `--initial-cluster-state=new` forms a one-member cluster of its own and answers at
// the seed's URL. The observation must never take that impostor for the cluster, even when as many impostors
// as real members answer: the cluster id recorded in status pins it (real etcd 3.6 processes).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { addLearner } from '../../controller/etcd/members.js';
import { observeEtcd } from '../../controller/etcdcluster/observe-etcd.js';
import { waitFor } from '../env/wait.js';
import { createTestCluster, type TestCluster } from './helpers/membership-etcd.js';

describe('etcd observation with an impostor at a member URL', () => {
  let real: TestCluster;
  let impostor: TestCluster;
  let realClusterId: string;
  // The impostor answers first, at the URL of m1 (a learner of the real cluster that never started).
  const endpoints = () => [
    { member: 'm1', clientURL: impostor.members.get('x0')?.clientURL as string },
    { member: 'm0', clientURL: real.members.get('m0')?.clientURL as string },
  ];
  const memberOf = (url: string) => real.memberOf(url);

  before(async () => {
    [real, impostor] = await Promise.all([createTestCluster('3.6'), createTestCluster('3.6')]);
    await real.reserve('m0');
    const m1 = await real.reserve('m1');
    await impostor.reserve('x0');
    real.start('m0', 'new', ['m0'], 'real');
    impostor.start('x0', 'new', ['x0'], 'impostor');
    const first = await waitFor(
      async () => {
        const observation = await observeEtcd(
          [endpoints()[1] as { member: string; clientURL: string }],
          memberOf,
        );
        return observation?.view.quorum && observation;
      },
      { what: 'the real seed healthy', timeoutMs: 30_000 },
    );
    realClusterId = first.clusterId;
    await addLearner(real.members.get('m0')?.clientURL as string, m1.peerURL);
    const x0 = { member: 'x0', clientURL: impostor.members.get('x0')?.clientURL as string };
    await waitFor(async () => (await observeEtcd([x0], () => 'x0'))?.view.quorum, {
      what: 'the impostor healthy',
      timeoutMs: 30_000,
    });
  });
  after(async () => {
    await Promise.all([real?.stop(), impostor?.stop()]);
  });

  test('GIVEN a 1-to-1 tie between the impostor and the real seed WHEN observed with the recorded cluster id THEN the real cluster is observed and m1 is an impostor', async () => {
    const observation = await observeEtcd(endpoints(), memberOf, realClusterId);
    assert.equal(observation?.clusterId, realClusterId);
    assert.deepEqual(
      observation?.view.members.map((member) => [member.member, member.healthy, member.wrongIdentity]),
      [
        ['m0', true, false],
        ['m1', false, true],
      ],
    );
    assert.equal(observation?.view.quorum, true);
  });

  test('fails when only the impostor answers: no observation rather than the impostor’s cluster', async () => {
    const observation = await observeEtcd([endpoints()[0] as never], memberOf, realClusterId);
    assert.equal(observation, undefined);
  });
});
