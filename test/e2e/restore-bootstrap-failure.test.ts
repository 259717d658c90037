// A new cluster whose `spec.bootstrap.backup` cannot be restored (docs/design/restore.md, "A new cluster from a
// backup"), on the local Kubernetes with MinIO and the controller as a process: one cluster names a key that does not
// exist, another an object that is not a backup of ours. The seed's `restore fetch` init container (our image) exits
// with its named code; the cluster reports `Degraded` `BootstrapRestoreFailed` naming that reason and exit code, a
// Warning Event says the same, and nothing else happens: no member beyond the seed Pod, the seed's PVC kept. A
// failure only the user can clear is `Stalled`; one a retry may clear (the store down: `S3Unavailable`) keeps the
// cluster `Progressing` until the store answers. A hand-written set that forgets the web identity's ServiceAccount
// has its seed Pod refused by the API server: the cluster tells the refusal (`WriteRefused`) until the account exists.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { CoreV1Api } from '@kubernetes/client-node';
import { etcdVersions } from '../env/binaries.js';
import type { Environment } from '../env/environment.js';
import type { ManagedProcess } from '../env/process-group.js';
import { waitFor } from '../env/wait.js';
import {
  clusterManifests,
  type RestoreTestbed,
  restoreObjects,
  startControllerProcess,
  startRestoreTestbed,
  whileRunning,
} from '../integration/helpers/restore-kube.js';

const ns = 'restore-bootstrap-failure';

