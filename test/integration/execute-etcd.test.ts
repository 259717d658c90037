// The membership executor's etcd half against a real etcd 3.6 seed: what it asks the queue for after each answer.
// A change etcd accepted runs the next step at once (no Kubernetes event will wake the controller for it: the
// bootstrap timeline on the real nodes lost a second after every AddLearner to the old `soon` requeue); a change
// etcd refuses for now comes back `soon`, with the reason. A joiner's PVC and Pod follow its AddLearner in the same
// pass only when etcd's member list is the one planned.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import pino from 'pino';
import type { EtcdCluster } from '../../controller/etcdcluster/api.js';
import { execute } from '../../controller/etcdcluster/execute.js';
import type { ExecuteContext } from '../../controller/etcdcluster/execute-context.js';
import { observeEtcd } from '../../controller/etcdcluster/observe-etcd.js';
import { REQUEUE } from '../../controller/etcdcluster/plan.js';
import { CLUSTER_REASONS } from '../../controller/etcdcluster/reasons.js';
import { createTestCluster, type TestCluster } from './helpers/membership-etcd.js';

const cluster: EtcdCluster = {
  apiVersion: 'etcd.gitops.dev/v1alpha1',
  kind: 'EtcdCluster',
  metadata: { name: 'main', namespace: 'ns', uid: 'u-1' },
  spec: { size: 3, version: '3.6.16' },
};

describe('the membership executor against a real etcd 3.6 seed', () => {
  let etcd: TestCluster;
  const performed: string[] = [];

  const context = async (): Promise<ExecuteContext> => {
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromOptions({
      clusters: [{ name: 'none', server: 'https://127.0.0.1:1' }],
      users: [{ name: 'none' }],
      contexts: [{ name: 'none', cluster: 'none', user: 'none' }],
      currentContext: 'none',
    });
    const endpoints = [...etcd.members.values()]
      .filter((member) => member.process)
      .map((member) => ({ member: member.name, clientURL: member.clientURL }));
    return {
      cluster,
      kubeConfig,
      core: kubeConfig.makeApiClient(CoreV1Api),
      etcd: await observeEtcd(endpoints, (url) => etcd.memberOf(url)),
      log: pino({ level: 'silent' }),
      crash: { after: (kind) => performed.push(kind) },
      image: 'unused',
    };
  };

  before(async () => {
    etcd = await createTestCluster('3.6');
    await etcd.reserve('main-0');
    etcd.start('main-0', 'new', ['main-0'], 'execute-test');
    await etcd.waitForLeader(['main-0']);
  });
  after(async () => {
    await etcd?.stop();
  });

  // The seed's peer URL here is a loopback address, not the `main-0.main-peer.ns.svc` URL a member Pod would have:
  // etcd's member list after the add is not the planned `--initial-cluster`, so the joiner's PVC and Pod are left to
  // the next pass (membership.md, "A joiner in one pass", 2). The API server address answers nothing: a write would
  // be refused and the pass would come back `soon`.
  test('WHEN etcd accepts AddLearner and its member list is not the planned initial cluster THEN no PVC or Pod is written and the next step is asked for at once, with the one MemberAdded Event', async () => {
    const initialCluster = ['main-0', 'main-1'];
    const outcome = await execute(
      {
        kind: 'AddLearner',
        member: 'main-1',
        join: {
          pvc: { kind: 'CreatePVC', member: 'main-1' },
          pod: { kind: 'CreatePod', member: 'main-1', reason: 'join', state: 'existing', initialCluster },
        },
      },
      await context(),
    );
    assert.equal(outcome.requeueAfterMs, REQUEUE.now);
    assert.deepEqual(
      outcome.events?.map((event) => event.reason),
      [CLUSTER_REASONS.memberAdded],
    );
    assert.equal(outcome.notYet, undefined);
    assert.deepEqual(performed, ['AddLearner']);
  });

  test('WHEN etcd refuses to promote a learner that has not started THEN it is retried in REQUEUE.busy, with the reason, and nothing counts as performed', async () => {
    const ctx = await context();
    const learner = ctx.etcd?.view.members.find((member) => member.learner);
    assert.ok(learner, JSON.stringify(ctx.etcd?.view.members));
    const outcome = await execute({ kind: 'PromoteLearner', member: 'main-1', id: learner.id }, ctx);
    assert.equal(outcome.requeueAfterMs, REQUEUE.busy);
    assert.equal(outcome.notYet, 'learner not caught up yet');
    assert.deepEqual(performed, ['AddLearner']);
  });
});
