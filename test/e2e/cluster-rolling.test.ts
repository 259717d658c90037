// Rolling changes on the local Kubernetes (docs/design/rolling-update.md): a size-3 cluster upgraded 3.4 → 3.5 → 3.6
// and given new resources, each rolled one member at a time by the controller process while a writer runs, the
// 3.5 → 3.6 roll with the controller SIGKILLed after each of its steps; a bad etcd flag stops the roll at its first
// member (RollingUpdateFailed) and a fixed spec converges. Throughout, a monitor asks every member for its leader
// every 500 ms (quorum), watches the member Pods (never more than one down) and records every status the
// controller writes (currentVersion only moves at the end); a recorder (status-recorder.ts) keeps each status with
// the test's stage, and each must read, for Argo CD, kstatus and Flux, as its stage expects
// (test/health/expectations.ts, scenario rolling-update).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CoreV1Api, PolicyV1Api, type V1Pod } from '@kubernetes/client-node';
import {
  ANNOTATION_POD_REVISION,
  clientURL,
  clusterLabels,
  memberSelector,
  memberSelectorString,
} from '../../constructs/conventions/index.js';
import { memberStatus, moveLeader } from '../../controller/etcd/members.js';
import type { EtcdCluster } from '../../controller/etcdcluster/api.js';
import { etcdVersions } from '../env/binaries.js';
import { type Environment, startEnvironment } from '../env/environment.js';
import { judgeLeaders, LeaderGap } from '../env/leader-gap.js';
import { waitFor } from '../env/wait.js';
import { assertHealthAsExpected } from '../health/judge.js';
import {
  type ControllerProcesses,
  type ControllerRun,
  controllerProcesses,
} from '../integration/helpers/membership-controller.js';
import {
  type ClusterHandle,
  createClusterHandle,
  prepareNamespace,
} from '../integration/helpers/membership-kube.js';
import { startWriter, type Writer } from '../integration/helpers/membership-writer.js';
import { recordStatuses, type StatusRecorder } from './status-recorder.js';

const ns = 'cluster-rolling';
const name = 'roll';
const MEMBERS = [0, 1, 2].map((n) => `${name}-${n}`);
/**
 * etcd 3.6 refuses to replay the v2 requests etcd 3.4 wrote to the WAL (only member attributes and the cluster
 * version are allowed: "detected disallowed v2 WAL", etcd-io/etcd#20870), so a cluster that ran 3.4 must have taken a
 * raft snapshot on 3.5 before its first member starts 3.6. etcd snapshots every `--snapshot-count` applied entries
 * (100 000 by default); the test sets 100 through spec.extraFlags, as the README tells users to, and writes past it
 * on 3.5. Without it the first 3.6 member crash-loops and the roll stops there (RollingUpdateFailed).
 */
const SNAPSHOT_COUNT = 100;
const SAMPLE_MS = 500;
const NO_QUORUM_TOLERANCE_MS = 3_000;

type Status = NonNullable<EtcdCluster['status']>;

interface Monitor {
  /** Longest time in which no majority of members named one leader, in ms. */
  longestNoQuorumMs(): number;
  /** How many samples showed a majority on one leader, how many not, how many could not tell. */
  leaderSummary(): string;
  /** Fewest Ready member Pods seen in one sample. */
  fewestReadyPods(): number;
  /** Every distinct status the controller wrote, in order. */
  statuses(): Status[];
  stop(): Promise<void>;
}

function startMonitor(env: Environment, read: () => Promise<EtcdCluster>): Monitor {
  const core = env.kubeConfig.makeApiClient(CoreV1Api);
  let running = true;
  const gap = new LeaderGap();
  let fewest = Number.POSITIVE_INFINITY;
  const seen: Status[] = [];
  const loop = (async () => {
    while (running) {
      const started = Date.now();
      const pods = await core.listNamespacedPod({ namespace: ns, labelSelector: memberSelectorString(name) });
      const ready = pods.items.filter(isReady);
      fewest = Math.min(fewest, ready.length);
      // Only Ready Pods are asked (a stopped one only adds connection errors), and two of them must agree: a
      // conservative count. One that does not answer counts for neither side (test/env/leader-gap.ts).
      const leaders = await Promise.all(
        ready.map((pod) =>
          memberStatus(clientURL(name, ns, pod.metadata?.name as string, 'http')).then(
            (status) => status.leaderId,
            () => undefined,
          ),
        ),
      );
      gap.record(judgeLeaders(leaders, 2), started, Date.now());
      const status = (await read()).status;
      if (status && JSON.stringify(status) !== JSON.stringify(seen.at(-1))) seen.push(status);
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, SAMPLE_MS - (Date.now() - started))));
    }
  })();
  return {
    longestNoQuorumMs: () => gap.longestNoMajorityMs,
    leaderSummary: () => gap.summary(),
    fewestReadyPods: () => fewest,
    statuses: () => seen,
    async stop() {
      running = false;
      await loop;
    },
  };
}

