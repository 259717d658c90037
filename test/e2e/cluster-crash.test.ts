// The controller killed (SIGKILL, by the test-only crash switch ETCD_GITOPS_TEST_CRASH_AFTER) right after each step
// of a new cluster's static bootstrap (docs/design/bootstrap.md; its seed PVCs, then its seed Pods, each made in one
// pass, under quotas that refuse all but one PVC, then the third Pod), of a remove and of a learner add, as its own
// process on the local Kubernetes; each kill leaves exactly the state of that step, and a controller started again
// without the switch converges: the right member count, and etcd's member list, the member Pods and the PVCs name
// the same members (no orphan member). From the moment the cluster serves, a writer records every acknowledged
// write; none may be lost through the kills, the shrink and the growth.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CoreV1Api } from '@kubernetes/client-node';
import { clientURL } from '../../constructs/conventions/index.js';
import { listMembers, memberStatus, moveLeader } from '../../controller/etcd/members.js';
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
  /** Runs a controller without the switch until the cluster is Ready at `size` with as many Pods and PVCs, and
   *  `settled` (what else must be done) holds. */
  async function converge(
    size: number,
    settled: { what: string; holds: () => Promise<boolean> } = { what: '', holds: async () => true },
  ): Promise<Membership> {
    const run = await controllers.start();
    try {
      await cluster.readyAt(size);
      return await waitFor(
        async () => {
          const membership = await cluster.membership();
          const counted = membership.pods.length === size && membership.pvcs.length === size;
          return counted && (await settled.holds()) && membership;
        },
        { what: `${size} Pods and PVCs${settled.what}`, timeoutMs: 60_000, intervalMs: 500 },
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

  const annotation = (object: { metadata?: { annotations?: Record<string, string> } }, key: string) =>
    object.metadata?.annotations?.[`etcd.gitops.dev/${key}`];
  const readPvc = (member: string) =>
    core().readNamespacedPersistentVolumeClaim({ namespace: ns, name: `${member}-data` });
  const readPod = (member: string) => core().readNamespacedPod({ namespace: ns, name: member });
  const initial = [member(0), member(1), member(2)];
  /** The member names of a Pod's `--initial-cluster` (its annotation: `name=peerURL,...`). */
  const initialClusterOf = (pod: { metadata?: { annotations?: Record<string, string> } }) =>
    annotation(pod, 'initial-cluster')
      ?.split(',')
      .map((entry) => entry.split('=')[0]);
  let token = '';

  /** Creates a ResourceQuota and waits until the quota controller has counted the namespace against it. */
  async function quota(quotaName: string, hard: Record<string, string>): Promise<void> {
    await core().createNamespacedResourceQuota({
      namespace: ns,
      body: { metadata: { name: quotaName }, spec: { hard } },
    });
    await waitFor(
      async () => {
        const status = (await core().readNamespacedResourceQuota({ namespace: ns, name: quotaName })).status;
        return Object.entries(hard).every(
          ([key, value]) => status?.hard?.[key] === value && status.used?.[key] !== undefined,
        );
      },
      {
        what: `the quota controller to count the namespace against ${quotaName}`,
        timeoutMs: 30_000,
        intervalMs: 200,
      },
    );
  }

  // A new cluster: its whole initial membership, recorded on the seed PVCs first (docs/design/bootstrap.md), all of
  // them in one pass (CreatePVCs). A ResourceQuota that admits one PVC refuses the other two: the one made carries the
  // whole record, and the next pass reads it from there.
  test('GIVEN a new size-3 cluster and a ResourceQuota that admits one PVC WHEN a controller creates the seed PVCs THEN one PVC records the token and all three initial members, the quota refuses the other two in the same pass (one log line names both), and no Pod is made', async () => {
    await quota('one-pvc', { persistentvolumeclaims: '1' });
    const run = await controllers.start();
    try {
      const made = await waitFor(
        async () => {
          const names = await pvcs();
          return names.length === 1 && (names[0] as string);
        },
        { what: 'one seed PVC', timeoutMs: 60_000, intervalMs: 200 },
      );
      // One pass sent all three writes: a single failure names both refusals.
      const refused = initial.map((name) => `${name}-data`).filter((pvcName) => pvcName !== made);
      await waitFor(
        async () =>
          run.process
            .logTail(200)
            .split('\n')
            .some(
              (line) => /exceeded quota/.test(line) && refused.every((pvcName) => line.includes(pvcName)),
            ),
        {
          what: `one controller log line with the quota refusing both ${refused.join(' and ')}`,
          timeoutMs: 30_000,
          intervalMs: 500,
        },
      );
      const pvc = await core().readNamespacedPersistentVolumeClaim({ namespace: ns, name: made });
      token = annotation(pvc, 'cluster-token') ?? '';
      assert.match(token, /^crash-/);
      assert.equal(annotation(pvc, 'initial-members'), initial.join(','));
      assert.deepEqual(await pvcs(), [made], 'still one PVC');
      assert.deepEqual(await pods(), [], 'no Pod before every seed PVC exists');
    } finally {
      await run.process.stop();
    }
  });

  test('WHEN the quota is gone and the controller is killed after the next CreatePVCs THEN all three have PVCs with that same token and membership, and no Pod exists', async () => {
    await core().deleteNamespacedResourceQuota({ namespace: ns, name: 'one-pvc' });
    await crashAfter('CreatePVCs');
    for (const name of initial) {
      const pvc = await readPvc(name);
      assert.equal(annotation(pvc, 'cluster-token'), token, `${name}'s token`);
      assert.equal(annotation(pvc, 'initial-members'), initial.join(','), `${name}'s membership`);
    }
    assert.deepEqual(
      (await pvcs()).sort(),
      initial.map((name) => `${name}-data`),
    );
    assert.deepEqual(await pods(), []);
  });

  // Every seed Pod is created in one pass (CreatePods). A ResourceQuota that admits two Pods refuses the third: the
  // two form the cluster without it, the late member of a static bootstrap (docs/design/bootstrap.md).
  let late = '';
  test('GIVEN a ResourceQuota that admits two Pods WHEN a controller creates the seed Pods THEN two start new with that token and all three in their initial cluster, the quota refuses the third, and the two form the cluster without it, which etcd names but which never served', async () => {
    await quota('two-pods', { pods: '2' });
    const run = await controllers.start();
    try {
      const created = await waitFor(
        async () => {
          const names = (await pods()).sort();
          return names.length === 2 && (names as string[]);
        },
        { what: 'two seed Pods', timeoutMs: 60_000, intervalMs: 200 },
      );
      late = initial.find((candidate) => !created.includes(candidate)) as string;
      for (const seed of created) {
        const pod = await readPod(seed);
        assert.equal(annotation(pod, 'cluster-token'), token, `${seed}'s token`);
        assert.equal(annotation(pod, 'initial-cluster-state'), 'new', `${seed}'s state`);
        assert.deepEqual(initialClusterOf(pod), initial, `${seed}'s initial cluster`);
      }
      await waitFor(async () => /exceeded quota/.test(run.process.logTail(200)), {
        what: `the controller to log the quota refusing ${late}'s Pod`,
        timeoutMs: 30_000,
        intervalMs: 500,
      });
      // The majority elects a leader while the third Pod is refused.
      const url = clientURL(name, ns, created[0] as string, 'http');
      const leaderOf = async () => (await memberStatus(url).catch(() => undefined))?.leaderId;
      await waitFor(async () => ((await leaderOf()) ?? '0') !== '0', {
        what: `${created.join(' and ')} to elect a leader`,
        timeoutMs: 90_000,
        intervalMs: 500,
      });
      const entry = (await listMembers(url)).members.find((candidate) => candidate.name === late);
      assert.ok(entry, `${late} is named in etcd's member list before it ever ran`);
      assert.deepEqual(entry.clientURLs, [], `${late} has never served`);
      assert.deepEqual((await pods()).sort(), created, `still no Pod for ${late}`);
    } finally {
      await run.process.stop();
    }
  });

  test('WHEN the quota is gone and the controller is killed after the next CreatePod THEN the late member gets its Pod with existing (it joins the formed cluster) and the same three members', async () => {
    await core().deleteNamespacedResourceQuota({ namespace: ns, name: 'two-pods' });
    await crashAfter('CreatePod');
    const pod = await readPod(late);
    assert.equal(annotation(pod, 'initial-cluster-state'), 'existing');
    assert.deepEqual(initialClusterOf(pod), initial);
  });

  test('WHEN killed after MarkExisting THEN the lower of the two that served says existing, the other still new, the late member existing, and etcd has the three initial members', async () => {
    await crashAfter('MarkExisting');
    writer = startWriter(cluster.clientURL, 'crash/'); // the cluster formed: MarkExisting needs a healthy member
    const states = await Promise.all(
      initial.map(async (name) => annotation(await readPod(name), 'initial-cluster-state')),
    );
    const marked = initial.find((candidate) => candidate !== late);
    assert.deepEqual(
      states,
      initial.map((candidate) => (candidate === late || candidate === marked ? 'existing' : 'new')),
      `initial-cluster-state of ${initial.join(', ')} (${late} late)`,
    );
    assert.deepEqual((await cluster.membership()).etcd, initial);
  });

  test('WHEN a controller runs without the switch THEN three voters, Ready, every member marked existing, etcd members == Pods == PVCs', async () => {
    const states = async () =>
      Promise.all(initial.map(async (name) => annotation(await readPod(name), 'initial-cluster-state')));
    const membership = await converge(3, {
      what: ', every member marked existing',
      holds: async () => (await states()).every((state) => state === 'existing'),
    });
    assert.deepEqual(membership.etcd, initial);
    assert.deepEqual(podNames(membership), initial);
    assert.deepEqual(
      membership.pvcs,
      initial.map((n) => `${n}-data`),
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

  test('WHEN a controller runs without the switch THEN one member, Ready, etcd members == Pods == PVCs', async () => {
    const membership = await converge(1);
    assert.deepEqual(membership.etcd, [member(0)]);
    assert.deepEqual(podNames(membership), [member(0)]);
    assert.deepEqual(membership.pvcs, [`${member(0)}-data`]);
  });

  // Growth of a cluster that holds data: one learner at a time.
  test('GIVEN size 3 asked of the one member WHEN killed after AddLearner THEN etcd has an unstarted learner crash-1 and it has no PVC or Pod', async () => {
    await cluster.scale(3);
    await crashAfter('AddLearner');
    const membership = await cluster.membership();
    assert.deepEqual(membership.etcd, [member(0), member(1)]);
    assert.deepEqual(await pods(), [member(0)]);
    assert.deepEqual(await pvcs(), [`${member(0)}-data`]);
  });

  test('WHEN killed after the joiner’s CreatePVC THEN crash-1 has a PVC without a token, and no Pod', async () => {
    await crashAfter('CreatePVC');
    assert.deepEqual((await pvcs()).sort(), [`${member(0)}-data`, `${member(1)}-data`]);
    assert.equal(annotation(await readPvc(member(1)), 'cluster-token'), undefined);
    assert.deepEqual(await pods(), [member(0)]);
  });

  test('WHEN killed after the joiner’s CreatePod THEN crash-1 has a Pod with state existing', async () => {
    await crashAfter('CreatePod');
    assert.equal(annotation(await readPod(member(1)), 'initial-cluster-state'), 'existing');
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

  test('WHEN a controller runs without the switch THEN three voters, Ready, etcd members == Pods == PVCs, and no acknowledged write is lost', async () => {
    const membership = await converge(3);
    assert.deepEqual(membership.etcd, initial);
    assert.deepEqual(podNames(membership), initial);
    assert.deepEqual(
      membership.pvcs,
      initial.map((n) => `${n}-data`),
    );
    await writer?.stop();
    assert.ok((writer?.acknowledged() ?? 0) > 0, 'the writer got writes acknowledged');
    assert.deepEqual(await writer?.lost(), [], 'no acknowledged write lost');
  });
});
