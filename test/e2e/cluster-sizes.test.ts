// Membership on the local Kubernetes with the controller as its own process (as its Deployment runs it): a size-3
// cluster created directly, left at rest (passed, no API request but watches: the API server's audit log), scaled
// 3→5→3→1→3 (by `kubectl scale` and by a Git-style apply), a member killed three times in a row (comes back, not
// replaced), a member and the seed that lost their data (replaced, never back empty), a majority lost with its data
// (reported, nothing destroyed) then paused (still reported), and a size-5 cluster created directly. Writers record
// every acknowledged write; none may be lost. Every status the controller writes for alpha is recorded
// (status-recorder.ts) and must read, for Argo CD, kstatus and Flux, as its stage expects
// (test/health/expectations.ts, scenario member-loss).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { CoreV1Api } from '@kubernetes/client-node';
import { clientURL, memberSelectorString } from '../../constructs/conventions/index.js';
import { memberStatus } from '../../controller/etcd/members.js';
import { REQUEUE } from '../../controller/etcdcluster/plan.js';
import { AUDIT_LAG_MS, requestsButWatches, untilNoRequestsButWatches } from '../env/audit-log.js';
import { etcdVersions } from '../env/binaries.js';
import { CONTROLLER_USERNAME } from '../env/controller-identity.js';
import { type Environment, startEnvironment } from '../env/environment.js';
import { loseMembersWithData } from '../env/lose-data.js';
import { waitFor } from '../env/wait.js';
import { assertHealthAsExpected } from '../health/judge.js';
import type { Recording } from '../health/recorded.js';
import {
  type ControllerProcesses,
  type ControllerRun,
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
import { recordStatuses, type StatusRecorder } from './status-recorder.js';

const ns = 'cluster-sizes';
/**
 * Before a rest window: this long without a request of the controller but watches (the bootstrap's last status
 * write, and the fresh pass that found alpha at rest after it, are behind). A fixed 15 s was not enough on a slow
 * machine: a change landing between the controller's last reading and the window's start made a pass in the
 * window read fresh and write.
 */
const REST_SETTLE_MS = REQUEUE.steady + 5_000;
/**
 * Two steady periods and some: at least two passes, none of which may read or write Kubernetes. Settle and window
 * end well before the controller's readings expire (`--resync-period`, 5 min by default).
 */
const REST_WINDOW_MS = 2 * REQUEUE.steady + 5_000;
const version = etcdVersions['3.6'];

/** etcd's member list, the member Pods and the PVCs in use name the same members. */
function assertConsistent(membership: Membership, names: string[]): void {
  assert.deepEqual(membership.etcd, names, 'etcd member list');
  assert.deepEqual(podNames(membership), names, 'member Pods');
}

describe('EtcdCluster sizes, scaling and member failures (controller process)', () => {
  let env: Environment;
  let controllers: ControllerProcesses;
  let controller: ControllerRun;
  let alpha: ClusterHandle;
  let recorder: StatusRecorder;
  let recording: Recording | undefined;
  const writers: Writer[] = [];

  before(async () => {
    env = await startEnvironment({ nodes: 3, auditController: true });
    await prepareNamespace(env, ns);
    recorder = await recordStatuses(env, {
      namespace: ns,
      scenario: 'member-loss',
      source: 'test/e2e/cluster-sizes.test.ts',
      firstStage: 'creating',
    });
    alpha = await createClusterHandle(env, ns, 'alpha');
    controllers = await controllerProcesses(env, { namespaces: [ns] });
    controller = await controllers.start();
  });
  after(async () => {
    await Promise.all(writers.map((writer) => writer.stop()));
    await controllers?.stop();
    await env?.stop();
  });

  test('GIVEN a size-3 EtcdCluster WHEN applied THEN three voters alpha-0..2 run, Ready', async () => {
    await alpha.apply({ size: 3, version });
    const status = await alpha.readyAt(3);
    assert.deepEqual(
      status.members?.map((member) => [member.name, member.learner]),
      [
        ['alpha-0', false],
        ['alpha-1', false],
        ['alpha-2', false],
      ],
    );
    assertConsistent(await alpha.membership(), ['alpha-0', 'alpha-1', 'alpha-2']);
  });

  // docs/design/controller-runtime.md, "Fresh passes and quiet passes". No writer before the window: writes change
  // the members' dbSizeInUse, which the status reports, so a written cluster's passes read fresh and write it.
  test('GIVEN alpha Ready and nothing changing WHEN it rests two steady periods THEN the controller passes it at least twice and makes no API request but its watches; WHEN a writer then changes its data THEN the next pass reports the new size', async (t) => {
    const auditLog = env.controlPlane.auditLogPath as string;
    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    const passes = async () =>
      (await controllers.metric(controller, 'etcd_gitops_reconcile_duration_seconds_count', {
        controller: 'etcdcluster',
        result: 'requeue',
      })) ?? 0;
    // "Nothing changing", checked by the test itself (its requests are not the controller's): the member Pods and
    // PVCs (resourceVersions: a readiness flap counts) and each member's leader, term, revision and sizes. On a
    // loaded machine a probe can time out or an election happen; then the controller rightly reads fresh and
    // writes, and the window does not count: up to three windows are tried, each one's disturbance reported.
    const restingState = async () => {
      const selector = { namespace: ns, labelSelector: memberSelectorString('alpha') };
      const [pods, pvcs] = await Promise.all([
        core.listNamespacedPod(selector),
        core.listNamespacedPersistentVolumeClaim(selector),
      ]);
      const versions = [...pods.items, ...pvcs.items].map(
        (object) => `${object.kind ?? ''}${object.metadata?.name}@${object.metadata?.resourceVersion}`,
      );
      const etcd = await Promise.all(
        pods.items.map((pod) =>
          memberStatus(clientURL('alpha', ns, pod.metadata?.name as string, 'http')).then(
            (status) =>
              `${pod.metadata?.name}: leader ${status.leaderId} term ${status.raftTerm} revision ${status.revision} db ${status.dbSize}/${status.dbSizeInUse}`,
            (error: Error) => `${pod.metadata?.name}: no answer (${error.message})`,
          ),
        ),
      );
      return [...versions.sort(), ...etcd];
    };
    const controllerRequests = (from: number, to: number) =>
      requestsButWatches(auditLog, CONTROLLER_USERNAME, from, to);
    const settle = () =>
      untilNoRequestsButWatches(auditLog, CONTROLLER_USERNAME, {
        quietMs: REST_SETTLE_MS,
        timeoutMs: 180_000,
        what: 'alpha at rest',
      });
    const disturbed: string[] = [];
    let window:
      | { passed: number; from: number; to: number; statusBefore: string; statusAfter: string }
      | undefined;
    while (!window) {
      await settle();
      const stateBefore = await restingState();
      const statusBefore = JSON.stringify((await alpha.read()).status);
      const passesBefore = await passes();
      const from = Date.now();
      await sleep(REST_WINDOW_MS);
      const to = Date.now();
      const passed = (await passes()) - passesBefore;
      const stateAfter = await restingState();
      const statusAfter = JSON.stringify((await alpha.read()).status);
      const changed = stateAfter.filter((line) => !stateBefore.includes(line));
      if (changed.length === 0) window = { passed, from, to, statusBefore, statusAfter };
      else {
        disturbed.push(`window ${disturbed.length + 1} disturbed: ${changed.join(', ')}`);
        assert.ok(disturbed.length < 3, `alpha never rested through a whole window: ${disturbed.join('; ')}`);
      }
    }
    if (disturbed.length > 0) t.diagnostic(disturbed.join('; '));
    const { passed, from, to } = window;
    await sleep(AUDIT_LAG_MS);
    const requests = await controllerRequests(from, to);
    assert.ok(passed >= 2, `passes of alpha in ${REST_WINDOW_MS / 1000} s at rest: ${passed}`);
    assert.deepEqual(
      requests,
      {},
      `API requests other than watches while alpha rested; its status before: ${window.statusBefore}; after: ${window.statusAfter}`,
    );
    // Only etcd changes now: a pass that did not ask etcd would never see it.
    const inUse = async () => (await alpha.read()).status?.members?.map((member) => member.dbSizeInUse);
    const rested = await inUse();
    writers.push(startWriter(alpha.clientURL, 'alpha/'));
    const started = Date.now();
    await waitFor(async () => JSON.stringify(await inUse()) !== JSON.stringify(rested), {
      what: "alpha's status to report the data the writer added",
      timeoutMs: REQUEUE.steady + 10_000,
      intervalMs: 500,
    });
    console.log(`new size reported ${((Date.now() - started) / 1000).toFixed(1)} s after the writer started`);
  });

  test('GIVEN 3 members WHEN kubectl scale --replicas=5 THEN five voters, Ready', async () => {
    await recorder.stage('scaling-up');
    await alpha.scale(5);
    await alpha.readyAt(5);
    const membership = await alpha.membership();
    assertConsistent(membership, ['alpha-0', 'alpha-1', 'alpha-2', 'alpha-3', 'alpha-4']);
    assert.deepEqual(
      membership.pvcs,
      [0, 1, 2, 3, 4].map((n) => `alpha-${n}-data`),
    );
  });

  test('GIVEN 5 members WHEN spec.size 3 is applied THEN the two highest leave, their PVCs are retained', async () => {
    await recorder.stage('scaling-in');
    await alpha.apply({ size: 3, version });
    await alpha.readyAt(3);
    const membership = await waitFor(
      async () => {
        const current = await alpha.membership();
        return current.pods.length === 3 && current;
      },
      { what: 'the removed members’ Pods gone', timeoutMs: 60_000, intervalMs: 500 },
    );
    assertConsistent(membership, ['alpha-0', 'alpha-1', 'alpha-2']);
    assert.deepEqual(
      membership.pvcs,
      [0, 1, 2, 3, 4].map((n) => `alpha-${n}-data`),
      'whenScaled: Retain',
    );
  });

  test('GIVEN 3 members WHEN scaled to 1 and back to 3 THEN the new members skip every retained PVC name', async () => {
    await recorder.stage('scaling-in');
    await alpha.scale(1);
    await alpha.readyAt(1);
    // The stage ends when the Pods are gone and the status says so: the controller, reading its cache, can still
    // write PodTerminating after the API's Pods list is short (a CI run recorded one in the next stage).
    await waitFor(
      async () =>
        (await alpha.membership()).pods.length === 1 &&
        !(await alpha.read()).status?.conditions?.some(
          (c) => c.type === 'Progressing' && c.status === 'True',
        ),
      {
        what: 'alpha-1 and alpha-2 Pods gone, and no longer reported Progressing',
        timeoutMs: 60_000,
        intervalMs: 500,
      },
    );
    await recorder.stage('scaling-up');
    await alpha.scale(3);
    await alpha.readyAt(3);
    const membership = await alpha.membership();
    assertConsistent(membership, ['alpha-0', 'alpha-5', 'alpha-6']);
    assert.deepEqual(
      membership.pvcs,
      [0, 1, 2, 3, 4, 5, 6].map((n) => `alpha-${n}-data`),
    );
  });

  test('GIVEN 3 members WHEN one member’s etcd is SIGKILLed three times in a row THEN it comes back as the same member, not replaced', async () => {
    const before = await alpha.membership();
    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    const running = async () => {
      const pod = await core.readNamespacedPod({ namespace: ns, name: 'alpha-5' });
      const status = pod.status?.containerStatuses?.find((s) => s.name === 'etcd');
      return status?.state?.running ? status : undefined;
    };
    await recorder.stage('member-killed');
    for (let kill = 1; kill <= 3; kill += 1) {
      await waitFor(async () => (await running())?.restartCount === kill - 1, {
        what: `alpha-5's etcd running after ${kill - 1} kills`,
        timeoutMs: 60_000,
        intervalMs: 200,
      });
      const killed = await env.faults.killContainer(ns, 'alpha-5', 'etcd');
      await waitFor(
        async () => {
          const now = await running();
          return now !== undefined && now.containerID !== `containerd://${killed}`;
        },
        { what: `alpha-5 restarted after kill ${kill}`, timeoutMs: 60_000, intervalMs: 200 },
      );
    }
    assert.equal((await running())?.restartCount, 3);
    await alpha.readyAt(3);
    const after = await alpha.membership();
    assert.deepEqual(after.ids, before.ids, 'same members, same ids');
    assert.equal(
      after.pods.find((p) => p.metadata?.name === 'alpha-5')?.metadata?.uid,
      before.pods.find((p) => p.metadata?.name === 'alpha-5')?.metadata?.uid,
      'same Pod',
    );
  });

  /** Wipes `member`'s PVC data and restarts its etcd; waits until it is out of etcd and the cluster is Ready at 3. */
  async function loseDataAndWaitReplaced(member: string): Promise<void> {
    await env.faults.wipeVolume(ns, `${member}-data`);
    await env.faults.killContainer(ns, member, 'etcd');
    await waitFor(async () => !(await alpha.membership()).etcd.includes(member), {
      what: `${member} removed from etcd`,
      timeoutMs: 120_000,
      intervalMs: 500,
    });
    await alpha.readyAt(3);
  }

  test('GIVEN 3 members WHEN a member loses its PVC data and its etcd restarts THEN it is removed and replaced by a new member, Ready', async () => {
    const before = await alpha.membership();
    await recorder.stage('member-data-lost');
    await loseDataAndWaitReplaced('alpha-6');
    const after = await alpha.membership();
    assertConsistent(after, ['alpha-0', 'alpha-5', 'alpha-7']);
    assert.equal(after.ids.get('alpha-5'), before.ids.get('alpha-5'));
  });

  test('GIVEN 3 members WHEN the seed loses its PVC data and its etcd restarts THEN it never comes back empty: it is removed and replaced, Ready', async () => {
    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    const seed = await core.readNamespacedPod({ namespace: ns, name: 'alpha-0' });
    assert.equal(
      seed.metadata?.annotations?.['etcd.gitops.dev/initial-cluster-state'],
      'existing',
      'the seed was marked existing once it served',
    );
    const before = await alpha.membership();
    await recorder.stage('seed-data-lost');
    await loseDataAndWaitReplaced('alpha-0');
    const after = await alpha.membership();
    assertConsistent(after, ['alpha-5', 'alpha-7', 'alpha-8']);
    assert.equal(after.ids.get('alpha-5'), before.ids.get('alpha-5'));
    assert.equal(after.ids.get('alpha-7'), before.ids.get('alpha-7'));
    await Promise.all(writers.map((writer) => writer.stop()));
    assert.ok((writers[0]?.acknowledged() ?? 0) > 0, 'the writer got writes acknowledged');
    assert.deepEqual(await writers[0]?.lost(), [], 'no acknowledged write lost');
    writers.length = 0;
  });

  test('GIVEN 3 members WHEN two of them lose their Pods and PVCs (data) THEN quorum loss is reported (condition, Event, metric) and nothing is destroyed or recreated', async () => {
    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    const before = await alpha.membership();
    // Pods and PVCs deleted: the data is gone and nothing restarts. (Wiping the data dirs of a majority of joiners
    // and letting etcd restart need not be a quorum loss to etcd: member ids are derived from peer URLs and token,
    // so etcd may let an empty joiner back in to vote the survivor leader; see membership.md.)
    const lost = ['alpha-5', 'alpha-7'];
    await recorder.stage('quorum-lost');
    await loseMembersWithData(core, ns, lost);
    const status = await waitFor(
      async () => {
        const current = (await alpha.read()).status;
        const degraded = current?.conditions?.find((condition) => condition.type === 'Degraded');
        return degraded?.reason === 'QuorumLost' && current;
      },
      { what: 'Degraded=QuorumLost', timeoutMs: 180_000, intervalMs: 500 },
    );
    assert.equal(status.conditions?.find((condition) => condition.type === 'Available')?.status, 'False');
    assert.equal(status.phase, 'QuorumLost');
    // The loss is reported while the deleted Pods still terminate; once they are gone, a later pass (the Event's
    // count grows past what it was then) still destroys and recreates nothing.
    await waitFor(
      async () => (await alpha.membership()).pods.every((pod) => !pod.metadata?.deletionTimestamp),
      {
        what: 'the deleted member Pods gone',
        timeoutMs: 180_000,
        intervalMs: 500,
      },
    );
    const quorumLostEvents = async () =>
      (
        await core.listNamespacedEvent({
          namespace: ns,
          fieldSelector: 'involvedObject.name=alpha,reason=QuorumLost',
        })
      ).items
        .filter((event) => event.type === 'Warning')
        .reduce((sum, event) => sum + (event.count ?? 1), 0);
    const seen = await quorumLostEvents();
    await waitFor(async () => (await quorumLostEvents()) > seen, {
      what: 'a QuorumLost Warning Event after the Pods are gone',
      timeoutMs: 120_000,
      intervalMs: 1_000,
    });
    assert.equal((await alpha.read()).status?.phase, 'QuorumLost', 'still QuorumLost once the Pods are gone');
    assert.equal(
      await controllers.metric(controller, 'etcd_gitops_quorum_lost', { namespace: ns, cluster: 'alpha' }),
      1,
    );
    const after = await alpha.membership();
    assert.deepEqual(after.ids, before.ids, 'no member removed from etcd');
    assert.deepEqual(
      after.pods.map((pod) => pod.metadata?.uid),
      before.pods.filter((pod) => pod.metadata?.name === 'alpha-8').map((pod) => pod.metadata?.uid),
      'the survivor’s Pod untouched, no Pod recreated on empty data',
    );
    assert.deepEqual(
      after.pvcs,
      before.pvcs.filter((pvc) => !lost.includes(pvc.replace(/-data$/, ''))),
      'no other PVC deleted, none created',
    );
  });

  test('GIVEN quorum lost WHEN spec.paused is set THEN Degraded QuorumLost and Stalled stay (paused is no excuse), nothing is recreated', async () => {
    const before = await alpha.membership();
    await recorder.stage('paused-quorum-lost');
    await env.kubectl([
      'patch',
      'etcdcluster',
      'alpha',
      '-n',
      ns,
      '--type=merge',
      '-p',
      '{"spec":{"paused":true}}',
    ]);
    const status = await waitFor(
      async () => {
        const object = await alpha.read();
        const progressing = object.status?.conditions?.find((condition) => condition.type === 'Progressing');
        const seen = object.status?.observedGeneration === object.metadata.generation;
        return seen && progressing?.reason === 'Paused' && object.status;
      },
      { what: 'the pause observed', timeoutMs: 60_000, intervalMs: 500 },
    );
    const condition = (type: string) => status.conditions?.find((c) => c.type === type);
    assert.deepEqual([condition('Degraded')?.status, condition('Degraded')?.reason], ['True', 'QuorumLost']);
    assert.match(condition('Degraded')?.message ?? '', /spec\.paused is true/);
    assert.deepEqual([condition('Stalled')?.status, condition('Stalled')?.reason], ['True', 'QuorumLost']);
    assert.equal(condition('Progressing')?.status, 'False');
    const after = await alpha.membership();
    assert.deepEqual(
      after.pods.map((pod) => pod.metadata?.uid),
      before.pods.map((pod) => pod.metadata?.uid),
    );
    recording = await recorder.stop();
    await env.kubectl(['delete', 'etcdcluster', 'alpha', '-n', ns, '--wait=false']);
  });

  test('THEN every status the controller wrote for alpha reads, for Argo CD, kstatus and Flux, as its stage expects', (t) => {
    assert.ok(recording, 'the recording of alpha was stopped');
    t.diagnostic(assertHealthAsExpected(recording));
  });

  test('GIVEN a size-5 EtcdCluster WHEN applied THEN five voters run, Ready, and a writer loses nothing', async () => {
    const bravo = await createClusterHandle(env, ns, 'bravo');
    await bravo.apply({ size: 5, version });
    await bravo.readyAt(5);
    assertConsistent(
      await bravo.membership(),
      [0, 1, 2, 3, 4].map((n) => `bravo-${n}`),
    );
    const writer = startWriter(bravo.clientURL, 'bravo/');
    writers.push(writer);
    await waitFor(() => writer.acknowledged() >= 50, { what: '50 acknowledged writes', timeoutMs: 60_000 });
    await writer.stop();
    assert.deepEqual(await writer.lost(), []);
  });
});
