// Backup and in-place restore as users run them: the CRDs and the operator of dist/ applied unchanged to three real
// nodes (our image, its own ServiceAccount and the least-privilege RBAC of dist/, no admin credentials), and the
// user's cdk8s app (a 3-member cluster with a backup CronJob pointed at MinIO) synthesized by our constructs. A Job
// made from the CronJob backs the cluster up from our image; the cluster then loses a majority with its data, and an
// EtcdRestore brings it back Ready at 3 with exactly the keys of the backup, all done by the operator's Pods.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { S3Client } from '@aws-sdk/client-s3';
import { CoreV1Api } from '@kubernetes/client-node';
import { Etcd3 } from 'etcd3';
import { etcdVersions } from '../env/binaries.js';
import { distDir } from '../env/dist-manifests.js';
import type { Environment } from '../env/environment.js';
import { loseMembersWithData } from '../env/lose-data.js';
import { waitFor } from '../env/wait.js';
import {
  backupNow,
  type RestoreTestbed,
  restoreObjects,
  startRestoreTestbed,
  untilAnswering,
} from '../integration/helpers/restore-kube.js';
import { keys } from '../integration/helpers/s3-objects.js';

const ns = 'gitops-restore';
const name = 'shop';
const operatorNamespace = 'etcd-gitops-system';
const operator = 'etcd-gitops-controller';
const clientURL = `http://${name}-client.${ns}.svc:2379`;

describe('backup and in-place restore by the operator of dist/ (real nodes, our image, shipped RBAC, MinIO)', () => {
  let testbed: RestoreTestbed | undefined;
  let env: Environment;
  let s3: S3Client;
  let bucket: string;
  let backupKey: string;
  const objects = () => restoreObjects(env, ns);
  const core = () => env.kubeConfig.makeApiClient(CoreV1Api);
  const operatorLogs = async () => {
    const out = await env.kubectl(
      ['logs', '-n', operatorNamespace, '-l', 'app.kubernetes.io/component=controller', '--tail=20'],
      {
        allowFailure: true,
      },
    );
    return `${out.stdout}${out.stderr}`;
  };

  before(async () => {
    testbed = await startRestoreTestbed('gitops', ns);
    ({ env, s3, bucket } = testbed);
    // The CRDs and the operator exactly as dist/ has them (the example cluster of dist/ is not needed here).
    await env.kubectl(['apply', '--server-side', '-f', join(distDir, '00-crds.k8s.yaml')]);
    await env.kubectl(['wait', '--for=condition=Established', 'crd', '--all', '--timeout=60s']);
    await env.kubectl(['apply', '--server-side', '-f', join(distDir, '01-operator.k8s.yaml')]);
    await env.kubectl([
      'rollout',
      'status',
      `deployment/${operator}`,
      '-n',
      operatorNamespace,
      '--timeout=180s',
    ]);
  });

  after(async () => {
    await testbed?.stop();
  });

  test('GIVEN the operator of dist/ WHEN it runs THEN its Pods run our image as its own ServiceAccount', async () => {
    const pods = JSON.parse(
      (
        await env.kubectl([
          'get',
          'pods',
          '-n',
          operatorNamespace,
          '-l',
          'app.kubernetes.io/component=controller',
          '-o',
          'json',
        ])
      ).stdout,
    ) as { items: { spec: { serviceAccountName: string; containers: { image: string }[] } }[] };
    assert.equal(pods.items.length, 2);
    for (const pod of pods.items) {
      assert.equal(pod.spec.serviceAccountName, operator);
      assert.match(pod.spec.containers[0]?.image ?? '', /^ghcr\.io\/etcd-gitops\/etcd-gitops:/);
    }
  });

  test('GIVEN the user app with a backup CronJob WHEN a Job from the CronJob runs THEN our image stores a backup in MinIO', async () => {
    await testbed!.applyCluster({ name, version: etcdVersions['3.6'], size: 3 });
    await objects()
      .readyAt(name, 3)
      .catch(async (error: Error) => {
        throw new Error(`${error.message}\n--- operator logs:\n${await operatorLogs()}`);
      });
    const client = new Etcd3({ hosts: [clientURL] });
    try {
      await untilAnswering(client, clientURL);
      for (let i = 0; i < 50; i++) await client.put(`before/${i}`).value(`v${i}`);
      const log = await backupNow(env, ns, `${name}-backup`, 'backup-1');
      const stored = await keys(s3, bucket);
      assert.equal(stored.length, 1, `objects: ${stored.join(', ')}\n${log}`);
      backupKey = stored[0]!;
      for (let i = 0; i < 20; i++) await client.put(`after/${i}`).value(`w${i}`);
    } finally {
      client.close();
    }
    const job = JSON.parse(
      (await env.kubectl(['get', 'job', 'backup-1', '-n', ns, '-o', 'json'])).stdout,
    ) as {
      spec: { template: { spec: { containers: { image: string }[] } } };
    };
    assert.match(job.spec.template.spec.containers[0]?.image ?? '', /^ghcr\.io\/etcd-gitops\/etcd-gitops:/);
  });

  test('GIVEN a majority lost with its data WHEN an EtcdRestore names the backup THEN the operator brings the cluster back Ready at 3 with exactly its keys', async () => {
    await loseMembersWithData(core(), ns, [`${name}-1`, `${name}-2`], { force: true });
    await waitFor(
      async () =>
        (await objects().readCluster(name)).status?.conditions?.find((c) => c.type === 'Available')
          ?.status === 'False',
      { what: 'the cluster to report quorum lost', timeoutMs: 120_000, intervalMs: 1_000 },
    );
    await objects().createRestore('good', {
      clusterName: name,
      backup: {
        bucket,
        key: backupKey,
        endpoint: env.minio!.podEndpoint,
        forcePathStyle: true,
        credentialsSecretName: 's3',
      },
    });
    const done = await objects()
      .phase('good', 'Completed')
      .catch(async (error: Error) => {
        throw new Error(`${error.message}\n--- operator logs:\n${await operatorLogs()}`);
      });
    assert.equal(done.status?.backupKey, backupKey);
    await objects().readyAt(name, 3);
    const client = new Etcd3({ hosts: [clientURL] });
    try {
      const all = await waitFor(() => client.getAll().keys(), {
        what: `${clientURL} to answer`,
        timeoutMs: 30_000,
      });
      assert.deepEqual(all.sort(), Array.from({ length: 50 }, (_, i) => `before/${i}`).sort());
    } finally {
      client.close();
    }
  });
});
