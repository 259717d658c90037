// The controller process as the operator Deployment runs it (`etcd-gitops controller --leader-elect ...`),
// against a real kube-apiserver with the product's CRDs: probes and metrics served, one leader among two
// processes, SIGTERM → exit 0 with the Lease released so the standby takes over, a lost Lease → exit 1.

import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CoordinationV1Api, V1MicroTime } from '@kubernetes/client-node';
import { etcdClusterCrd, etcdRestoreCrd } from '../../constructs/api/crds.js';
import { DEFAULT_CONTROLLER_NODE_OPTIONS } from '../../constructs/conventions/limits.js';
import { isConflict } from '../../controller/runtime/kube.js';
import { shippedCli } from '../../image/shipped-code.js';
import { type ControlPlane, startControlPlane } from '../env/control-plane.js';
import { kubectl as runKubectl } from '../env/kubectl.js';
import { freePorts } from '../env/ports.js';
import { type ManagedProcess, startProcess } from '../env/process-group.js';
import { waitFor } from '../env/wait.js';
import { createNamespace } from './runtime-support.js';

const leaseName = 'etcd-gitops-controller';
const metricNames = [
  'process_resident_memory_bytes',
  'etcd_gitops_reconcile_duration_seconds',
  'etcd_gitops_reconcile_errors_total',
  'etcd_gitops_membership_changes_total',
  'etcd_gitops_members_ready',
  'etcd_gitops_quorum_lost',
  'etcd_gitops_leader',
];

interface RunningController {
  readonly process: ManagedProcess;
  readonly metricsURL: string;
  readonly readyURL: string;
}