function isReady(pod: V1Pod): boolean {
  return (
    !pod.metadata?.deletionTimestamp &&
    pod.status?.conditions?.some((condition) => condition.type === 'Ready' && condition.status === 'True') ===
      true
  );
}

/**
 * Waits until the disruption controller has computed the budget: with `maxUnavailable` it reads the owner's scale
 * subresource (EtcdCluster's), which it finds only once kube-controller-manager's discovery knows the CRD. A budget
 * synced before that fails safe (no eviction allowed) and the controller asks for it again by annotating a member
 * Pod (docs/design/disruption-budget.md): nothing here touches it.
 */
async function budgetComputed(env: Environment): Promise<void> {
  const policy = env.kubeConfig.makeApiClient(PolicyV1Api);
  await waitFor(
    async () => {
      const budget = await policy.readNamespacedPodDisruptionBudget({ namespace: ns, name });
      return budget.status?.expectedPods === 3 && budget.status.disruptionsAllowed === 1;
    },
    {
      what: 'the PodDisruptionBudget computed (3 expected Pods, 1 disruption allowed)',
      // The controller's first request is due 35 s after the failure, its second 35 s later.
      timeoutMs: 120_000,
      intervalMs: 1_000,
    },
  );
}

const revisionOf = (pod: V1Pod) => pod.metadata?.annotations?.[ANNOTATION_POD_REVISION];

