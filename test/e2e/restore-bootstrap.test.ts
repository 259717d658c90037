// A new cluster seeded from a backup (`spec.bootstrap.backup`, docs/design/restore.md) on the local Kubernetes with
// MinIO and the controller as a process: a 3.5 cluster made by our constructs is backed up twice by Jobs from its
// synthesized CronJob; a new 3.6 cluster (also synthesized) bootstraps from the newest backup under the source's
// prefix: its seed's `restore fetch` init container (our image) restores the 3.5 snapshot with 3.6's etcdutl, the
// cluster grows to 3 members, and holds exactly the keys of that backup.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { S3Client } from '@aws-sdk/client-s3';
import { CoreV1Api } from '@kubernetes/client-node';
import { Etcd3 } from 'etcd3';
import { etcdVersions } from '../env/binaries.js';
import type { Environment } from '../env/environment.js';
import type { ManagedProcess } from '../env/process-group.js';
import {
  backupNow,
  clusterApp,
  type RestoreTestbed,
  restoreObjects,
  startControllerProcess,
  startRestoreTestbed,
  untilAnswering,
  whileRunning,
} from '../integration/helpers/restore-kube.js';
import { keys, metadataOf } from '../integration/helpers/s3-objects.js';

const ns = 'restore-bootstrap';
const source = 'old';
const target = 'new';
const clientURL = (cluster: string) => `http://${cluster}-client.${ns}.svc:2379`;

describe('a new cluster bootstrapped from a backup (local Kubernetes, MinIO)', () => {
  let testbed: RestoreTestbed | undefined;
  let env: Environment;
  let s3: S3Client;
  let dir: string;
  let bucket: string;
  let controller: ManagedProcess | undefined;
  const objects = () => restoreObjects(env, ns);
  const apply = (yaml: string) => env.kubectl(['apply', '--server-side', '-f', '-'], { input: yaml });

  before(async () => {
    testbed = await startRestoreTestbed('bootstrap', ns);
    ({ env, s3, bucket, dir } = testbed);
    controller = startControllerProcess(env, { name: 'controller', dir, namespace: ns });
  });

  after(async () => {
    await controller?.stop(5_000);
    await testbed?.stop();
  });

  const app = (name: string, version: string, size: number, bootstrap?: { latestUnderPrefix: string }) =>
    clusterApp({
      namespace: ns,
      name,
      version,
      size,
      bucket,
      minio: env.minio!,
      credentialsSecretName: 's3',
      ...(bootstrap
        ? {
            bootstrapFromBackup: {
              bucket,
              ...bootstrap,
              endpoint: env.minio!.podEndpoint,
              forcePathStyle: true,
              credentialsSecretName: 's3',
            },
          }
        : {}),
    });

  test('GIVEN a 3.5 cluster WHEN its CronJob backs it up twice THEN two backups of etcd 3.5 are stored', async () => {
    await apply(app(source, etcdVersions['3.5'], 1));
    await objects().readyAt(source, 1, whileRunning(controller!));
    const client = new Etcd3({ hosts: [clientURL(source)] });
    try {
      await untilAnswering(client, clientURL(source));
      for (let i = 0; i < 50; i++) await client.put(`first/${i}`).value(`v${i}`);
      await backupNow(env, ns, `${source}-backup`, 'backup-1');
      for (let i = 0; i < 50; i++) await client.put(`second/${i}`).value(`v${i}`);
      await backupNow(env, ns, `${source}-backup`, 'backup-2');
      for (let i = 0; i < 10; i++) await client.put(`unsaved/${i}`).value(`v${i}`);
    } finally {
      client.close();
    }
    const stored = await keys(s3, bucket, `${ns}/${source}/`);
    assert.equal(stored.length, 2, stored.join(', '));
    for (const key of stored) {
      assert.match((await metadataOf(s3, bucket, key))['etcd-version'] ?? '', /^3\.5\./);
    }
  });

  test('WHEN a 3.6 cluster of size 3 bootstraps from the newest backup under the prefix THEN it grows to 3 with exactly the keys of that backup', async () => {
    await apply(app(target, etcdVersions['3.6'], 3, { latestUnderPrefix: `${ns}/${source}/` }));
    const status = await objects().readyAt(target, 3, whileRunning(controller!));
    assert.match(status.currentVersion ?? '', /^3\.6\./);
    // The seed restored the backup with its init container; the members that joined later have none.
    const pods = (
      await env.kubeConfig
        .makeApiClient(CoreV1Api)
        .listNamespacedPod({ namespace: ns, labelSelector: `app.kubernetes.io/instance=${target}` })
    ).items;
    const withRestore = pods.filter((pod) => pod.spec?.initContainers?.some((c) => c.name === 'restore'));
    assert.deepEqual(
      withRestore.map((pod) => pod.metadata?.name),
      [`${target}-0`],
    );
    const client = new Etcd3({ hosts: [clientURL(target)] });
    try {
      const all = (await client.getAll().keys()).sort();
      const expected = [
        ...Array.from({ length: 50 }, (_, i) => `first/${i}`),
        ...Array.from({ length: 50 }, (_, i) => `second/${i}`),
      ].sort();
      assert.deepEqual(all, expected);
    } finally {
      client.close();
    }
    // AND it is a new cluster, not the source: another cluster id
    const old = await objects().readCluster(source);
    assert.notEqual(status.clusterID, old.status?.clusterID);
  });
});
