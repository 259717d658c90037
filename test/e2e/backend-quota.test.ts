// The backend quota on real nodes (docs/design/compaction-quota-defrag.md): a 3-member cluster with a 16 MiB quota
// (its members' metrics port says so)
// and 20 s periodic compaction is filled until etcd raises NOSPACE; the controller tells it (Degraded NoSpace, a
// Warning Event, the alarm metric, DB sizes in status); etcd's own auto-compaction and the defrag Job that
// EtcdCluster.addDefragSchedule() synthesizes free the space and disarm the alarm; writes succeed again and no
// acknowledged write is lost.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { BatchV1Api, CoreV1Api } from '@kubernetes/client-node';
import { App, Chart } from 'cdk8s';
import type { Etcd3 } from 'etcd3';
import { etcdClusterCrd } from '../../constructs/api/crds.js';
import { DEFAULT_OPERATOR_NAMESPACE } from '../../constructs/conventions/names.js';
import { EtcdCluster } from '../../constructs/etcd-cluster.js';
import { restrictedNamespaceLabels } from '../../constructs/security.js';
import { connect } from '../../controller/etcd/client.js';
import { etcdVersions } from '../env/binaries.js';
import { type Environment, outsideClusterCidr, startEnvironment } from '../env/environment.js';
import { readEtcdCluster } from '../env/etcd-cluster.js';
import { waitFor } from '../env/wait.js';
import { driveReconciler, type ReconcileDriver } from './reconcile-driver.js';

const ns = 'quota-e2e';
const name = 'main';
const QUOTA = 16 * 2 ** 20;
const VALUE_BYTES = 512 * 1024;