describe('the controller process', { timeout: 300_000 }, () => {
  let cp: ControlPlane;
  let dir: string;
  let namespace: string;
  const started: ManagedProcess[] = [];

  before(async () => {
    cp = await startControlPlane();
    dir = await mkdtemp(join(tmpdir(), 'etcd-gitops-runtime-process-'));
    const crds = join(dir, 'crds.json');
    await writeFile(
      crds,
      JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [etcdClusterCrd(), etcdRestoreCrd()] }),
    );
    const kubectl = (...args: string[]) => runKubectl(cp.kubeconfigPath, args);
    await kubectl('create', '-f', crds);
    await kubectl('wait', '--for=condition=Established', '--timeout=60s', 'crd/etcdclusters.etcd.gitops.dev');
    await kubectl('wait', '--for=condition=Established', '--timeout=60s', 'crd/etcdrestores.etcd.gitops.dev');
    namespace = await createNamespace(cp.kubeConfig, 'operator');
  });
  after(async () => {
    await Promise.all(started.map((process) => process.stop(2_000)));
    await cp?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  async function startController(name: string, ns = namespace): Promise<RunningController> {
    const [metricsPort, healthPort] = await freePorts(2);
    const process = startProcess({
      name,
      command: globalThis.process.execPath,
      args: [
        shippedCli,
        'controller',
        '--leader-elect',
        `--metrics-bind-address=127.0.0.1:${metricsPort}`,
        `--health-probe-bind-address=127.0.0.1:${healthPort}`,
        '--lease-duration=4s',
        '--renew-deadline=3s',
        '--retry-period=500ms',
        '--shutdown-timeout=5s',
      ],
      env: {
        KUBECONFIG: cp.kubeconfigPath,
        POD_NAME: name,
        POD_NAMESPACE: ns,
        NODE_OPTIONS: DEFAULT_CONTROLLER_NODE_OPTIONS,
      },
      logPath: join(dir, `${name}.log`),
    });
    started.push(process);
    return {
      process,
      metricsURL: `http://127.0.0.1:${metricsPort}/metrics`,
      readyURL: `http://127.0.0.1:${healthPort}/readyz`,
    };
  }

  /** The holder's `$POD_NAME`: identities are `<pod name>_<uuid of the process>` (a foreign holder as is). */
  const leaseHolder = async (ns = namespace): Promise<string | undefined> => {
    const identity = (
      await cp.kubeConfig
        .makeApiClient(CoordinationV1Api)
        .readNamespacedLease({ namespace: ns, name: leaseName })
    ).spec?.holderIdentity;
    const match = identity ? /^(.+)_[0-9a-f-]{36}$/.exec(identity) : null;
    return match ? match[1] : identity;
  };

  const metricsOf = async (controller: RunningController): Promise<string> =>
    (await fetch(controller.metricsURL)).text();

  const alive = (controller: RunningController) => () =>
    controller.process.exitStatus() &&
    `${controller.process.name} ${controller.process.exitStatus()}:\n${controller.process.logTail()}`;

  it('leads, serves probes and metrics, and on SIGTERM exits 0 with the Lease released to the standby', async () => {
    // GIVEN controller a started first and leading, with its caches synced
    const a = await startController('controller-a');
    await waitFor(async () => (await leaseHolder()) === 'controller-a', {
      what: 'a to lead',
      abortIf: alive(a),
    });
    await waitFor(async () => (await fetch(a.readyURL)).status === 200, {
      what: 'a ready',
      abortIf: alive(a),
    });
    // THEN its /metrics has every metric, and says it leads
    const metrics = await metricsOf(a);
    for (const name of metricNames) assert.match(metrics, new RegExp(`^# TYPE ${name} `, 'm'), name);
    assert.match(metrics, /^etcd_gitops_leader 1$/m);
    // GIVEN controller b started second: it stands by, ready but not leading
    const b = await startController('controller-b');
    await waitFor(async () => (await fetch(b.readyURL)).status === 200, {
      what: 'b ready',
      abortIf: alive(b),
    });
    assert.match(await metricsOf(b), /^etcd_gitops_leader 0$/m);
    assert.equal(await leaseHolder(), 'controller-a');
    const identity = (
      await cp.kubeConfig.makeApiClient(CoordinationV1Api).readNamespacedLease({ namespace, name: leaseName })
    ).spec?.holderIdentity;
    assert.match(identity ?? '', /^controller-a_[0-9a-f-]{36}$/, 'identity is new per process');
    // WHEN a gets SIGTERM
    await a.process.stop(15_000);
    // THEN a exited 0 and no longer holds the Lease; b takes over
    assert.deepEqual(await a.process.exited, { code: 0, signal: null });
    assert.notEqual(await leaseHolder(), 'controller-a');
    await waitFor(async () => (await leaseHolder()) === 'controller-b', {
      what: 'b to lead',
      abortIf: alive(b),
    });
    await waitFor(async () => /^etcd_gitops_leader 1$/m.test(await metricsOf(b)), {
      what: 'b to report leading',
    });
  });

  it('exits 1 when another holder takes its Lease, while the standby keeps standing by', async () => {
    // GIVEN controller d leading and e standing by, in a namespace of their own
    const own = await createNamespace(cp.kubeConfig, 'operator-lost');
    const d = await startController('controller-d', own);
    await waitFor(async () => (await leaseHolder(own)) === 'controller-d', {
      what: 'd to lead',
      abortIf: alive(d),
    });
    const e = await startController('controller-e', own);
    await waitFor(async () => (await fetch(e.readyURL)).status === 200, {
      what: 'e ready',
      abortIf: alive(e),
    });
    // WHEN the Lease is overwritten with another holder, as a second leader would after a partition
    // (d renews it every few seconds, so a write made on an older read loses with 409 Conflict and is made again)
    const leases = cp.kubeConfig.makeApiClient(CoordinationV1Api);
    await waitFor(
      async () => {
        const lease = await leases.readNamespacedLease({ namespace: own, name: leaseName });
        const now = new V1MicroTime();
        lease.spec = {
          ...lease.spec,
          holderIdentity: 'intruder',
          renewTime: now,
          acquireTime: now,
          leaseDurationSeconds: 3600,
        };
        try {
          await leases.replaceNamespacedLease({ namespace: own, name: leaseName, body: lease });
          return true;
        } catch (error) {
          if (isConflict(error)) return false;
          throw error;
        }
      },
      { what: 'the intruder to take the Lease', timeoutMs: 30_000 },
    );
    // THEN d exits with code 1, e still runs, and the intruder keeps the Lease
    // (polling keeps the event loop alive: the test helper unrefs its children)
    await waitFor(() => d.process.exitStatus(), { what: 'd to exit' });
    assert.deepEqual(await d.process.exited, { code: 1, signal: null });
    assert.equal(e.process.exitStatus(), undefined);
    assert.equal(await leaseHolder(own), 'intruder');
  });
});
