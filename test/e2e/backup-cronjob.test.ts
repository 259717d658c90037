// Backups on the local Kubernetes: the CronJob that EtcdCluster.addBackupSchedule() synthesizes fires, its
// Job's Pod (our image, on a real node) streams a snapshot of a real etcd member Pod into MinIO; `kubectl create job --from=cronjob/...` works; a failing backup is a failed Job
// whose log says why. The reconciler (as the shipped ServiceAccount) reports each schedule on the cluster
// (docs/design/backup-status.md): the stored key and revision, BackupReady, Events and the Last Backup column. The
// schedule's restore drill (docs/design/restore-drill.md) restores the newest backup in its own Pod and reports what
// the restored etcd served; a corrupted backup fails it, and the cluster says so. A schedule with a web identity
// (docs/design/workload-identity.md) backs up and drills with no Secret, and a new cluster bootstraps from its backup
// with the same identity, then is restored in place from it (the controller, as a process, verifies the backup with a
// token of that ServiceAccount): MinIO trusts the API server's ServiceAccount issuer.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { BatchV1Api, CoreV1Api } from '@kubernetes/client-node';
import { App, Chart } from 'cdk8s';
import { etcdClusterCrd, etcdRestoreCrd } from '../../constructs/api/crds.js';
import { clientServiceURL, DEFAULT_OPERATOR_NAMESPACE } from '../../constructs/conventions/names.js';
import { DEFAULT_WEB_IDENTITY_AUDIENCE } from '../../constructs/conventions/s3-credentials.js';
import { EtcdCluster } from '../../constructs/etcd-cluster.js';
import { restrictedNamespaceLabels } from '../../constructs/security.js';
import { listBackups } from '../../controller/backup/list-backups.js';
import { connect } from '../../controller/etcd/client.js';
import { RESTORE_REVISION_BUMP } from '../../controller/restore/etcd-version.js';
import { etcdVersions } from '../env/binaries.js';
import { type Environment, outsideClusterCidr, startEnvironment } from '../env/environment.js';
import { readEtcdCluster } from '../env/etcd-cluster.js';
import { waitFor } from '../env/wait.js';
import { createBucket, minioClient } from '../integration/helpers/backup-cli.js';
import { compareEtcd } from '../integration/helpers/fill.js';
import {
  createS3Secret,
  restoreObjects,
  startControllerProcess,
  whileRunning,
} from '../integration/helpers/restore-kube.js';
import { download, keys, metadataOf } from '../integration/helpers/s3-objects.js';
import { driveReconciler, type ReconcileDriver } from './reconcile-driver.js';

const ns = 'backup-e2e';
const name = 'main';