describe('backend quota, NOSPACE and defrag on the local Kubernetes', () => {
  let env: Environment;
  let client: Etcd3;
  let driver: ReconcileDriver | undefined;
  /** The last value etcd acknowledged before NOSPACE, and its revision. */
  let acknowledged: { value: string; revision: string } | undefined;
  /** The value of the write etcd refused: a refusal that followed a lost reply may still have been applied. */
  let refused: string | undefined;
  /** No acknowledged write is lost: the key holds the last acknowledged value, or the refused one if applied. */
  const assertNothingLost = async () => {
    const [kv] = (await client.get('fill/k').exec()).kvs;
    assert.ok(kv && acknowledged, 'the key is there');
    assert.ok(BigInt(kv.mod_revision) >= BigInt(acknowledged.revision), `mod_revision ${kv.mod_revision}`);
    assert.ok(
      [acknowledged.value, refused].includes(kv.value.toString()),
      'the value is the last acknowledged one',
    );
  };

  const clusterResource = () => readEtcdCluster(env.kubeConfig, ns, name);
  const degraded = async () =>
    (await clusterResource()).status?.conditions?.find((condition) => condition.type === 'Degraded');
  const batch = () => env.kubeConfig.makeApiClient(BatchV1Api);
  const jobLog = async (job: string) => {
    const pods = await env.kubeConfig
      .makeApiClient(CoreV1Api)
      .listNamespacedPod({ namespace: ns, labelSelector: `job-name=${job}` });
    const logs = await Promise.all(
      pods.items.map((pod) => env.kubectl(['logs', '-n', ns, pod.metadata!.name!], { allowFailure: true })),
    );
    return logs.map((l) => `${l.stdout}${l.stderr}`).join('\n');
  };

  before(async () => {
    env = await startEnvironment({ nodes: 3 });
    await env.kubectl(['apply', '--server-side', '-f', '-'], { input: JSON.stringify(etcdClusterCrd()) });
    await env.kubectl([
      'wait',
      '--for=condition=Established',
      'crd/etcdclusters.etcd.gitops.dev',
      '--timeout=60s',
    ]);
    await env.createNamespace(ns, restrictedNamespaceLabels());

    // The user's cdk8s app: a small quota, short compaction history, and a defrag schedule (suspended: the test
    // runs it by hand with kubectl create job --from=cronjob, as the README says).
    const app = new App();
    const chart = new Chart(app, 'quota-e2e', { namespace: ns });
    const cluster = new EtcdCluster(chart, name, {
      version: etcdVersions['3.6'],
      size: 3,
      quotaBackendBytes: QUOTA,
      autoCompaction: { mode: 'periodic', retention: '20s' },
      operatorNamespace: DEFAULT_OPERATOR_NAMESPACE,
      // The reconciler and the writer run outside the cluster (this process): admitted by address, as such a user
      // must (test/env/nodes/layout.ts, outsideClusterCidr).
      clients: [{ ipBlock: { cidr: outsideClusterCidr } }],
      // This process also scrapes the members' metrics port, as a Prometheus outside the cluster would.
      metricsFrom: [{ ipBlock: { cidr: outsideClusterCidr } }],
    });
    cluster.addDefragSchedule({ suspend: true });
    await env.kubectl(['apply', '--server-side', '-f', '-'], { input: app.synthYaml() });

    driver = driveReconciler(env, { namespace: ns, name });
    await waitFor(
      async () =>
        (await clusterResource()).status?.conditions?.find((c) => c.type === 'Ready' && c.status === 'True'),
      { what: 'the cluster to be Ready', timeoutMs: 240_000, intervalMs: 2_000 },
    );
    // No retries and no circuit breaker (etcd3's default breaker opens on NOSPACE and then blocks every call).
    client = connect(`http://${name}-client.${ns}.svc:2379`, 30_000);
    // Ready is the members' health as the controller sees it, Pod by Pod; the Service's endpoints follow the Pods'
    // readiness a moment later (a CI run's first write met "No connection established"). A read has no effect, so
    // waiting on one is safe; the writes below are then never retried.
    await waitFor(async () => (await client.get('fill/k').exec()).header.revision !== '', {
      what: `a read through ${name}-client`,
      timeoutMs: 30_000,
      intervalMs: 500,
    });
  });

  after(async () => {
    client?.close();
    await driver?.stop();
    await env?.stop();
  });

  test('GIVEN the spec WHEN members start THEN each runs with the quota and the compaction the spec says', async () => {
    const pods = await env.kubeConfig
      .makeApiClient(CoreV1Api)
      .listNamespacedPod({ namespace: ns, labelSelector: 'app.kubernetes.io/component=member' });
    assert.equal(pods.items.length, 3);
    for (const pod of pods.items) {
      const args = pod.spec?.containers[0]?.args ?? [];
      assert.ok(args.includes(`--quota-backend-bytes=${QUOTA}`), args.join(' '));
      assert.ok(args.includes('--auto-compaction-mode=periodic'), args.join(' '));
      assert.ok(args.includes('--auto-compaction-retention=0h0m20s'), args.join(' '));
    }
  });

  test('GIVEN a member WHEN its metrics port (2381) is scraped THEN etcd reports the quota the spec set and a leader', async () => {
    const pods = await env.kubeConfig
      .makeApiClient(CoreV1Api)
      .listNamespacedPod({ namespace: ns, labelSelector: 'app.kubernetes.io/component=member' });
    const ip = pods.items[0]?.status?.podIP;
    assert.ok(ip, 'the member Pod has an IP');
    const port = await env.forward(ip, 2381);
    const body = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    assert.match(body, /^etcd_server_quota_backend_bytes 1\.6777216e\+07$/m);
    assert.match(body, /^etcd_server_has_leader 1$/m);
    assert.match(body, /^etcd_mvcc_db_total_size_in_bytes \d/m);
  });

  test('GIVEN writes past the quota WHEN etcd raises NOSPACE THEN Degraded NoSpace, a Warning Event, the alarm metric and DB sizes tell it; reads still work', async () => {
    let refusal: Error | undefined;
    for (let i = 0; i < 400 && !refusal; i++) {
      const value = randomBytes(VALUE_BYTES).toString('base64');
      try {
        const response = await client.put('fill/k').value(value).exec();
        acknowledged = { value, revision: response.header.revision };
      } catch (error) {
        refusal = error as Error;
        refused = value;
      }
    }
    assert.ok(refusal, 'etcd never refused a write: no NOSPACE');
    assert.match(refusal.message, /database space exceeded/);
    assert.ok(acknowledged, 'some writes were acknowledged before the quota');

    const condition = await waitFor(
      async () => {
        const found = await degraded();
        return found?.reason === 'NoSpace' ? found : undefined;
      },
      { what: 'Degraded NoSpace', timeoutMs: 60_000, intervalMs: 1_000 },
    );
    assert.equal(condition.status, 'True');
    assert.match(
      condition.message ?? '',
      /^etcd alarm NOSPACE on main-\d(, main-\d)* of main: the backend reached its quota/,
    );
    // The controller records the Event right after it writes the status: allow it that moment.
    const event = await waitFor(
      async () =>
        (
          await env.kubeConfig.makeApiClient(CoreV1Api).listNamespacedEvent({
            namespace: ns,
            fieldSelector: `involvedObject.name=${name},reason=NoSpace`,
          })
        ).items[0],
      { what: 'an Event NoSpace', timeoutMs: 10_000, intervalMs: 250 },
    );
    assert.equal(event.type, 'Warning');
    assert.match(
      (await driver!.metrics.expose()).body,
      /^etcd_gitops_alarms\{namespace="quota-e2e",cluster="main",alarm="NOSPACE"\} [1-3]$/m,
    );
    // etcd refuses a write when the file plus the write would pass the quota: the fullest member is near it. The
    // status carries the sizes of its pass, which may precede the last writes (a CI run read 11.9 MB of 16.8 MB
    // with the alarm already up): a later pass must show it.
    let sizes: number[] = [];
    await waitFor(
      async () => {
        sizes = (await clusterResource()).status?.members?.map((member) => member.dbSize ?? 0) ?? [];
        return sizes.length === 3 && Math.max(...sizes) > QUOTA * 0.75;
      },
      { what: 'the fullest member near the quota in status', timeoutMs: 60_000, intervalMs: 1_000 },
    ).catch((error: Error) => assert.fail(`${error.message}; dbSize: ${sizes.join(', ')}`));
    // NOSPACE refuses writes, not reads: the last acknowledged value is there.
    await assertNothingLost();
    assert.equal(
      (await clusterResource()).status?.conditions?.find((c) => c.type === 'Available')?.status,
      'True',
    );
  });

  test('GIVEN NOSPACE WHEN auto-compaction has run and the defrag Job runs THEN space is freed, the alarm disarmed, writes succeed and nothing acknowledged is lost', async () => {
    assert.ok(acknowledged, 'the previous test filled the cluster');
    const last = BigInt(acknowledged.revision);
    // etcd's periodic compactor (every 20 s here) compacts up to the last write: reading the revision before it
    // then fails as compacted.
    await waitFor(
      async () => {
        try {
          await client
            .get('fill/k')
            .revision(String(last - 1n))
            .string();
          return undefined;
        } catch (error) {
          return /compacted/.test((error as Error).message) ? true : undefined;
        }
      },
      { what: `auto-compaction past revision ${last - 1n}`, timeoutMs: 120_000, intervalMs: 2_000 },
    );
    await env.kubectl(['create', 'job', `--from=cronjob/${name}-defrag`, 'defrag-now', '-n', ns]);
    const outcome = await waitFor(
      async () =>
        (await batch().readNamespacedJob({ namespace: ns, name: 'defrag-now' })).status?.conditions?.find(
          (c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True',
        )?.type,
      { what: 'the defrag Job to finish', timeoutMs: 180_000, intervalMs: 1_000 },
    );
    const log = await jobLog('defrag-now');
    assert.equal(outcome, 'Complete', log);

    await waitFor(async () => ((await degraded())?.reason !== 'NoSpace' ? true : undefined), {
      what: 'Degraded to leave NoSpace',
      timeoutMs: 60_000,
      intervalMs: 1_000,
    });
    const alarms = await client.maintenance.alarm({ action: 'Get', memberID: 0, alarm: 'None' });
    assert.deepEqual(alarms.alarms ?? [], []);
    await waitFor(
      async () => {
        const sizes =
          (await clusterResource()).status?.members?.map((member) => member.dbSize ?? QUOTA) ?? [];
        return sizes.length === 3 && sizes.every((size) => size < QUOTA / 2) ? sizes : undefined;
      },
      { what: 'every member DB below half the quota in status', timeoutMs: 30_000, intervalMs: 1_000 },
    );
    await assertNothingLost();
    await client.put('after/defrag').value('ok').exec();
    assert.equal(await client.get('after/defrag').string(), 'ok');
    assert.match(
      (await driver!.metrics.expose()).body,
      /^etcd_gitops_alarms\{namespace="quota-e2e",cluster="main",alarm="NOSPACE"\} 0$/m,
    );
  });
});
