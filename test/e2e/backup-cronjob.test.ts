// Backups on the local Kubernetes: the CronJob that EtcdCluster.addBackupSchedule() synthesizes fires, its
// Job's Pod (our image, on a real node) streams a snapshot of a real etcd member Pod into MinIO; `kubectl create job --from=cronjob/...` works; a failing backup is a failed Job
// whose log says why.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { BatchV1Api, CoreV1Api } from '@kubernetes/client-node';
import { App, Chart } from 'cdk8s';
import { etcdClusterCrd } from '../../constructs/api/crds.js';
import { DEFAULT_OPERATOR_NAMESPACE } from '../../constructs/conventions/names.js';
import { EtcdCluster } from '../../constructs/etcd-cluster.js';
import { restrictedNamespaceLabels } from '../../constructs/security.js';
import { etcdVersions } from '../env/binaries.js';
import { type Environment, outsideClusterCidr, startEnvironment } from '../env/environment.js';
import { waitFor } from '../env/wait.js';
import { createBucket, minioClient } from '../integration/helpers/backup-cli.js';
import { createS3Secret } from '../integration/helpers/restore-kube.js';
import { keys, metadataOf } from '../integration/helpers/s3-objects.js';
import { driveReconciler, type ReconcileDriver } from './reconcile-driver.js';

const ns = 'backup-e2e';
const name = 'main';

describe('backup CronJob on the local Kubernetes', () => {
  let env: Environment;
  let bucket: string;
  let driver: ReconcileDriver | undefined;

  const batch = () => env.kubeConfig.makeApiClient(BatchV1Api);
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
      pods.items.map((pod) => env.kubectl(['logs', '-n', ns, pod.metadata!.name!], { allowFailure: true })),
    );
    return logs.map((l) => `${l.stdout}${l.stderr}`).join('\n');
  };

  before(async () => {
    env = await startEnvironment({ nodes: 3, minio: true });
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
    cluster.addBackupSchedule({ schedule: '* * * * *', bucket, keepLast: 5, ...s3Options });
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
