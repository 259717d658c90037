// A real Prometheus (our build of the server, in a Pod of the `monitoring` namespace, test/env/prometheus/) scrapes
// what our monitors configure and evaluates our alert rules, under the enforced NetworkPolicy. It runs, with
// kube-state-metrics, before the cluster is created. dist/'s operator (our image, its shipped RBAC) then runs a
// 3-member cluster whose `metricsFrom` admits the monitoring namespace; the cluster's PodMonitor and PrometheusRule
// and the operator's ServiceMonitor and PrometheusRule come from the constructs (scrape every 5 s; every alert of
// the cluster but the stuck-roll one, and `EtcdGitopsNoActiveController`, after 20 s instead of their defaults,
// through addPrometheusRule's `for`). Every alert Prometheus shows is recorded each second.
// Prometheus's own API shows the members and both controller replicas as targets that are up, every rule healthy
// and, once the cluster has formed, no alert active; then a member's node dies: both member alerts go pending, fire
// once their 20 s have passed, and resolve once the controller has replaced the member
// (failureDetection.nodeNotReady 60 s); the node then boots again. Then the operator is scaled to no replica:
// `EtcdGitopsNoActiveController` (its `absent()` arm, as nothing is scraped) fires after its 20 s, and resolves once
// a replica holds the lease again. All along, a backup schedule every minute whose credentials Secret does not exist
// yet never succeeds: `EtcdBackupTooOld` becomes active twice its gap (2 min) after the CronJob's creation and fires
// 20 s later, read from kube-state-metrics' `kube_cronjob_created`; once the Secret is created, a backup into MinIO
// succeeds and the alert resolves at the next evaluation. Last, that schedule's newest backup is corrupted in MinIO
// and its restore drill run (docs/design/restore-drill.md): the controller's `etcd_gitops_backup_drill_failed` turns 1
// and `EtcdBackupDrillFailed` fires after its 20 s; the backup made whole again, a drill succeeds and it resolves.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { BatchV1Api, CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { App, Chart } from 'cdk8s';
import { DEFAULT_OPERATOR_NAMESPACE, memberSelectorString } from '../../constructs/conventions/index.js';
import { EtcdCluster as EtcdClusterConstruct } from '../../constructs/etcd-cluster.js';
import { EtcdOperator } from '../../constructs/etcd-operator.js';
import { CLUSTER_ALERT_PENDING_FOR } from '../../constructs/monitoring/alerts.js';
import { listBackups } from '../../controller/backup/list-backups.js';
import type { EtcdCluster } from '../../controller/etcdcluster/api.js';
import { etcdVersions } from '../env/binaries.js';
import { type Environment, startEnvironment } from '../env/environment.js';
import type { Minio } from '../env/minio.js';
import { applyMonitoringCrds } from '../env/prometheus/crds.js';
import { startKubeStateMetrics } from '../env/prometheus/kube-state-metrics.js';
import { type Alert, type Prometheus, startPrometheus } from '../env/prometheus/prometheus.js';
import { waitFor } from '../env/wait.js';
import { createBucket, minioClient } from '../integration/helpers/backup-cli.js';
import { createS3Secret } from '../integration/helpers/restore-kube.js';

const ns = 'prom-e2e';
const monitoring = 'monitoring';
const name = 'watched';
const SCRAPE = '5s';
const EVALUATION_S = 5;
const PENDING_S = 20;
const BACKUP_CREDENTIALS = 'backup-credentials';
/** Where Prometheus and kube-state-metrics run: never the node the test stops. */
const MONITORING_NODE = 'node-1';
const MEMBER_ALERTS = ['EtcdMembersDown', 'EtcdQuorumAtRisk'] as const;