describe('a bootstrap backup that cannot be restored (local Kubernetes, MinIO)', () => {
  let testbed: RestoreTestbed | undefined;
  let env: Environment;
  let s3: S3Client;
  let dir: string;
  let bucket: string;
  let controller: ManagedProcess | undefined;
  const objects = () => restoreObjects(env, ns);
  const core = () => env.kubeConfig.makeApiClient(CoreV1Api);

  before(async () => {
    testbed = await startRestoreTestbed('bootstrap-failure', ns);
    ({ env, s3, bucket, dir } = testbed);
    controller = startControllerProcess(env, { name: 'controller', dir, namespace: ns });
  });

  after(async () => {
    await controller?.stop(5_000);
    await testbed?.stop();
  });

  const bootstrapFrom = (name: string, key: string) =>
    testbed!.applyCluster({
      name,
      version: etcdVersions['3.6'],
      size: 3,
      bootstrapFromBackup: {
        bucket,
        key,
        endpoint: env.minio!.podEndpoint,
        forcePathStyle: true,
        credentialsSecretName: 's3',
      },
    });

  /** Waits until the cluster reports Degraded BootstrapRestoreFailed after the init container failed `failures`
   *  times (so the controller saw the failure again after the first report); returns the condition's message. */
  const degradedAfter = (name: string, failures: number) =>
    waitFor(
      async () => {
        const pod = await core().readNamespacedPod({ namespace: ns, name: `${name}-0` });
        const init = pod.status?.initContainerStatuses?.find((c) => c.name === 'restore');
        const degraded = (await objects().readCluster(name)).status?.conditions?.find(
          (c) => c.type === 'Degraded',
        );
        const seen = `after ${failures - 1} restart(s)`;
        return (
          (init?.restartCount ?? 0) >= failures - 1 &&
          degraded?.status === 'True' &&
          degraded.reason === 'BootstrapRestoreFailed' &&
          degraded.message?.includes(seen) &&
          degraded.message
        );
      },
      {
        what: `cluster ${name} Degraded BootstrapRestoreFailed`,
        timeoutMs: 180_000,
        intervalMs: 500,
        abortIf: whileRunning(controller!),
      },
    );

  /** Only the seed exists: one Pod, one PVC (not being deleted), no etcd member in status. */
  const assertOnlyTheSeed = async (name: string) => {
    const selector = { namespace: ns, labelSelector: `app.kubernetes.io/instance=${name}` };
    const pods = (await core().listNamespacedPod(selector)).items;
    assert.deepEqual(
      pods.map((pod) => pod.metadata?.name),
      [`${name}-0`],
    );
    const pvcs = (await core().listNamespacedPersistentVolumeClaim(selector)).items;
    assert.deepEqual(
      pvcs.map((pvc) => [pvc.metadata?.name, Boolean(pvc.metadata?.deletionTimestamp)]),
      [[`${name}-0-data`, false]],
    );
    const status = (await objects().readCluster(name)).status;
    assert.equal(status?.replicas ?? 0, 0);
    assert.equal(status?.clusterID, undefined);
  };

  /** [status, reason] of Progressing and Stalled: whether a GitOps tool is told to wait or that only the user can help. */
  const progressAndStall = async (name: string) => {
    const conditions = (await objects().readCluster(name)).status?.conditions ?? [];
    return ['Progressing', 'Stalled'].map((type) => {
      const condition = conditions.find((c) => c.type === type);
      return [condition?.status, condition?.reason];
    });
  };
  const stalled = [
    ['False', 'BootstrapRestoreFailed'],
    ['True', 'BootstrapRestoreFailed'],
  ];

  const warningEvent = async (name: string) =>
    (await objects().events(name)).find((e) => e.type === 'Warning' && e.reason === 'BootstrapRestoreFailed');

  test('GIVEN a cluster bootstrapped from a key that does not exist WHEN its seed restores THEN it reports Degraded BackupNotFound with exit code 4, a Warning Event, and only the seed Pod and PVC exist', async () => {
    await bootstrapFrom('missing', `${ns}/missing/nothing-here.db`);
    const message = await degradedAfter('missing', 2);
    assert.match(
      message,
      /the seed missing-0 could not restore spec\.bootstrap\.backup: exit code 4 \(BackupNotFound: /,
    );
    assert.match(message, /nothing-here\.db/);
    const event = await warningEvent('missing');
    assert.match(event?.message ?? '', /exit code 4 \(BackupNotFound: /);
    assert.deepEqual(
      await progressAndStall('missing'),
      stalled,
      'only the user can make a missing key appear',
    );
    await assertOnlyTheSeed('missing');
  });

  test('GIVEN a cluster bootstrapped from an object that is not a backup WHEN its seed restores THEN it reports Degraded NotABackup with exit code 7 and keeps only the seed', async () => {
    const key = `${ns}/foreign/not-a-backup.db`;
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: Buffer.alloc(4096, 7) }));
    await bootstrapFrom('foreign', key);
    const message = await degradedAfter('foreign', 2);
    assert.match(message, /exit code 7 \(NotABackup: /);
    assert.match((await warningEvent('foreign'))?.message ?? '', /exit code 7 \(NotABackup: /);
    assert.deepEqual(await progressAndStall('foreign'), stalled);
    await assertOnlyTheSeed('foreign');
  });

  test('GIVEN the store down WHEN the seed restores THEN Degraded S3Unavailable but still Progressing, not Stalled; WHEN the store is back and the key missing THEN Stalled BackupNotFound', async () => {
    const minio = env.minio!;
    await minio.pause();
    try {
      await bootstrapFrom('unreachable', `${ns}/unreachable/nothing-here.db`);
      const message = await degradedAfter('unreachable', 2);
      assert.match(message, /exit code 4 \(S3Unavailable: /);
      assert.deepEqual(
        await progressAndStall('unreachable'),
        [
          ['True', 'BootstrapRestoreFailed'],
          ['False', 'AsExpected'],
        ],
        'a store that does not answer may answer at the next retry: the cluster is still progressing',
      );
    } finally {
      await minio.resume();
    }
    await waitFor(
      async () => {
        const degraded = (await objects().readCluster('unreachable')).status?.conditions?.find(
          (c) => c.type === 'Degraded',
        );
        return /exit code 4 \(BackupNotFound: /.test(degraded?.message ?? '');
      },
      {
        what: 'the retried seed of unreachable to report BackupNotFound once the store answers',
        timeoutMs: 180_000,
        intervalMs: 500,
        abortIf: whileRunning(controller!),
      },
    );
    assert.deepEqual(await progressAndStall('unreachable'), stalled);
    await assertOnlyTheSeed('unreachable');
  });
  test('GIVEN a cluster bootstrapped with a web identity applied without its <name>-backup ServiceAccount WHEN the seed Pod is created THEN the API server refuses it and the cluster is Degraded WriteRefused naming the ServiceAccount (a Warning Event, still Progressing, no Pod); WHEN the ServiceAccount is applied THEN the seed Pod is created', async () => {
    const name = 'no-identity';
    const minio = env.minio!;
    const manifests = clusterManifests({
      namespace: ns,
      name,
      version: etcdVersions['3.6'],
      size: 3,
      bucket,
      minio,
      credentialsSecretName: 's3',
      bootstrapFromBackup: {
        bucket,
        key: `${ns}/${name}/nothing-here.db`,
        endpoint: minio.podEndpoint,
        forcePathStyle: true,
        webIdentity: { roleArn: 'arn:minio:iam:::role/etcd-gitops-test' },
      },
    });
    const isIdentity = (manifest: Record<string, unknown>) =>
      manifest.kind === 'ServiceAccount' &&
      (manifest.metadata as { name?: string }).name === `${name}-backup`;
    const identity = manifests.find(isIdentity);
    assert.ok(identity, 'the construct makes the ServiceAccount a hand-written set can forget');
    const apply = (items: Record<string, unknown>[]) =>
      env.kubectl(['apply', '--server-side', '-f', '-'], {
        input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items }),
      });
    await apply(manifests.filter((manifest) => !isIdentity(manifest)));
    const message = await waitFor(
      async () => {
        const degraded = (await objects().readCluster(name)).status?.conditions?.find(
          (c) => c.type === 'Degraded',
        );
        return degraded?.status === 'True' && degraded.reason === 'WriteRefused' && degraded.message;
      },
      {
        what: `cluster ${name} Degraded WriteRefused`,
        timeoutMs: 60_000,
        intervalMs: 500,
        abortIf: whileRunning(controller!),
      },
    );
    console.log(`Degraded WriteRefused: ${message}`);
    assert.match(
      message,
      new RegExp(
        `^the API server refused CreatePod ${name}-0 \\(HTTP 403\\): .*serviceaccount "${name}-backup" not found`,
      ),
    );
    // The pass writes the status, then records its Events: wait for the Event of the same pass.
    const event = await waitFor(
      async () =>
        (await objects().events(name)).find((e) => e.type === 'Warning' && e.reason === 'WriteRefused'),
      { what: `the WriteRefused Event of ${name}`, timeoutMs: 15_000, intervalMs: 500 },
    );
    assert.equal(event.message, message);
    assert.deepEqual(
      await progressAndStall(name),
      [
        ['True', 'WriteRefused'],
        ['False', 'AsExpected'],
      ],
      'the ServiceAccount may yet be applied (a GitOps tool applying in waves): not Stalled',
    );
    const selector = { namespace: ns, labelSelector: `app.kubernetes.io/instance=${name}` };
    assert.deepEqual((await core().listNamespacedPod(selector)).items, []);

    await apply([identity]);
    const seed = await waitFor(
      async () => {
        const pods = (await core().listNamespacedPod(selector)).items;
        return pods.length === 1 && pods[0];
      },
      {
        what: `the seed Pod of ${name} once its ServiceAccount exists`,
        // The controller retries a refused write every 10 s (REQUEUE.refused).
        timeoutMs: 30_000,
        intervalMs: 500,
        abortIf: whileRunning(controller!),
      },
    );
    assert.equal(seed.metadata?.name, `${name}-0`);
    assert.equal(seed.spec?.serviceAccountName, `${name}-backup`);
  });
});