describe('backup CronJob on the local Kubernetes', () => {
  let env: Environment;
  let bucket: string;
  let driver: ReconcileDriver | undefined;

  const batch = () => env.kubeConfig.makeApiClient(BatchV1Api);
  const clusterStatus = async () => (await readEtcdCluster(env.kubeConfig, ns, name)).status;
  const backupReady = async () =>
    (await clusterStatus())?.conditions?.find((condition) => condition.type === 'BackupReady');
  const events = async (reason: string) =>
    (
      await env.kubeConfig.makeApiClient(CoreV1Api).listNamespacedEvent({
        namespace: ns,
        fieldSelector: `involvedObject.name=${name},reason=${reason}`,
      })
    ).items;
  const jobDone = (job: string) =>
    waitFor(
      async () => {
        const status = (await batch().readNamespacedJob({ namespace: ns, name: job })).status;
        const condition = status?.conditions?.find(
          (c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True',
        );
        return condition?.type;
      },
      { what: `Job ${job} to finish`, timeoutMs: 180_000, intervalMs: 1_000 },
    );
  const podLog = async (job: string) => {
    const pods = await env.kubeConfig
      .makeApiClient(CoreV1Api)
      .listNamespacedPod({ namespace: ns, labelSelector: `job-name=${job}` });
    const logs = await Promise.all(
      pods.items.map((pod) =>
        env.kubectl(['logs', '-n', ns, pod.metadata!.name!, '--all-containers'], { allowFailure: true }),
      ),
    );
    return logs.map((l) => `${l.stdout}${l.stderr}`).join('\n');
  };

  before(async () => {
    // MinIO also accepts the API server's ServiceAccount tokens of the default audience (the web identity tests).
    env = await startEnvironment({ nodes: 3, minio: { webIdentityAudience: DEFAULT_WEB_IDENTITY_AUDIENCE } });
    const minio = env.minio!;
    const s3 = minioClient(minio);
    bucket = await createBucket(s3, 'e2e');
    s3.destroy();
    await env.kubectl(['apply', '--server-side', '-f', '-'], { input: JSON.stringify(etcdClusterCrd()) });
    await env.kubectl([
      'wait',
      '--for=condition=Established',
      'crd/etcdclusters.etcd.gitops.dev',
      '--timeout=60s',
    ]);
    await env.createNamespace(ns, restrictedNamespaceLabels());
    await createS3Secret(env, ns, 's3', minio);

    // The user's cdk8s app: a size-1 cluster, a backup every minute, and a broken schedule (suspended).
    const app = new App();
    const chart = new Chart(app, 'backup-e2e', { namespace: ns });
    // The controller runs in this process, not from an EtcdOperator of this app: name its namespace.
    const cluster = new EtcdCluster(chart, name, {
      version: etcdVersions['3.6'],
      size: 1,
      operatorNamespace: DEFAULT_OPERATOR_NAMESPACE,
      // The reconciler runs outside the cluster (this process): admitted by address, as such a user must
      // (test/env/nodes/layout.ts, outsideClusterCidr).
      clients: [{ ipBlock: { cidr: outsideClusterCidr } }],
    });
    const s3Options = {
      // where the Job's Pod reaches MinIO
      endpoint: minio.podEndpoint,
      forcePathStyle: true,
      credentialsSecretName: 's3',
      backoffLimit: 0,
    };
    cluster
      .addBackupSchedule({ schedule: '* * * * *', bucket, keepLast: 5, ...s3Options })
      // Run by hand below (kubectl create job --from).
      .addRestoreDrill({ schedule: '0 0 1 1 *', suspend: true });
    // A schedule with a web identity: no Secret, the Jobs assume MinIO's role with the main-backup token.
    cluster
      .addBackupSchedule({
        name: 'wi',
        schedule: '0 0 1 1 *',
        suspend: true,
        bucket,
        prefix: 'wi/',
        endpoint: minio.podEndpoint,
        forcePathStyle: true,
        webIdentity: { roleArn: minio.roleArn as string, stsEndpoint: minio.podEndpoint },
        backoffLimit: 0,
      })
      .addRestoreDrill({ schedule: '0 0 1 1 *', suspend: true });
    cluster.addBackupSchedule({
      name: 'broken',
      schedule: '0 0 1 1 *',
      suspend: true,
      bucket: 'no-such-bucket',
      ...s3Options,
    });
    await env.kubectl(['apply', '--server-side', '-f', '-'], { input: app.synthYaml() });

    driver = driveReconciler(env, { namespace: ns, name });
  });

  after(async () => {
    await driver?.stop();
    await env?.stop();
  });

  test('GIVEN the synthesized CronJob WHEN it fires THEN its Job uploads a verified backup of the member to MinIO', async () => {
    const s3 = minioClient(env.minio!);
    try {
      const scheduled = await waitFor(
        async () => {
          const jobs = await batch().listNamespacedJob({
            namespace: ns,
            labelSelector: 'app.kubernetes.io/component=backup',
          });
          return jobs.items.find((job) => job.metadata?.ownerReferences?.[0]?.name === `${name}-backup`)
            ?.metadata?.name;
        },
        { what: 'the CronJob to create a Job', timeoutMs: 150_000, intervalMs: 1_000 },
      );
      // A Job made before the member was ready fails; the next minute's run must succeed.
      const succeeded = await waitFor(
        async () => {
          const jobs = await batch().listNamespacedJob({ namespace: ns });
          return jobs.items.find(
            (job) =>
              job.metadata?.ownerReferences?.[0]?.name === `${name}-backup` &&
              job.status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True'),
          )?.metadata?.name;
        },
        {
          what: `a scheduled backup Job to complete (first: ${scheduled})`,
          timeoutMs: 240_000,
          intervalMs: 2_000,
        },
      );
      const stored = await keys(s3, bucket);
      assert.ok(stored.length >= 1, `objects: ${stored.join(', ')}`);
      assert.ok(stored.every((key) => key.startsWith(`${ns}/${name}/`) && key.endsWith('.db')));
      const meta = await metadataOf(s3, bucket, stored.at(-1)!);
      assert.equal(meta['etcd-cluster'], name);
      assert.equal(meta['etcd-namespace'], ns);
      assert.match(meta['backup-sha256'] ?? '', /^[0-9a-f]{64}$/);
      assert.match(await podLog(succeeded), /"msg":"Stored backup"/);

      // The reconciler read the Pod's report: the key it stored, at the revision in the object's metadata.
      const status = await waitFor(
        async () => {
          const read = await clusterStatus();
          const entry = read?.backups?.find((backup) => backup.schedule === `${name}-backup`);
          const ready = read?.conditions?.find((condition) => condition.type === 'BackupReady');
          return entry?.lastSuccess?.key && ready?.status === 'True' ? read : undefined;
        },
        {
          what: 'status.backups to name a stored backup, BackupReady True',
          timeoutMs: 60_000,
          intervalMs: 1_000,
        },
      );
      const success = status?.backups?.find((backup) => backup.schedule === `${name}-backup`)?.lastSuccess;
      const objects = await keys(s3, bucket);
      assert.ok(success?.key && objects.includes(success.key), `${success?.key} among ${objects.join(', ')}`);
      const reported = await metadataOf(s3, bucket, success.key);
      assert.equal(success.revision, reported['etcd-revision']);
      assert.equal(success.sizeBytes, Number(reported['backup-size']));
      // Last Backup: the newest success, the Pod's end or the CronJob's own record of its Job's completion, which
      // comes a few seconds later (a run here: 4 s).
      const lag = Date.parse(status?.lastBackupTime ?? '') - Date.parse(success.time ?? '');
      assert.ok(
        lag >= 0 && lag <= 30_000,
        `lastBackupTime ${status?.lastBackupTime}, the Pod ended ${success.time}`,
      );
      // The suspended schedule is listed, not judged.
      assert.ok(status?.backups?.some((backup) => backup.schedule === `${name}-backup-broken`));
      // kubectl prints the printer column, an age.
      const table = (await env.kubectl(['get', 'etcd', name, '-n', ns])).stdout;
      const [header, row] = table.split('\n').map((line) => line.trim().split(/\s{2,}/));
      const age = row?.[header?.indexOf('LAST BACKUP') ?? -1];
      assert.match(age ?? '', /^\d+(s|m\d*s?)$/, table);
    } finally {
      s3.destroy();
    }
  });

  test('GIVEN the CronJob WHEN kubectl create job --from=cronjob/main-backup manual THEN one more backup is stored', async () => {
    const s3 = minioClient(env.minio!);
    try {
      await env.kubectl(['patch', 'cronjob', `${name}-backup`, '-n', ns, '-p', '{"spec":{"suspend":true}}']);
      const before = await keys(s3, bucket);
      await env.kubectl(['create', 'job', `--from=cronjob/${name}-backup`, 'manual', '-n', ns]);
      assert.equal(await jobDone('manual'), 'Complete', await podLog('manual'));
      const written = (await keys(s3, bucket)).filter((key) => !before.includes(key));
      assert.equal(written.length, 1, `new objects: ${written.join(', ')}`);
    } finally {
      s3.destroy();
    }
  });

  test("GIVEN the schedule's credentials made wrong WHEN it next runs THEN BackupReady False BackupFailed names S3_ERROR with a Warning Event; WHEN fixed THEN its next run makes BackupReady True and moves Last Backup", async (t) => {
    const before = (await clusterStatus())?.lastBackupTime;
    const setSecretKey = (secretKey: string) =>
      env.kubectl([
        'patch',
        'secret',
        's3',
        '-n',
        ns,
        '--type=merge',
        '-p',
        JSON.stringify({ stringData: { AWS_SECRET_ACCESS_KEY: secretKey } }),
      ]);
    await setSecretKey('not-the-secret-key');
    const madeWrong = Date.now();
    await env.kubectl(['patch', 'cronjob', `${name}-backup`, '-n', ns, '-p', '{"spec":{"suspend":false}}']);
    try {
      // The next minute's run fails; the reconciler passes every second here.
      const failed = await waitFor(
        async () => {
          const condition = await backupReady();
          return condition?.status === 'False' && condition.reason === 'BackupFailed' ? condition : undefined;
        },
        { what: 'BackupReady False, BackupFailed', timeoutMs: 150_000, intervalMs: 1_000 },
      );
      t.diagnostic(`BackupReady False ${Date.now() - madeWrong} ms after the credentials were made wrong`);
      assert.match(failed.message ?? '', /S3_ERROR: .*(wrong credentials|secret key is wrong)/);
      const entry = (await clusterStatus())?.backups?.find((backup) => backup.schedule === `${name}-backup`);
      assert.equal(entry?.lastAttempt?.outcome, 'Failed');
      assert.equal(entry?.lastFailure?.code, 'S3_ERROR');
      // Told by the pass that saw the Pod end: the condition's transition follows the container's end closely.
      const lag = Date.parse(failed.lastTransitionTime) - Date.parse(entry?.lastFailure?.time ?? '');
      assert.ok(lag >= 0 && lag <= 30_000, `BackupReady turned ${lag} ms after the attempt ended`);
      // (A Job made before the member was ready may have failed earlier, with another code.)
      const warning = await waitFor(
        async () => (await events('BackupFailed')).find((event) => event.message?.includes('S3_ERROR')),
        {
          what: 'a BackupFailed Event naming S3_ERROR',
          timeoutMs: 10_000,
          intervalMs: 500,
        },
      );
      assert.equal(warning.type, 'Warning');

      await setSecretKey(env.minio!.secretKey);
      const recovered = await waitFor(
        async () => {
          const read = await clusterStatus();
          const ready = read?.conditions?.find((condition) => condition.type === 'BackupReady');
          return ready?.status === 'True' ? read : undefined;
        },
        { what: 'BackupReady True after the fix', timeoutMs: 150_000, intervalMs: 1_000 },
      );
      assert.ok(
        Date.parse(recovered?.lastBackupTime ?? '') > Date.parse(before ?? ''),
        `${recovered?.lastBackupTime} after ${before}`,
      );
      const normal = await waitFor(async () => (await events('BackupRecovered'))[0], {
        what: 'a BackupRecovered Event',
        timeoutMs: 10_000,
        intervalMs: 500,
      });
      assert.equal(normal.type, 'Normal');
    } finally {
      await setSecretKey(env.minio!.secretKey);
      await env.kubectl(['patch', 'cronjob', `${name}-backup`, '-n', ns, '-p', '{"spec":{"suspend":true}}']);
    }
  });

  /** Runs the restore drill now and waits for its Job to end: its condition type. */
  const drillNow = async (job: string) => {
    await env.kubectl(['create', 'job', `--from=cronjob/${name}-backup-drill`, job, '-n', ns]);
    return jobDone(job);
  };
  const lastDrillOf = async (job: string) =>
    waitFor(
      async () => {
        const entry = (await clusterStatus())?.backups?.find(
          (backup) => backup.schedule === `${name}-backup`,
        );
        return entry?.lastDrill?.job === job ? entry.lastDrill : undefined;
      },
      { what: `status.backups[].lastDrill to tell Job ${job}`, timeoutMs: 60_000, intervalMs: 1_000 },
    );
  let drilledKeys = 0;

  test('GIVEN 25 keys and a backup stored WHEN the restore drill Job runs THEN it restores the newest backup in its own Pod and the cluster reports its key, revision and key count', async (t) => {
    const client = connect(clientServiceURL(name, ns), 30_000);
    try {
      const before = Number((await client.getAll().count()) ?? 0);
      for (let i = 0; i < 25; i++) await client.put(`drill/${i}`).value(`v${i}`);
      drilledKeys = before + 25;
    } finally {
      client.close();
    }
    await env.kubectl(['create', 'job', `--from=cronjob/${name}-backup`, 'drilled', '-n', ns]);
    assert.equal(await jobDone('drilled'), 'Complete', await podLog('drilled'));
    const s3 = minioClient(env.minio!);
    const [newest] = (await listBackups(s3, bucket, `${ns}/${name}/`)).backups;
    s3.destroy();
    assert.ok(newest, 'the backup is listed');

    const started = Date.now();
    assert.equal(await drillNow('drill-1'), 'Complete', await podLog('drill-1'));
    t.diagnostic(`drill Job complete ${Date.now() - started} ms after it was created`);
    const drill = await lastDrillOf('drill-1');
    t.diagnostic(`lastDrill: ${JSON.stringify(drill)}`);
    assert.equal(drill.outcome, 'Succeeded');
    assert.equal(drill.key, newest.key);
    assert.equal(drill.revision, newest.metadata.revision);
    assert.equal(drill.keys, drilledKeys, 'the restored etcd counted every key the backup holds');
    assert.ok(
      BigInt(drill.servedRevision ?? '0') >= BigInt(newest.metadata.revision) + BigInt(RESTORE_REVISION_BUMP),
      `served ${drill.servedRevision}, recorded ${newest.metadata.revision} + the bump`,
    );
    // The schedule is suspended since the credentials test: BackupReady judges a drill only when it failed.
    assert.notEqual((await backupReady())?.reason, 'DrillFailed');
  });

  test('GIVEN the newest backup corrupted in MinIO WHEN the drill runs THEN it fails CHECKSUM_MISMATCH, BackupReady False DrillFailed with a Warning Event, the cluster untouched; WHEN the backup is whole again THEN the next drill succeeds and DrillFailed clears', async (t) => {
    const s3 = minioClient(env.minio!);
    const [newest] = (await listBackups(s3, bucket, `${ns}/${name}/`)).backups;
    assert.ok(newest);
    const file = join(await mkdtemp(join(tmpdir(), 'egt-drill-')), 'backup.db');
    await download(s3, bucket, newest.key, file);
    const whole = await readFile(file);
    const metadata = await metadataOf(s3, bucket, newest.key);
    const put = (body: Buffer) =>
      s3.send(new PutObjectCommand({ Bucket: bucket, Key: newest.key, Body: body, Metadata: metadata }));
    try {
      const corrupted = Buffer.from(whole);
      corrupted[Math.floor(corrupted.length / 2)] ^= 0xff;
      await put(corrupted);

      assert.equal(await drillNow('drill-2'), 'Failed');
      const drill = await lastDrillOf('drill-2');
      t.diagnostic(`lastDrill: ${JSON.stringify(drill)}`);
      assert.equal(drill.outcome, 'Failed');
      assert.equal(drill.code, 'CHECKSUM_MISMATCH');
      assert.ok(drill.reason?.includes(newest.key), drill.reason);
      const failed = await waitFor(
        async () => {
          const condition = await backupReady();
          return condition?.reason === 'DrillFailed' ? condition : undefined;
        },
        { what: 'BackupReady False, DrillFailed', timeoutMs: 30_000, intervalMs: 1_000 },
      );
      assert.equal(failed.status, 'False');
      assert.match(
        failed.message ?? '',
        new RegExp(`restore drill of backup schedule ${name}-backup failed \\(Job drill-2`),
      );
      const warning = await waitFor(async () => (await events('DrillFailed'))[0], {
        what: 'a DrillFailed Event',
        timeoutMs: 10_000,
        intervalMs: 500,
      });
      assert.equal(warning.type, 'Warning');
      assert.match(warning.message ?? '', /CHECKSUM_MISMATCH/);
      // The cluster was never touched: Ready, and every key still there.
      const ready = (await clusterStatus())?.conditions?.find((condition) => condition.type === 'Ready');
      assert.equal(ready?.status, 'True');
      const client = connect(clientServiceURL(name, ns), 30_000);
      try {
        assert.equal(Number(await client.getAll().prefix('drill/').count()), 25);
      } finally {
        client.close();
      }

      await put(whole);
      assert.equal(await drillNow('drill-3'), 'Complete', await podLog('drill-3'));
      assert.equal((await lastDrillOf('drill-3')).outcome, 'Succeeded');
      // The only schedules are suspended: with the drill good again, nothing is judged (docs/design/backup-status.md).
      await waitFor(async () => ((await backupReady()) === undefined ? true : undefined), {
        what: 'BackupReady gone after a good drill (every schedule suspended)',
        timeoutMs: 30_000,
        intervalMs: 1_000,
      });
      const normal = await waitFor(async () => (await events('DrillSucceeded'))[0], {
        what: 'a DrillSucceeded Event',
        timeoutMs: 10_000,
        intervalMs: 500,
      });
      assert.equal(normal.type, 'Normal');
    } finally {
      await put(whole).catch(() => undefined);
      s3.destroy();
      await rm(dirname(file), { recursive: true, force: true });
    }
  });

  let webIdentityKey: string | undefined;
  let webIdentityKeys = 0;

  test('GIVEN a schedule with a web identity and no Secret WHEN its Job and its drill run THEN the backup is stored and drilled, from Pods that run as main-backup with a projected token and no key', async () => {
    const client = connect(clientServiceURL(name, ns), 30_000);
    try {
      webIdentityKeys = Number((await client.getAll().count()) ?? 0);
    } finally {
      client.close();
    }
    assert.ok(webIdentityKeys > 0, 'the cluster holds keys');
    await env.kubectl(['create', 'job', `--from=cronjob/${name}-backup-wi`, 'wi-1', '-n', ns]);
    assert.equal(await jobDone('wi-1'), 'Complete', await podLog('wi-1'));
    const pods = await env.kubeConfig
      .makeApiClient(CoreV1Api)
      .listNamespacedPod({ namespace: ns, labelSelector: 'job-name=wi-1' });
    const spec = pods.items[0]?.spec;
    assert.equal(spec?.serviceAccountName, `${name}-backup`);
    const container = spec?.containers[0];
    assert.equal(container?.envFrom, undefined, 'no Secret in the environment');
    assert.ok(
      !container?.env?.some((e) => e.name.startsWith('AWS_ACCESS_KEY') || e.name.startsWith('AWS_SECRET')),
    );
    assert.ok(
      spec?.volumes?.some(
        (v) => v.projected?.sources?.[0]?.serviceAccountToken?.audience === 'sts.amazonaws.com',
      ),
    );
    const s3 = minioClient(env.minio!);
    const [newest] = (await listBackups(s3, bucket, `wi/${ns}/${name}/`)).backups;
    s3.destroy();
    assert.ok(newest, 'the backup is stored under the schedule prefix');
    webIdentityKey = newest.key;

    assert.equal(
      await (async () => {
        await env.kubectl([
          'create',
          'job',
          `--from=cronjob/${name}-backup-wi-drill`,
          'wi-drill-1',
          '-n',
          ns,
        ]);
        return jobDone('wi-drill-1');
      })(),
      'Complete',
      await podLog('wi-drill-1'),
    );
    const drill = await waitFor(
      async () =>
        (await clusterStatus())?.backups?.find((backup) => backup.schedule === `${name}-backup-wi`)
          ?.lastDrill,
      { what: 'the web identity schedule drilled', timeoutMs: 60_000, intervalMs: 1_000 },
    );
    assert.equal(drill.outcome, 'Succeeded', JSON.stringify(drill));
    assert.equal(drill.key, webIdentityKey);
    assert.equal(drill.keys, webIdentityKeys);
  });

  test('GIVEN that backup WHEN a new cluster bootstraps from it with the web identity THEN its seed runs as restored-backup and the cluster serves every key of the backup', async () => {
    assert.ok(webIdentityKey, 'the backup of the previous test');
    const minio = env.minio!;
    const app = new App();
    const chart = new Chart(app, 'restored', { namespace: ns });
    new EtcdCluster(chart, 'restored', {
      version: etcdVersions['3.6'],
      size: 1,
      operatorNamespace: DEFAULT_OPERATOR_NAMESPACE,
      clients: [{ ipBlock: { cidr: outsideClusterCidr } }],
      bootstrapFromBackup: {
        bucket,
        key: webIdentityKey,
        endpoint: minio.podEndpoint,
        forcePathStyle: true,
        webIdentity: { roleArn: minio.roleArn as string, stsEndpoint: minio.podEndpoint },
      },
    });
    await env.kubectl(['apply', '--server-side', '-f', '-'], { input: app.synthYaml() });
    const restoredDriver = driveReconciler(env, { namespace: ns, name: 'restored' });
    try {
      await waitFor(
        async () =>
          (await readEtcdCluster(env.kubeConfig, ns, 'restored')).status?.conditions?.find(
            (c) => c.type === 'Ready',
          )?.status === 'True',
        { what: 'the restored cluster Ready', timeoutMs: 180_000, intervalMs: 1_000 },
      );
      const seed = await env.kubeConfig
        .makeApiClient(CoreV1Api)
        .readNamespacedPod({ namespace: ns, name: 'restored-0' });
      assert.equal(seed.spec?.serviceAccountName, 'restored-backup');
      assert.equal(seed.spec?.initContainers?.[0]?.envFrom, undefined, 'no Secret in the seed');
      const [source, restored] = [
        connect(clientServiceURL(name, ns), 30_000),
        connect(clientServiceURL('restored', ns), 30_000),
      ];
      try {
        // Ready is the members' readiness; the new Service's name and address reach this process's proxy a moment
        // later (CoreDNS and kube-proxy watch it): wait for the first answer, then judge it.
        const count = await waitFor(async () => Number((await restored.getAll().count()) ?? 0), {
          what: 'the restored cluster to answer through its client Service',
          timeoutMs: 60_000,
          intervalMs: 1_000,
        });
        assert.equal(count, webIdentityKeys);
        assert.equal(await compareEtcd(source, restored), webIdentityKeys);
      } finally {
        source.close();
        restored.close();
      }
    } finally {
      await restoredDriver.stop();
    }
  });

  test("GIVEN the restored cluster written to after its bootstrap WHEN an EtcdRestore of the same backup with the web identity runs in place (the controller as a process) THEN the controller verifies the backup with a token of restored-backup, and the cluster holds exactly the backup's keys again, its seed run as restored-backup with no Secret", async () => {
    assert.ok(webIdentityKey, 'the backup of the earlier test');
    const minio = env.minio!;
    // The controller process below runs both controllers for every cluster of the namespace: main's own driver stops.
    await driver?.stop();
    driver = undefined;
    await env.kubectl(['apply', '--server-side', '-f', '-'], { input: JSON.stringify(etcdRestoreCrd()) });
    await env.kubectl([
      'wait',
      '--for=condition=Established',
      'crd/etcdrestores.etcd.gitops.dev',
      '--timeout=60s',
    ]);
    const written = connect(clientServiceURL('restored', ns), 30_000);
    try {
      await written.put('written-after-bootstrap').value('gone after the restore');
    } finally {
      written.close();
    }
    const dir = await mkdtemp(join(tmpdir(), 'etcd-gitops-backup-e2e-'));
    const controller = startControllerProcess(env, { name: 'controller', dir, namespace: ns });
    try {
      const objects = restoreObjects(env, ns);
      await objects.createRestore('restored-wi', {
        clusterName: 'restored',
        allowHealthyCluster: true,
        backup: {
          bucket,
          key: webIdentityKey,
          endpoint: minio.podEndpoint,
          forcePathStyle: true,
          webIdentity: { roleArn: minio.roleArn as string, stsEndpoint: minio.podEndpoint },
        },
      });
      const restore = await objects.phase('restored-wi', 'Completed', whileRunning(controller), 240_000);
      assert.equal(restore.status?.phase, 'Completed', JSON.stringify(restore.status));
      const pods = await env.kubeConfig
        .makeApiClient(CoreV1Api)
        .listNamespacedPod({ namespace: ns, labelSelector: 'app.kubernetes.io/instance=restored' });
      assert.equal(pods.items.length, 1, 'size 1: the seed is the member');
      const seed = pods.items[0]?.spec;
      assert.equal(seed?.serviceAccountName, 'restored-backup');
      assert.equal(seed?.initContainers?.[0]?.envFrom, undefined, 'no Secret in the seed');
      const restored = connect(clientServiceURL('restored', ns), 30_000);
      try {
        const count = await waitFor(async () => Number((await restored.getAll().count()) ?? 0), {
          what: 'the restored cluster to answer through its client Service',
          timeoutMs: 60_000,
          intervalMs: 1_000,
        });
        assert.equal(count, webIdentityKeys, "exactly the backup's keys");
        assert.equal(await restored.get('written-after-bootstrap').string(), null);
      } finally {
        restored.close();
      }
    } finally {
      await controller.stop(5_000);
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('fails when the bucket does not exist: a failed Job, exit code 4, whose log says why', async () => {
    await env.kubectl(['create', 'job', `--from=cronjob/${name}-backup-broken`, 'broken', '-n', ns]);
    assert.equal(await jobDone('broken'), 'Failed');
    const log = await podLog('broken');
    assert.match(log, /"code":"S3_ERROR"/);
    assert.ok(
      log.includes(
        `cannot use bucket 'no-such-bucket' at ${env.minio!.podEndpoint}: the bucket does not exist`,
      ),
      log,
    );
    const pods = await env.kubeConfig
      .makeApiClient(CoreV1Api)
      .listNamespacedPod({ namespace: ns, labelSelector: 'job-name=broken' });
    assert.equal(pods.items[0]?.status?.containerStatuses?.[0]?.state?.terminated?.exitCode, 4);
  });
});