/** The user's app: the cluster with its monitor and rules, and the operator's monitor and rules. */
function monitoredApp(minio: { endpoint: string; bucket: string }): {
  monitoring: unknown[];
  rest: unknown[];
} {
  const app = new App();
  const chart = new Chart(app, 'prom', { namespace: ns });
  const cluster = new EtcdClusterConstruct(chart, name, {
    version: etcdVersions['3.6'],
    size: 3,
    operatorNamespace: DEFAULT_OPERATOR_NAMESPACE,
    metricsFrom: [{ namespaceSelector: { 'kubernetes.io/metadata.name': monitoring } }],
    failureDetection: { nodeNotReady: '60s' },
  });
  // A schedule that has not succeeded yet: its credentials Secret is created only once its alert has fired (the
  // Job's Pod waits for it).
  cluster
    .addBackupSchedule({
      schedule: '* * * * *',
      bucket: minio.bucket,
      endpoint: minio.endpoint,
      forcePathStyle: true,
      credentialsSecretName: BACKUP_CREDENTIALS,
    })
    // Run by hand in the last test.
    .addRestoreDrill({ schedule: '0 0 1 1 *', suspend: true });
  cluster.addPodMonitor({ interval: SCRAPE });
  cluster.addPrometheusRule({
    // Every alert of the cluster after 20 s, so that one holding for 20 s where it should not fires here; but
    // EtcdRollingUpdateStuck, whose condition holds while a new member catches up (a learner's join, longer than
    // 20 s on a loaded machine) and which is meant for rolls stuck for half an hour.
    for: Object.fromEntries(
      Object.keys(CLUSTER_ALERT_PENDING_FOR)
        .filter((alert) => alert !== 'EtcdRollingUpdateStuck')
        .map((alert) => [alert, `${PENDING_S}s`]),
    ),
  });
  // dist/ has the operator itself; its monitor and rules come from the same construct, as a user adds them.
  const operator = new EtcdOperator(new Chart(app, 'ops'), 'operator');
  operator.addServiceMonitor({ interval: SCRAPE });
  operator.addPrometheusRule({ for: { EtcdGitopsNoActiveController: `${PENDING_S}s` } });
  const objects = app.charts.flatMap((chart) => chart.toJson()) as { apiVersion: string }[];
  const isMonitoring = (o: { apiVersion: string }) => o.apiVersion.startsWith('monitoring.coreos.com/');
  return { monitoring: objects.filter(isMonitoring), rest: objects.filter((o) => !isMonitoring(o)) };
}

/** One time an alert was pending (and maybe firing): its labels, Prometheus's activeAt, when first seen firing. */
interface Episode {
  readonly key: string;
  readonly labels: Record<string, string>;
  readonly activeAt: number;
  firingSeenAt?: number;
}

const asList = (items: unknown[]) => JSON.stringify({ apiVersion: 'v1', kind: 'List', items });