describe('EtcdCluster rolling changes', () => {
  let env: Environment;
  let controllers: ControllerProcesses;
  let cluster: ClusterHandle;
  let writer: Writer;
  let monitor: Monitor;
  let run: ControllerRun | undefined;
  let recorder: StatusRecorder;
  const core = () => env.kubeConfig.makeApiClient(CoreV1Api);
  const spec = {
    size: 3,
    version: etcdVersions['3.4'],
    extraFlags: { 'snapshot-count': String(SNAPSHOT_COUNT) },
  } as Record<string, unknown>;

  const livePods = async () =>
    (await core().listNamespacedPod({ namespace: ns, labelSelector: memberSelectorString(name) })).items;
  /** Events of the cluster with `reason`, oldest first. */
  const events = async (reason: string) =>
    (
      await core().listNamespacedEvent({
        namespace: ns,
        fieldSelector: `involvedObject.name=${name},reason=${reason}`,
      })
    ).items.sort((a, b) =>
      String(a.firstTimestamp ?? a.eventTime).localeCompare(String(b.firstTimestamp ?? b.eventTime)),
    );
  const leaderName = async () => {
    const membership = await cluster.membership();
    const leader = (await memberStatus(clientURL(name, ns, membership.etcd[0] as string, 'http'))).leaderId;
    return [...membership.ids].find(([, id]) => id === leader)?.[0];
  };
  /** Waits until every member runs `version`, all Pods at one revision, every member updated, not progressing. */
  async function rolledTo(version: string, timeoutMs = 420_000): Promise<Status> {
    return waitFor(
      async () => {
        const object = await cluster.read();
        const status = object.status;
        const progressing = status?.conditions?.find((condition) => condition.type === 'Progressing');
        const pods = await livePods();
        const done =
          status?.observedGeneration === object.metadata.generation &&
          status?.currentVersion === version &&
          status.updatedMembers === 3 &&
          progressing?.status === 'False' &&
          pods.length === 3 &&
          pods.every((pod) => revisionOf(pod) === status.updateRevision && isReady(pod));
        return done && status;
      },
      { what: `${name} rolled to ${version}`, timeoutMs, intervalMs: 1_000 },
    );
  }

  before(async () => {
    env = await startEnvironment({ nodes: 3 });
    await prepareNamespace(env, ns);
    recorder = await recordStatuses(env, {
      namespace: ns,
      scenario: 'rolling-update',
      source: 'test/e2e/cluster-rolling.test.ts',
      firstStage: 'creating',
    });
    cluster = await createClusterHandle(env, ns, name);
    // The PodDisruptionBudget the constructs synthesize for every cluster (constructs/etcd-cluster.ts), labels too.
    await env.kubeConfig.makeApiClient(PolicyV1Api).createNamespacedPodDisruptionBudget({
      namespace: ns,
      body: {
        metadata: { name, labels: clusterLabels(name) },
        spec: { maxUnavailable: 1, selector: { matchLabels: memberSelector(name) } },
      },
    });
    controllers = await controllerProcesses(env, { namespaces: [ns] });
    run = await controllers.start();
    await cluster.apply(spec);
    await cluster.readyAt(3);
    await budgetComputed(env);
    await recorder.stage('steady');
    writer = startWriter(cluster.clientURL, 'roll/');
    monitor = startMonitor(env, () => cluster.read());
  });
  after(async () => {
    await monitor?.stop();
    await writer?.stop();
    await controllers?.stop();
    await env?.stop();
  });

  test(`GIVEN etcd ${etcdVersions['3.4']} and a status without currentVersion (an object older than the rule) WHEN spec.version moves to ${etcdVersions['3.5']} and on to ${etcdVersions['3.6']} (both admitted) THEN the controller refuses it: Degraded InvalidSpec naming field, value and what is allowed, a Warning Event, no Pod changed; WHEN reverted THEN Degraded clears`, async (t) => {
    // Admission compares with status.currentVersion, else the old spec: without the status, each step looks like
    // one minor. The controller also sees the members' versions (controller/etcdcluster/spec-checks.ts).
    await run?.process.stop();
    run = undefined;
    const before = await livePods();
    await env.kubectl([
      'patch',
      'etcdcluster',
      name,
      '-n',
      ns,
      '--subresource=status',
      '--type=json',
      '-p',
      '[{"op":"remove","path":"/status/currentVersion"}]',
    ]);
    await recorder.stage('version-refused');
    await cluster.apply({ ...spec, version: etcdVersions['3.5'] });
    await cluster.apply({ ...spec, version: etcdVersions['3.6'] });
    run = await controllers.start();
    const expected = `spec.version: ${etcdVersions['3.6']} is not allowed; allowed: at most one minor version above ${etcdVersions['3.4']} (members run ${etcdVersions['3.4']}; etcd upgrades one minor at a time)`;
    const degraded = await waitFor(
      async () => {
        const found = (await cluster.read()).status?.conditions?.find((c) => c.type === 'Degraded');
        return found?.status === 'True' && found.reason === 'InvalidSpec' && found;
      },
      { what: 'Degraded InvalidSpec', timeoutMs: 30_000 },
    );
    t.diagnostic(`Degraded InvalidSpec: ${degraded.message}`);
    assert.equal(degraded.message, expected);
    await waitFor(
      async () =>
        (await events('InvalidSpec')).some((event) => event.type === 'Warning' && event.message === expected),
      { what: 'a Warning Event InvalidSpec with that message', timeoutMs: 30_000 },
    );
    const during = await livePods();
    assert.deepEqual(
      during.map((pod) => [pod.metadata?.uid, revisionOf(pod)]),
      before.map((pod) => [pod.metadata?.uid, revisionOf(pod)]),
      'no member Pod was replaced or given a new revision',
    );
    assert.deepEqual(await events('MemberRolling'), []);

    await recorder.stage('version-reverted');
    await cluster.apply(spec);
    await waitFor(
      async () => {
        const object = await cluster.read();
        const found = object.status?.conditions?.find((c) => c.type === 'Degraded');
        return object.status?.observedGeneration === object.metadata?.generation && found?.status === 'False';
      },
      { what: 'Degraded cleared after the revert', timeoutMs: 30_000 },
    );
    assert.equal((await cluster.read()).status?.currentVersion, etcdVersions['3.4']);
    await recorder.stage('steady');
  });

  test(`GIVEN etcd ${etcdVersions['3.4']} WHEN spec.version is ${etcdVersions['3.5']} THEN each member is restarted on its volume, followers first, the leader last after MoveLeader`, async () => {
    const before = await cluster.membership();
    const oldRevision = revisionOf(before.pods[0] as V1Pod);
    spec.version = etcdVersions['3.5'];
    await recorder.stage('rolling');
    await cluster.apply(spec);
    const status = await rolledTo(etcdVersions['3.5']);
    assert.notEqual(status.updateRevision, oldRevision);
    const after = await cluster.membership();
    // The same members (ids) on the same volumes: restarted, not replaced.
    assert.deepEqual([...after.ids], [...before.ids]);
    assert.deepEqual(after.pvcs, before.pvcs);
    assert.deepEqual(
      status.members?.map((member) => [member.name, member.version, member.podRevision]),
      MEMBERS.map((member) => [member, etcdVersions['3.5'], status.updateRevision]),
    );
    const rolled = (await events('MemberRolling')).map((event) => event.message ?? '');
    assert.equal(rolled.length, 3, rolled.join('\n'));
    assert.deepEqual(
      MEMBERS.filter((member) => rolled.some((message) => message.includes(`restart member ${member} `))),
      MEMBERS,
    );
    // The controller writes the status first and records the pass's Events after it: wait for them, then count.
    const told = await waitFor(
      async () => {
        const completed = await events('RollingUpdateCompleted');
        const updated = await events('MemberUpdated');
        return completed.length >= 1 && updated.length >= 3 && { completed, updated };
      },
      { what: 'RollingUpdateCompleted and three MemberUpdated Events', timeoutMs: 30_000, intervalMs: 500 },
    );
    assert.equal(told.completed.length, 1);
    assert.equal(told.updated.length, 3);
  });

  test(`WHEN spec.version is ${etcdVersions['3.6']} and the controller is SIGKILLed after each step of the roll THEN each kill leaves that step's state and a controller without the switch converges`, async () => {
    // Every 3.5 member snapshots past the 3.4 entries: more than snapshot-count writes on 3.5.
    const written = writer.acknowledged();
    await waitFor(() => writer.acknowledged() > written + 3 * SNAPSHOT_COUNT, {
      what: `${3 * SNAPSHOT_COUNT} writes on 3.5`,
      timeoutMs: 120_000,
    });
    await run?.process.stop();
    run = undefined;
    const oldRevision = revisionOf((await livePods())[0] as V1Pod);
    spec.version = etcdVersions['3.6'];
    await recorder.stage('rolling');
    await cluster.apply(spec);
    const atNew = async () => (await livePods()).filter((pod) => revisionOf(pod) !== oldRevision);
    for (const rolledBefore of [0, 1]) {
      await controllers.crashAfter('RollMember');
      // The evicted Pod is terminating or gone; nothing else was touched.
      const pods = await livePods();
      assert.ok(pods.filter((pod) => !pod.metadata?.deletionTimestamp).length <= 2, 'one Pod stopped');
      assert.equal((await atNew()).length, rolledBefore);
      await controllers.crashAfter('CreatePod');
      const recreated = await atNew();
      assert.equal(recreated.length, rolledBefore + 1, 'one more Pod at the new revision');
    }
    // The last out-of-date member must lead now for the roll to move leadership first: make it so if an election
    // moved it meanwhile (as cluster-crash does for scale-in).
    const last = (await livePods()).find((pod) => revisionOf(pod) === oldRevision)?.metadata?.name as string;
    await waitFor(async () => (await cluster.membership()).etcd.length === 3, {
      what: 'member list',
      timeoutMs: 60_000,
    });
    if ((await leaderName()) !== last) {
      const ids = (await cluster.membership()).ids;
      const current = (await leaderName()) as string;
      await moveLeader(clientURL(name, ns, current, 'http'), ids.get(last) as string);
      await waitFor(async () => (await leaderName()) === last, {
        what: `${last} leading`,
        timeoutMs: 30_000,
      });
    }
    await controllers.crashAfter('MoveLeader');
    const leader = await leaderName();
    assert.notEqual(leader, last, 'the leader moved off the member rolled last');
    assert.ok(
      (await atNew()).some((pod) => pod.metadata?.name === leader),
      'to an updated member',
    );
    run = await controllers.start();
    const status = await rolledTo(etcdVersions['3.6']);
    assert.deepEqual(
      status.members?.map((member) => member.version),
      MEMBERS.map(() => etcdVersions['3.6']),
    );
    const moved = (await events('LeaderMoved')).map((event) => event.message ?? '');
    assert.ok(
      moved.some((message) => message.endsWith('so the leader is rolled last')),
      moved.join('\n'),
    );
  });

  test('WHEN resources change THEN the roll restarts each member once with the new resources', async () => {
    const oldRevision = revisionOf((await livePods())[0] as V1Pod);
    spec.resources = { requests: { cpu: '150m', memory: '160Mi' }, limits: { memory: '512Mi' } };
    await recorder.stage('rolling');
    await cluster.apply(spec);
    const status = await rolledTo(etcdVersions['3.6']);
    assert.notEqual(status.updateRevision, oldRevision);
    for (const pod of await livePods()) {
      assert.deepEqual(pod.spec?.containers[0]?.resources?.requests, { cpu: '150m', memory: '160Mi' });
    }
  });

  test('WHEN an extra flag etcd does not know is set THEN the first rolled member fails, Degraded RollingUpdateFailed names it, nothing else rolls; the fixed spec converges', async () => {
    const oldRevision = revisionOf((await livePods())[0] as V1Pod);
    await recorder.stage('roll-failing');
    await cluster.apply({ ...spec, extraFlags: { ...(spec.extraFlags as object), 'no-such-flag': 'x' } });
    const failed = await waitFor(
      async () => {
        const degraded = (await cluster.read()).status?.conditions?.find((c) => c.type === 'Degraded');
        return degraded?.reason === 'RollingUpdateFailed' && degraded;
      },
      { what: 'Degraded RollingUpdateFailed', timeoutMs: 300_000, intervalMs: 1_000 },
    );
    assert.match(
      failed.message ?? '',
      /^member roll-\d does not start on revision \w+ \(version 3\.6\.\d+\): exit code 2: flag provided but not defined: -no-such-flag; nothing else is rolled/,
    );
    const pods = await livePods();
    assert.equal(pods.filter((pod) => revisionOf(pod) !== oldRevision).length, 1, 'only one member rolled');
    // The Warning Event follows the status write of the same pass.
    await waitFor(
      async () => (await events('RollingUpdateFailed')).some((event) => event.type === 'Warning'),
      {
        what: 'a RollingUpdateFailed Warning Event',
        timeoutMs: 30_000,
        intervalMs: 500,
      },
    );
    // Quorum held by the other two: writes go on.
    const acknowledged = writer.acknowledged();
    await waitFor(() => writer.acknowledged() > acknowledged + 20, {
      what: 'writes during the failure',
      timeoutMs: 60_000,
    });
    const stalled = (await cluster.read()).status?.conditions?.find((c) => c.type === 'Stalled');
    assert.deepEqual(
      [stalled?.status, stalled?.reason],
      ['True', 'RollingUpdateFailed'],
      'Stalled: only a fix helps',
    );
    await recorder.stage('roll-fixed');
    await cluster.apply(spec); // Git reverts the flag
    await rolledTo(etcdVersions['3.6']);
    assert.equal(
      (await livePods()).filter((pod) => revisionOf(pod) === oldRevision).length,
      3,
      'back at the revision of the fixed spec',
    );
  });

  test('THEN through every roll: quorum never lost, never two members down, currentVersion only moved when the last member ran the new version, no acknowledged write lost', async (t) => {
    await monitor.stop();
    await writer.stop();
    t.diagnostic(
      `longest time without a majority on one leader: ${monitor.longestNoQuorumMs()} ms (${monitor.leaderSummary()}); fewest Ready member Pods: ${monitor.fewestReadyPods()}; statuses recorded: ${monitor.statuses().length}; acknowledged writes: ${writer.acknowledged()}`,
    );
    // A sample is one Status call per Ready member (3 s deadline each); a member that does not answer counts for
    // neither side. A leader transfer is well under a second; a lost quorum lasts at least a member restart (over
    // 10 s here), so 3 s tells them apart.
    assert.ok(
      monitor.longestNoQuorumMs() <= NO_QUORUM_TOLERANCE_MS,
      `no majority on one leader for ${monitor.longestNoQuorumMs()} ms`,
    );
    assert.ok(monitor.fewestReadyPods() >= 2, `only ${monitor.fewestReadyPods()} member Pods Ready at once`);
    const statuses = monitor.statuses();
    assert.ok(
      statuses.some((status) =>
        status.conditions?.some((c) => c.type === 'Progressing' && c.reason === 'RollingUpdate'),
      ),
    );
    for (const status of statuses) {
      const versions = (status.members ?? []).map((member) => member.version).filter(Boolean) as string[];
      const lowest = [...versions].sort((a, b) => a.localeCompare(b, 'en', { numeric: true }))[0];
      if (lowest && status.currentVersion)
        assert.ok(
          status.currentVersion.localeCompare(lowest, 'en', { numeric: true }) <= 0,
          `currentVersion ${status.currentVersion} while a member ran ${lowest}`,
        );
    }
    assert.ok(writer.acknowledged() > 100, `${writer.acknowledged()} writes`);
    assert.deepEqual(await writer.lost(), []);
  });

  test('THEN every status the controller wrote reads, for Argo CD, kstatus and Flux, as its stage expects', async (t) => {
    const recording = await recorder.stop();
    t.diagnostic(assertHealthAsExpected(recording));
  });
});
