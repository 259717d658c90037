// The controller killed (SIGKILL, by the test-only crash switch ETCD_GITOPS_TEST_CRASH_AFTER) right after each step
// of an add and of a remove, as its own process on the local Kubernetes; each kill leaves exactly the state of that
// step, and a controller started again without the switch converges: the right member count, and etcd's member
// list, the member Pods and the PVCs name the same members (no orphan member). From the moment the seed serves, a
// writer records every acknowledged write; none may be lost through the kills, the growth and the shrink.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CoreV1Api } from '@kubernetes/client-node';
import { clientURL } from '../../constructs/conventions/index.js';
import { memberStatus, moveLeader } from '../../controller/etcd/members.js';
import { etcdVersions } from '../env/binaries.js';
import { type Environment, startEnvironment } from '../env/environment.js';
import { waitFor } from '../env/wait.js';
import {
  type ControllerProcesses,
  controllerProcesses,
} from '../integration/helpers/membership-controller.js';
import {
  type ClusterHandle,
  createClusterHandle,
  type Membership,
  podNames,
  prepareNamespace,
} from '../integration/helpers/membership-kube.js';
import { startWriter, type Writer } from '../integration/helpers/membership-writer.js';

const ns = 'cluster-crash';
const name = 'crash';
const member = (n: number) => `${name}-${n}`;