describe('Prometheus scrapes and alerts', () => {
  let env: Environment;
  let core: CoreV1Api;
  let prometheus: Prometheus;

  const readCluster = async () =>
    (await env.kubeConfig.makeApiClient(CustomObjectsApi).getNamespacedCustomObject({
      group: 'etcd.gitops.dev',
      version: 'v1alpha1',
      namespace: ns,
      plural: 'etcdclusters',
      name,
    })) as EtcdCluster;
  const readyMembers = (cluster: EtcdCluster) =>
    cluster.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')
      ? (cluster.status?.members ?? []).filter((m) => m.ready && !m.learner).map((m) => m.name)
      : [];
  /** The cluster's alerts but the backup alert (its own test follows the schedule that never succeeds). */
  const ourAlerts = async (): Promise<Alert[]> =>
    (await prometheus.alerts()).filter(
      (alert) =>
        alert.labels.namespace === ns &&
        alert.labels.cluster === name &&
        alert.labels.alertname !== 'EtcdBackupTooOld',
    );
  let bucket: string;

  /** Every alert episode Prometheus has shown since it started, polled every second in the background. */
  const episodes: Episode[] = [];
  let recording = true;
  const recordAlerts = async () => {
    while (recording) {
      const alerts = await prometheus.alerts().catch(() => []);
      // Read once the answer is in: a firing state was reached by then (never earlier than this time says).
      const now = Date.now();
      for (const alert of alerts) {
        const activeAt = Date.parse(alert.activeAt);
        const key = JSON.stringify(alert.labels);
        let episode = episodes.find((e) => e.key === key && e.activeAt === activeAt);
        if (!episode) {
          episode = { key, labels: alert.labels, activeAt };
          episodes.push(episode);
        }
        if (alert.state === 'firing') episode.firingSeenAt ??= now;
      }
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  };
  let recorder: Promise<void> | undefined;
  /** When the test first saw alpha Ready with 3 members (ms since the epoch). */
  let readyAtMs = 0;

  /**
   * Waits until an episode of each alert in `expected` that `matches` has fired; asserts each fired no sooner than
   * its `for` after it became active, and no later than `for`, two evaluations and the recorder's poll allow.
   */
  const untilFiring = async (matches: (episode: Episode) => boolean, expected: readonly string[]) => {
    const fired = (alert: string) =>
      episodes.find((e) => e.labels.alertname === alert && matches(e) && e.firingSeenAt !== undefined);
    await waitFor(() => expected.every((alert) => fired(alert)), {
      what: `${expected.join(' and ')} firing`,
      timeoutMs: 180_000,
      intervalMs: 1_000,
    });
    return expected.map((alert) => {
      const episode = fired(alert) as Episode & { firingSeenAt: number };
      const pendingMs = episode.firingSeenAt - episode.activeAt;
      process.stdout.write(`# prometheus: ${alert} firing ${pendingMs} ms after it became active\n`);
      assert.ok(pendingMs >= PENDING_S * 1000, `${alert} fired ${pendingMs} ms after it became active`);
      assert.ok(
        pendingMs <= (PENDING_S + 2 * EVALUATION_S) * 1000,
        `${alert} fired only after ${pendingMs} ms`,
      );
      return episode;
    });
  };

  before(async () => {
    env = await startEnvironment({ nodes: 3, minio: true });
    bucket = await createBucket(minioClient(env.minio as Minio), 'prom-e2e');
    core = env.kubeConfig.makeApiClient(CoreV1Api);
    await applyMonitoringCrds(env.kubeconfigPath);
    // dist/'s CRDs and operator (waves -2 and -1), as Argo CD syncs them.
    await env.applyDist({ belowWave: 0 });
    await env.createNamespace(ns, { 'pod-security.kubernetes.io/enforce': 'restricted' });
    await env.createNamespace(monitoring, { 'pod-security.kubernetes.io/enforce': 'restricted' });
    // Prometheus runs before the cluster exists, as in a real cluster: it is configured from the monitors and rules
    // stored when it starts, so the app's monitoring objects go first, and the rest once it scrapes.
    const app = monitoredApp({ endpoint: (env.minio as Minio).podEndpoint, bucket });
    await env.kubectl(['apply', '--server-side', '-f', '-'], { input: asList(app.monitoring) });
    await startKubeStateMetrics(env, monitoring, MONITORING_NODE);
    prometheus = await startPrometheus(env, {
      nodeName: MONITORING_NODE,
      namespace: monitoring,
      evaluationInterval: `${EVALUATION_S}s`,
    });
    recorder = recordAlerts();
    await env.kubectl(['apply', '--server-side', '-f', '-'], { input: asList(app.rest) });
    await waitFor(async () => readyMembers(await readCluster()).length === 3, {
      what: `EtcdCluster ${ns}/${name} Ready with 3 members`,
      timeoutMs: 300_000,
      intervalMs: 2_000,
    });
    readyAtMs = Date.now();
  });
  after(async () => {
    recording = false;
    await recorder;
    await env?.stop();
  });

  test('GIVEN our monitors WHEN Prometheus discovers them THEN the 3 members and both controller replicas are targets that are up, every rule of ours evaluates without error, and once formed no alert of the cluster is pending or firing', async () => {
    const targets = await waitFor(
      async () => {
        const active = await prometheus.targets();
        const members = active.filter((t) => t.scrapePool === `podMonitor/${ns}/${name}-members/0`);
        const controllers = active.filter(
          (t) => t.scrapePool === `serviceMonitor/${DEFAULT_OPERATOR_NAMESPACE}/etcd-gitops-controller/0`,
        );
        const all = [...members, ...controllers];
        return members.length === 3 && controllers.length === 2 && all.every((t) => t.health === 'up') && all;
      },
      { what: 'every target up', timeoutMs: 90_000, intervalMs: 2_000 },
    );
    const pods = await core.listNamespacedPod({ namespace: ns, labelSelector: memberSelectorString(name) });
    assert.deepEqual(
      targets
        .filter((t) => t.labels.namespace === ns)
        .map((t) => t.labels.pod)
        .sort(),
      pods.items.map((p) => p.metadata?.name).sort(),
      'the member targets are the member Pods, labelled with their namespace and pod',
    );
    // The series our alerts read, as scraped: the members' own and the controller's, with its labels kept. Each
    // member's from a scrape after the cluster was Ready (one from before may predate its first leader: a CI run
    // read 0 once); then each must say it has a leader.
    await waitFor(
      async () => {
        const scraped = await prometheus.query(`timestamp(etcd_server_has_leader{namespace="${ns}"})`);
        return scraped.length === 3 && scraped.every((s) => Number(s.value[1]) * 1000 > readyAtMs);
      },
      { what: 'every member scraped after Ready', timeoutMs: 4 * EVALUATION_S * 1000, intervalMs: 1_000 },
    );
    const leaders = await prometheus.query(`etcd_server_has_leader{namespace="${ns}"}`);
    assert.deepEqual(
      leaders.map((s) => s.value[1]),
      ['1', '1', '1'],
    );
    // The leader sets the gauge when it observes the third member ready, and Prometheus has it at its next scrape:
    // allow a few scrape intervals after the status said Ready (a CI run read 2 at once).
    const ready = await waitFor(
      async () => {
        const series = await prometheus.query(
          `etcd_gitops_members_ready{namespace="${ns}",cluster="${name}"}`,
        );
        return series.length > 0 && series.every((s) => s.value[1] === '3') && series;
      },
      { what: 'etcd_gitops_members_ready scraped as 3', timeoutMs: 20_000, intervalMs: 1_000 },
    );
    assert.deepEqual(
      ready.map((s) => s.value[1]),
      ['3'],
      'one series, from the leader',
    );
    const groups = await waitFor(
      async () => {
        const loaded = await prometheus.rules();
        const evaluated = loaded.flatMap((g) => g.rules).every((r) => r.health !== 'unknown');
        return loaded.length === 2 && evaluated && loaded;
      },
      { what: 'both rule groups evaluated', timeoutMs: 30_000, intervalMs: 1_000 },
    );
    for (const rule of groups.flatMap((g) => g.rules)) {
      assert.equal(rule.health, 'ok', `${rule.name}: ${rule.lastError}`);
    }
    // While members join, fewer are ready than desired: EtcdMembersDown and EtcdQuorumAtRisk may go pending, and
    // with this test's 20 s even fire on a loaded machine (a CI run saw it). Once formed, none stays.
    await waitFor(async () => (await ourAlerts()).length === 0, {
      what: 'no alert of the formed cluster pending or firing',
      timeoutMs: 60_000,
      intervalMs: 1_000,
    });
  });

  test(`WHEN a member's node dies THEN EtcdMembersDown and EtcdQuorumAtRisk fire once their ${PENDING_S} s have passed, and resolve once the controller has replaced the member`, async () => {
    // A member on a node that runs neither Prometheus and kube-state-metrics nor the controller holding the lease
    // (as Prometheus reads it).
    const leaderPods = (
      await prometheus.query(`etcd_gitops_leader{namespace="${DEFAULT_OPERATOR_NAMESPACE}"} == 1`)
    ).map((s) => s.metric.pod);
    assert.equal(leaderPods.length, 1, `one controller holds the lease: ${leaderPods.join(', ')}`);
    const controllerPod = await core.readNamespacedPod({
      namespace: DEFAULT_OPERATOR_NAMESPACE,
      name: leaderPods[0] as string,
    });
    const spared = new Set([MONITORING_NODE, prometheus.nodeName, controllerPod.spec?.nodeName]);
    const members = await core.listNamespacedPod({
      namespace: ns,
      labelSelector: memberSelectorString(name),
    });
    const victim = members.items.find((p) => !spared.has(p.spec?.nodeName));
    assert.ok(victim, `a member on a node other than ${[...spared].join(' and ')}`);
    const node = victim.spec?.nodeName as string;
    const stoppedAt = Date.now();
    await env.faults.stopNode(node);

    const sinceTheFault = (episode: Episode) =>
      episode.labels.namespace === ns &&
      episode.labels.cluster === name &&
      episode.labels.alertname !== 'EtcdBackupTooOld' &&
      episode.activeAt >= stoppedAt;
    await untilFiring(sinceTheFault, MEMBER_ALERTS);

    const repaired = await waitFor(
      async () => {
        const ready = readyMembers(await readCluster());
        return ready.length === 3 && !ready.includes(victim.metadata?.name as string) && Date.now();
      },
      { what: `3 Ready members without ${victim.metadata?.name}`, timeoutMs: 300_000, intervalMs: 1_000 },
    );
    const resolved = await waitFor(async () => (await ourAlerts()).length === 0 && Date.now(), {
      what: 'the alerts resolved',
      timeoutMs: 60_000,
      intervalMs: 1_000,
    });
    const resolvedMs = resolved - repaired;
    process.stdout.write(`# prometheus: alerts resolved ${resolvedMs} ms after the cluster was Ready at 3\n`);
    // A scrape of the controller and an evaluation after the repair, plus status and poll delays.
    assert.ok(resolvedMs <= 30_000, `resolved ${resolvedMs} ms after the repair`);
    assert.deepEqual(
      episodes
        .filter((episode) => sinceTheFault(episode) && episode.firingSeenAt !== undefined)
        .map((episode) => episode.labels.alertname)
        .filter((alert) => !(MEMBER_ALERTS as readonly string[]).includes(alert as string)),
      [],
      'no other alert of the cluster (no leader, quorum lost, quota, NOSPACE) fired from the fault to the repair',
    );
    // The node boots again, so the next tests have the whole environment (Pods it ran, such as a waiting backup
    // Job's, run again; its stale member is the controller's to clean up, as the node-loss e2e shows).
    await env.faults.restartNode(node);
  });

  test(`WHEN no controller replica runs THEN EtcdGitopsNoActiveController fires once its ${PENDING_S} s have passed, and resolves once a replica holds the lease again`, async () => {
    const noController = async () =>
      (await prometheus.alerts()).filter(
        (alert) =>
          alert.labels.alertname === 'EtcdGitopsNoActiveController' &&
          alert.labels.namespace === DEFAULT_OPERATOR_NAMESPACE,
      );
    assert.deepEqual(await noController(), [], 'no alert while a replica leads');
    const scale = (replicas: number) =>
      env.kubectl([
        'scale',
        'deployment/etcd-gitops-controller',
        '-n',
        DEFAULT_OPERATOR_NAMESPACE,
        `--replicas=${replicas}`,
      ]);
    const scaledAt = Date.now();
    await scale(0);
    await untilFiring(
      (episode) =>
        episode.labels.alertname === 'EtcdGitopsNoActiveController' &&
        episode.labels.namespace === DEFAULT_OPERATOR_NAMESPACE &&
        episode.activeAt >= scaledAt,
      ['EtcdGitopsNoActiveController'],
    );
    await scale(2);
    const leading = await waitFor(
      async () => {
        const leaders = await prometheus.query(
          `etcd_gitops_leader{namespace="${DEFAULT_OPERATOR_NAMESPACE}"} == 1`,
        );
        return leaders.length === 1 && Date.now();
      },
      { what: 'a controller replica scraped holding the lease', timeoutMs: 120_000, intervalMs: 1_000 },
    );
    const resolved = await waitFor(async () => (await noController()).length === 0 && Date.now(), {
      what: 'EtcdGitopsNoActiveController resolved',
      timeoutMs: 30_000,
      intervalMs: 1_000,
    });
    process.stdout.write(
      `# prometheus: EtcdGitopsNoActiveController resolved ${resolved - leading} ms after a leader was scraped\n`,
    );
    // The next evaluation after the scrape that showed the leader, and this loop's poll.
    assert.ok(resolved - leading <= (EVALUATION_S + 2) * 1000, `resolved ${resolved - leading} ms after`);
  });

  test(`GIVEN a backup schedule that never succeeded WHEN twice its gap has passed since its creation THEN EtcdBackupTooOld fires for it after its ${PENDING_S} s; WHEN a backup then succeeds THEN it resolves`, async () => {
    const cronJob = `${name}-backup`;
    const read = await env.kubeConfig
      .makeApiClient(BatchV1Api)
      .readNamespacedCronJob({ namespace: ns, name: cronJob });
    const created = new Date(read.metadata?.creationTimestamp as Date).getTime();
    const [episode] = await untilFiring(
      (e) => e.labels.namespace === ns && e.labels.cronjob === cronJob,
      ['EtcdBackupTooOld'],
    );
    const successes = await prometheus.query(
      `kube_cronjob_status_last_successful_time{namespace="${ns}",cronjob="${cronJob}"}`,
    );
    assert.equal(
      successes.length,
      0,
      'kube-state-metrics has no success series for it: the alert reads its creation',
    );
    const activeAfterMs = (episode?.activeAt as number) - created;
    process.stdout.write(
      `# prometheus: EtcdBackupTooOld active ${activeAfterMs} ms after the CronJob was created\n`,
    );
    // Twice the schedule's gap (60 s) after creation, at the next scrape and evaluation (creationTimestamp is in
    // whole seconds).
    assert.ok(activeAfterMs >= 119_000, `active ${activeAfterMs} ms after creation`);
    assert.ok(
      activeAfterMs <= 121_000 + 2 * EVALUATION_S * 1000,
      `active only ${activeAfterMs} ms after creation`,
    );

    // The missing Secret created: the waiting Job's Pod starts, the backup succeeds.
    const minio = env.minio as Minio;
    await createS3Secret(env, ns, BACKUP_CREDENTIALS, minio);
    const succeeded = await waitFor(
      async () => {
        const series = await prometheus.query(
          `kube_cronjob_status_last_successful_time{namespace="${ns}",cronjob="${cronJob}"}`,
        );
        return series.length > 0 && Date.now();
      },
      {
        what: `a success of ${cronJob} scraped from kube-state-metrics`,
        timeoutMs: 240_000,
        intervalMs: 1_000,
      },
    );
    const resolved = await waitFor(
      async () =>
        !(await prometheus.alerts()).some(
          (alert) => alert.labels.alertname === 'EtcdBackupTooOld' && alert.labels.cronjob === cronJob,
        ) && Date.now(),
      { what: 'EtcdBackupTooOld resolved', timeoutMs: 30_000, intervalMs: 1_000 },
    );
    process.stdout.write(
      `# prometheus: EtcdBackupTooOld resolved ${resolved - succeeded} ms after the success was scraped\n`,
    );
    assert.ok(resolved - succeeded <= (EVALUATION_S + 3) * 1000, `resolved ${resolved - succeeded} ms after`);
  });
  test(`GIVEN the newest backup corrupted WHEN its restore drill runs THEN EtcdBackupDrillFailed fires for the schedule after its ${PENDING_S} s; WHEN the backup is whole again and a drill succeeds THEN it resolves`, async () => {
    const batch = env.kubeConfig.makeApiClient(BatchV1Api);
    const schedule = `${name}-backup`;
    // No backup after the one corrupted below: the schedule stopped, and its running Job (if any) ended.
    await env.kubectl(['patch', 'cronjob', schedule, '-n', ns, '-p', '{"spec":{"suspend":true}}']);
    await waitFor(
      async () =>
        ((await batch.readNamespacedCronJob({ namespace: ns, name: schedule })).status?.active ?? [])
          .length === 0,
      { what: `${schedule} to have no running Job`, timeoutMs: 120_000, intervalMs: 1_000 },
    );
    const jobEnded = (job: string) =>
      waitFor(
        async () =>
          (await batch.readNamespacedJob({ namespace: ns, name: job })).status?.conditions?.find(
            (c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True',
          )?.type,
        { what: `Job ${job} to end`, timeoutMs: 180_000, intervalMs: 1_000 },
      );
    const drill = async (job: string) => {
      await env.kubectl(['create', 'job', `--from=cronjob/${schedule}-drill`, job, '-n', ns]);
      return jobEnded(job);
    };
    const logsOf = async (job: string) =>
      (
        await env.kubectl(['logs', '-n', ns, `job/${job}`, '--all-containers', '--tail=40'], {
          allowFailure: true,
        })
      ).stdout;
    const s3 = minioClient(env.minio as Minio);
    const [newest] = (await listBackups(s3, bucket, `${ns}/${name}/`)).backups;
    assert.ok(newest, 'a backup is stored (the previous test)');
    const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: newest.key }));
    const whole = Buffer.from(
      await (object.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray(),
    );
    const put = (body: Buffer) =>
      s3.send(
        new PutObjectCommand({ Bucket: bucket, Key: newest.key, Body: body, Metadata: object.Metadata }),
      );
    try {
      const corrupted = Buffer.from(whole);
      corrupted[Math.floor(corrupted.length / 2)] ^= 0xff;
      await put(corrupted);
      assert.equal(await drill('drill-bad'), 'Failed', await logsOf('drill-bad'));
      const [episode] = await untilFiring(
        (e) => e.labels.namespace === ns && e.labels.schedule === schedule,
        ['EtcdBackupDrillFailed'],
      );
      assert.equal(episode?.labels.cluster, name);
      const gauge = await prometheus.query(
        `etcd_gitops_backup_drill_failed{namespace="${ns}",cluster="${name}",schedule="${schedule}"}`,
      );
      assert.ok(gauge.length > 0, 'the controller exports the gauge');

      await put(whole);
      assert.equal(await drill('drill-good'), 'Complete', await logsOf('drill-good'));
      const good = Date.now();
      await waitFor(
        async () =>
          !(await prometheus.alerts()).some(
            (alert) =>
              alert.labels.alertname === 'EtcdBackupDrillFailed' && alert.labels.schedule === schedule,
          ),
        { what: 'EtcdBackupDrillFailed resolved', timeoutMs: 60_000, intervalMs: 1_000 },
      );
      process.stdout.write(
        `# prometheus: EtcdBackupDrillFailed resolved ${Date.now() - good} ms after the good drill ended\n`,
      );
    } finally {
      await put(whole).catch(() => undefined);
      s3.destroy();
    }
  });
});