describe('EtcdCluster membership with the controller killed at every step', () => {
  let env: Environment;
  let controllers: ControllerProcesses;
  let cluster: ClusterHandle;
  let writer: Writer | undefined;
  const core = () => env.kubeConfig.makeApiClient(CoreV1Api);

  const crashAfter = (step: string) => controllers.crashAfter(step);
  async function converge(size: number): Promise<Membership> {
    const run = await controllers.start();
    try {
      await cluster.readyAt(size);
      return await waitFor(
        async () => {
          const membership = await cluster.membership();
          return membership.pods.length === size && membership.pvcs.length === size && membership;
        },
        { what: `${size} Pods and PVCs`, timeoutMs: 60_000, intervalMs: 500 },
      );
    } finally {
      await run.process.stop();
    }
  }
  const pods = async () =>
    (await core().listNamespacedPod({ namespace: ns })).items
      .filter((pod) => !pod.metadata?.deletionTimestamp)
      .map((pod) => pod.metadata?.name);
  const pvcs = async () =>
    (await core().listNamespacedPersistentVolumeClaim({ namespace: ns })).items
      .filter((pvc) => !pvc.metadata?.deletionTimestamp)
      .map((pvc) => pvc.metadata?.name);

  before(async () => {
    env = await startEnvironment({ nodes: 3 });
    await prepareNamespace(env, ns);
    cluster = await createClusterHandle(env, ns, name);
    controllers = await controllerProcesses(env, { namespaces: [ns] });
    await cluster.apply({
      size: 3,
      version: etcdVersions['3.6'],
      persistentVolumeClaimRetentionPolicy: { whenScaled: 'Delete' },
    });
  });
  after(async () => {
    await writer?.stop();
    await controllers?.stop();
    await env?.stop();
  });

  test('GIVEN a size-3 cluster WHEN killed after the seed CreatePVC THEN the seed PVC carries the token and no Pod exists', async () => {
    await crashAfter('CreatePVC');
    const pvc = await core().readNamespacedPersistentVolumeClaim({
      namespace: ns,
      name: `${member(0)}-data`,
    });
    assert.match(pvc.metadata?.annotations?.['etcd.gitops.dev/cluster-token'] ?? '', /^crash-/);
    assert.deepEqual(await pods(), []);
  });

  test('WHEN killed after the seed CreatePod THEN the seed Pod exists with that token', async () => {
    await crashAfter('CreatePod');
    const pod = await core().readNamespacedPod({ namespace: ns, name: member(0) });
    const pvc = await core().readNamespacedPersistentVolumeClaim({
      namespace: ns,
      name: `${member(0)}-data`,
    });
    assert.equal(
      pod.metadata?.annotations?.['etcd.gitops.dev/cluster-token'],
      pvc.metadata?.annotations?.['etcd.gitops.dev/cluster-token'],
    );
  });

  test('WHEN killed after MarkExisting THEN the seed Pod says existing and etcd has only the seed', async () => {
    await crashAfter('MarkExisting');
    writer = startWriter(cluster.clientURL, 'crash/'); // the seed served: MarkExisting needs a healthy seed
    const pod = await core().readNamespacedPod({ namespace: ns, name: member(0) });
    assert.equal(pod.metadata?.annotations?.['etcd.gitops.dev/initial-cluster-state'], 'existing');
    assert.deepEqual((await cluster.membership()).etcd, [member(0)]);
  });

  test('WHEN killed after AddLearner THEN etcd has an unstarted learner crash-1 and it has no PVC or Pod', async () => {
    await crashAfter('AddLearner');
    const membership = await cluster.membership();
    assert.deepEqual(membership.etcd, [member(0), member(1)]);
    assert.deepEqual(await pods(), [member(0)]);
    assert.deepEqual(await pvcs(), [`${member(0)}-data`]);
  });

  test('WHEN killed after the joiner’s CreatePVC THEN crash-1 has a PVC and no Pod', async () => {
    await crashAfter('CreatePVC');
    assert.deepEqual((await pvcs()).sort(), [`${member(0)}-data`, `${member(1)}-data`]);
    assert.deepEqual(await pods(), [member(0)]);
  });

  test('WHEN killed after the joiner’s CreatePod THEN crash-1 has a Pod with state existing', async () => {
    await crashAfter('CreatePod');
    const pod = await core().readNamespacedPod({ namespace: ns, name: member(1) });
    assert.equal(pod.metadata?.annotations?.['etcd.gitops.dev/initial-cluster-state'], 'existing');
  });

  test('WHEN killed after PromoteLearner THEN crash-1 is a voter', async () => {
    await crashAfter('PromoteLearner');
    // The member just promoted may take a moment to answer on a loaded machine: retry the read, not the claim.
    const status = await waitFor(() => memberStatus(clientURL(name, ns, member(1), 'http')), {
      what: `${member(1)} to answer its status`,
      timeoutMs: 30_000,
      intervalMs: 500,
    });
    assert.equal(status.isLearner, false);
  });

  test('WHEN a controller runs without the switch THEN three voters, Ready, etcd members == Pods == PVCs', async () => {
    const membership = await converge(3);
    const names = [member(0), member(1), member(2)];
    assert.deepEqual(membership.etcd, names);
    assert.deepEqual(podNames(membership), names);
    assert.deepEqual(
      membership.pvcs,
      names.map((n) => `${n}-data`),
    );
  });

  test('GIVEN crash-2 leads and size 1 is asked WHEN killed after MoveLeader THEN crash-2 no longer leads', async () => {
    const before = await cluster.membership();
    const victim = before.ids.get(member(2)) as string;
    const leader = (await memberStatus(clientURL(name, ns, member(0), 'http'))).leaderId;
    const leaderName = [...before.ids].find(([, id]) => id === leader)?.[0] as string;
    if (leader !== victim) await moveLeader(clientURL(name, ns, leaderName, 'http'), victim);
    await waitFor(
      async () => (await memberStatus(clientURL(name, ns, member(0), 'http'))).leaderId === victim,
      {
        what: 'crash-2 leading',
        timeoutMs: 30_000,
      },
    );
    await cluster.scale(1);
    await crashAfter('MoveLeader');
    const now = await memberStatus(clientURL(name, ns, member(0), 'http'));
    assert.notEqual(now.leaderId, victim);
  });

  test('WHEN killed after RemoveMember THEN crash-2 is out of etcd and its Pod is left (an orphan Pod, not an orphan member)', async () => {
    await crashAfter('RemoveMember');
    assert.deepEqual((await cluster.membership()).etcd, [member(0), member(1)]);
    assert.ok((await pods()).includes(member(2)));
  });

  test('WHEN killed after DeletePod THEN crash-2’s Pod goes and its PVC is still there', async () => {
    await crashAfter('DeletePod');
    await waitFor(async () => !(await pods()).includes(member(2)), {
      what: 'crash-2 Pod gone',
      timeoutMs: 60_000,
      intervalMs: 500,
    });
    assert.ok((await pvcs()).includes(`${member(2)}-data`));
  });

  test('WHEN killed after DeletePVC (whenScaled: Delete) THEN crash-2’s PVC is gone', async () => {
    await crashAfter('DeletePVC');
    await waitFor(async () => !(await pvcs()).includes(`${member(2)}-data`), {
      what: 'crash-2 PVC gone',
      timeoutMs: 60_000,
      intervalMs: 500,
    });
  });

  test('WHEN a controller runs without the switch THEN one member, Ready, etcd members == Pods == PVCs, and no acknowledged write is lost', async () => {
    const membership = await converge(1);
    assert.deepEqual(membership.etcd, [member(0)]);
    assert.deepEqual(podNames(membership), [member(0)]);
    assert.deepEqual(membership.pvcs, [`${member(0)}-data`]);
    await writer?.stop();
    assert.ok((writer?.acknowledged() ?? 0) > 0, 'the writer got writes acknowledged');
    assert.deepEqual(await writer?.lost(), [], 'no acknowledged write lost');
  });
});
