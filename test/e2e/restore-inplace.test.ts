// In-place disaster recovery on the local Kubernetes with MinIO: a 3-member cluster (etcd member Pods on three real
// nodes; cluster, Services and backup CronJob synthesized by our constructs) is backed up by a Job from its
// CronJob, written to again, loses a majority of its members with their data. Restores that must not run (a cluster
// that does not exist, a healthy cluster, a missing key, wrong credentials, a snapshot from a newer etcd, a corrupt
// backup) each fail with their reason and a Warning Event before any Pod or PVC changes; a good EtcdRestore whose
// backup is deleted before its seed starts is Stalled SeedRestoreFailing (BackupNotFound) until the backup is back,
// then brings the cluster back Ready at its declared size with exactly the keys of the backup, its Git-owned spec
// untouched, while a second restore of the cluster waits for it (and is then refused: the cluster is healthy again).
// The controller runs as a process inside the environment's network namespace (as on a control-plane host), so it
// reaches MinIO at the address the seed's restore uses. Every EtcdCluster and EtcdRestore status the controller
// writes is recorded (status-recorder.ts) and must read, for Argo CD, kstatus and Flux, as its stage expects
// (test/health/expectations.ts, scenario restore).
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CopyObjectCommand, DeleteObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { Etcd3, type Watcher } from 'etcd3';
import { etcdClusterCrd, etcdRestoreCrd } from '../../constructs/api/crds.js';
import { restrictedNamespaceLabels } from '../../constructs/security.js';
import type { EtcdCluster } from '../../controller/etcdcluster/api.js';
import type { EtcdRestore } from '../../controller/etcdrestore/api.js';
import { RESTORE_REVISION_BUMP } from '../../controller/restore/etcd-version.js';
import { etcdVersions } from '../env/binaries.js';
import { type Environment, startEnvironment } from '../env/environment.js';
import { loseMembersWithData } from '../env/lose-data.js';
import type { ManagedProcess } from '../env/process-group.js';
import { waitFor } from '../env/wait.js';
import { assertHealthAsExpected } from '../health/judge.js';
import { createBucket, minioClient } from '../integration/helpers/backup-cli.js';
import {
  backupNow,
  clusterApp,
  startControllerProcess,
  untilAnswering,
  whileRunning,
} from '../integration/helpers/restore-kube.js';
import { download, keys, metadataOf } from '../integration/helpers/s3-objects.js';
import { recordStatuses, type StatusRecorder } from './status-recorder.js';

const ns = 'restore-inplace';
const name = 'demo';
const version = etcdVersions['3.6'];
const clientURL = `http://${name}-client.${ns}.svc:2379`;

/**
 * What a watcher resuming at `revision` meets within 10 s: `told: <error>` when etcd refuses it, `event: <rev>`
 * when it is served an event, or `nothing` (then it waits for numbers the cluster may already have used).
 */
async function watchOutcome(client: Etcd3, revision: bigint): Promise<string> {
  let watcher: Watcher;
  try {
    watcher = await client.watch().prefix('').startRevision(String(revision)).create();
  } catch (error) {
    return `told: ${(error as Error).message}`; // refused in the creation's own response
  }
  const outcome = await new Promise<string>((resolve) => {
    const timer = setTimeout(() => resolve('nothing'), 10_000);
    watcher.on('error', (error) => {
      clearTimeout(timer);
      resolve(`told: ${error.message}`);
    });
    watcher.on('data', (response) => {
      clearTimeout(timer);
      resolve(`event: ${response.header.revision}`);
    });
  });
  // A watch etcd cancelled is gone: etcd3's cancel() would wait for an answer that never comes.
  if (!outcome.startsWith('told: ')) await watcher.cancel();
  return outcome;
}

describe('in-place restore after quorum loss (local Kubernetes, MinIO)', () => {
  let env: Environment;
  let s3: S3Client;
  let dir: string;
  let controller: ManagedProcess | undefined;
  let bucket: string;
  let backupKey: string;
  /** The highest revision the old cluster gave a client: a watcher of it would resume from the next. */
  let lastSeen: bigint;
  let gitOwned: { generation?: number; spec: EtcdCluster['spec'] };
  let recorder: StatusRecorder;
  const custom = () => env.kubeConfig.makeApiClient(CustomObjectsApi);
  const core = () => env.kubeConfig.makeApiClient(CoreV1Api);
  const readCluster = async () =>
    (await custom().getNamespacedCustomObject({
      group: 'etcd.gitops.dev',
      version: 'v1alpha1',
      plural: 'etcdclusters',
      namespace: ns,
      name,
    })) as EtcdCluster;
  const readRestore = async (restore: string) =>
    (await custom().getNamespacedCustomObject({
      group: 'etcd.gitops.dev',
      version: 'v1alpha1',
      plural: 'etcdrestores',
      namespace: ns,
      name: restore,
    })) as EtcdRestore;
  const readyAt = (size: number) =>
    waitFor(
      async () => {
        const status = (await readCluster()).status;
        const ready = status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
        return ready && status?.readyMembers === size && status?.replicas === size && status;
      },
      {
        what: `cluster Ready with ${size} members`,
        timeoutMs: 240_000,
        intervalMs: 500,
        abortIf: () => (controller ? whileRunning(controller)() : undefined),
      },
    );

  /** The restore fails with `reason` as its Degraded condition and a Warning Event on it. */
  async function failsWith(restore: string, reason: string): Promise<void> {
    const failed = await waitFor(
      async () => (await readRestore(restore)).status?.phase === 'Failed' && readRestore(restore),
      { what: `restore ${restore} to fail`, timeoutMs: 60_000 },
    );
    const degraded = failed.status?.conditions?.find((c) => c.type === 'Degraded');
    assert.equal(degraded?.status, 'True', JSON.stringify(failed.status));
    assert.equal(degraded?.reason, reason, JSON.stringify(failed.status));
    assert.match(degraded?.message ?? '', /nothing was changed/, JSON.stringify(failed.status));
    await waitFor(
      async () =>
        (
          await core().listNamespacedEvent({
            namespace: ns,
            fieldSelector: `involvedObject.name=${restore},reason=${reason}`,
          })
        ).items.some((event) => event.type === 'Warning' && event.involvedObject.kind === 'EtcdRestore'),
      { what: `a Warning Event ${reason} on restore ${restore}`, timeoutMs: 30_000 },
    );
  }

  async function createRestore(
    restore: string,
    key: string,
    options: { clusterName?: string; credentialsSecretName?: string } = {},
  ): Promise<void> {
    await custom().createNamespacedCustomObject({
      group: 'etcd.gitops.dev',
      version: 'v1alpha1',
      plural: 'etcdrestores',
      namespace: ns,
      body: {
        apiVersion: 'etcd.gitops.dev/v1alpha1',
        kind: 'EtcdRestore',
        metadata: { name: restore },
        spec: {
          clusterName: options.clusterName ?? name,
          backup: {
            bucket,
            key,
            endpoint: env.minio?.podEndpoint,
            forcePathStyle: true,
            credentialsSecretName: options.credentialsSecretName ?? 's3',
          },
        },
      },
    });
  }

  /** What the controller could change of each Pod and PVC: create or delete it (uid), mark it (labels,
   *  annotations) or delete it gracefully. Not its status: the kubelet and the scheduler keep writing that (a
   *  recreated member Pod waiting for its deleted PVC gets scheduling conditions at any time). */
  async function podsAndPvcs(): Promise<string[]> {
    const selector = { namespace: ns, labelSelector: `app.kubernetes.io/instance=${name}` };
    const pods = (await core().listNamespacedPod(selector)).items;
    const pvcs = (await core().listNamespacedPersistentVolumeClaim(selector)).items;
    return [...pods, ...pvcs]
      .map(({ metadata }) =>
        [
          `${metadata?.name}@${metadata?.uid}`,
          JSON.stringify(metadata?.labels),
          JSON.stringify(metadata?.annotations),
          metadata?.deletionTimestamp ? 'deleting' : '',
        ].join(':'),
      )
      .sort();
  }

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'etcd-gitops-restore-inplace-'));
    env = await startEnvironment({ nodes: 3, minio: true });
    s3 = minioClient(env.minio!);
    bucket = await createBucket(s3, 'restore');
    for (const crd of [etcdClusterCrd(), etcdRestoreCrd()]) {
      await env.kubectl(['apply', '--server-side', '-f', '-'], { input: JSON.stringify(crd) });
      await env.kubectl(['wait', '--for=condition=Established', `crd/${crd.metadata.name}`, '--timeout=60s']);
    }
    await env.createNamespace(ns, restrictedNamespaceLabels());
    recorder = await recordStatuses(env, {
      namespace: ns,
      scenario: 'restore',
      source: 'test/e2e/restore-inplace.test.ts',
      firstStage: 'creating',
    });
    await core().createNamespacedSecret({
      namespace: ns,
      body: {
        metadata: { name: 's3' },
        stringData: { AWS_ACCESS_KEY_ID: env.minio!.accessKey, AWS_SECRET_ACCESS_KEY: env.minio!.secretKey },
      },
    });
    await core().createNamespacedSecret({
      namespace: ns,
      body: {
        metadata: { name: 's3-wrong' },
        stringData: { AWS_ACCESS_KEY_ID: env.minio!.accessKey, AWS_SECRET_ACCESS_KEY: 'not-the-secret-key' },
      },
    });
    controller = startControllerProcess(env, { name: 'controller', dir, namespace: ns });
  });

  after(async () => {
    await controller?.stop();
    s3?.destroy();
    await env?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test('GIVEN a Ready 3-member cluster with keys WHEN a Job from its CronJob backs it up and it is written to again THEN the backup holds the first keys', async () => {
    // The user's cdk8s app (cluster, Services, backup CronJob), synthesized by our constructs.
    await env.kubectl(['apply', '--server-side', '-f', '-'], {
      input: clusterApp({
        namespace: ns,
        name,
        version,
        size: 3,
        bucket,
        minio: env.minio!,
        credentialsSecretName: 's3',
      }),
    });
    await readyAt(3);
    await recorder.stage('backing-up');
    const client = new Etcd3({ hosts: [clientURL] });
    try {
      await untilAnswering(client, clientURL);
      for (let i = 0; i < 100; i++) await client.put(`before/${i}`).value(`v${i}`);
      await backupNow(env, ns, `${name}-backup`, 'backup-1');
      const stored = await keys(s3, bucket);
      assert.equal(stored.length, 1, stored.join(', '));
      backupKey = stored[0]!;
      for (let i = 0; i < 50; i++) {
        lastSeen = BigInt((await client.put(`after/${i}`).value(`w${i}`).exec()).header.revision);
      }
    } finally {
      client.close();
    }
    const cluster = await readCluster();
    gitOwned = { generation: cluster.metadata?.generation, spec: cluster.spec };
  });

  test('GIVEN the healthy cluster WHEN restores name a cluster that does not exist, or the healthy cluster without allowHealthyCluster THEN each fails with its reason and a Warning Event, and no Pod or PVC changes', async () => {
    const before = await podsAndPvcs();
    // WHEN
    await recorder.stage('restores-refused');
    await createRestore('no-such-cluster', backupKey, { clusterName: 'nope' });
    await createRestore('healthy', backupKey);
    // THEN
    await failsWith('no-such-cluster', 'ClusterNotFound');
    await failsWith('healthy', 'ClusterHealthy');
    assert.equal((await readCluster()).status?.restore, undefined, 'the cluster was never locked');
    assert.deepEqual(await podsAndPvcs(), before);
  });

  test('GIVEN a majority killed with its data WHEN a restore names a corrupt backup THEN it fails before any Pod or PVC changes', async () => {
    // GIVEN two of three members lose Pod and PVC
    await recorder.stage('quorum-lost');
    await loseMembersWithData(core(), ns, ['demo-1', 'demo-2'], { force: true });
    await waitFor(
      async () =>
        (await readCluster()).status?.conditions?.find((c) => c.type === 'Available')?.status === 'False',
      { what: 'the cluster to report quorum lost', timeoutMs: 120_000, intervalMs: 1_000 },
    );
    await waitFor(
      async () => {
        const conditions = (await readCluster()).status?.conditions ?? [];
        const is = (type: string, reason: string) =>
          conditions.some((c) => c.type === type && c.status === 'True' && c.reason === reason);
        return is('Degraded', 'QuorumLost') && is('Stalled', 'QuorumLost');
      },
      { what: 'Degraded and Stalled QuorumLost', timeoutMs: 120_000, intervalMs: 1_000 },
    );
    // The loss is reported while the deleted Pods may still terminate: what follows compares against their end.
    await waitFor(async () => (await podsAndPvcs()).every((object) => !object.endsWith(':deleting')), {
      what: 'the deleted Pods and PVCs gone',
      timeoutMs: 120_000,
      intervalMs: 1_000,
    });
    // AND a corrupt copy of the backup with the original's metadata
    const file = join(dir, 'corrupt.db');
    await download(s3, bucket, backupKey, file);
    const bytes = await readFile(file);
    bytes[Math.floor(bytes.length / 2)] ^= 0xff;
    await writeFile(file, bytes);
    const metadata = await metadataOf(s3, bucket, backupKey);
    await s3.send(
      new PutObjectCommand({ Bucket: bucket, Key: `${backupKey}.corrupt`, Body: bytes, Metadata: metadata }),
    );
    const before = await podsAndPvcs();

    // WHEN a restore names it
    await recorder.stage('restores-failing');
    await createRestore('corrupt', `${backupKey}.corrupt`);

    // THEN it fails with ChecksumMismatch, the cluster was never locked, no Pod or PVC changed
    await failsWith('corrupt', 'ChecksumMismatch');
    assert.equal((await readCluster()).status?.restore, undefined);
    assert.deepEqual(await podsAndPvcs(), before);
  });

  test('GIVEN the majority lost WHEN restores name a missing key, use wrong credentials, or name a snapshot from a newer etcd THEN each fails with its reason and a Warning Event before any Pod or PVC changes', async () => {
    // GIVEN a copy of the good backup whose metadata says a newer etcd minor made it
    const metadata = await metadataOf(s3, bucket, backupKey);
    await s3.send(
      new CopyObjectCommand({
        Bucket: bucket,
        Key: `${backupKey}.newer`,
        CopySource: `${bucket}/${backupKey}`,
        MetadataDirective: 'REPLACE',
        Metadata: { ...metadata, 'etcd-version': '3.7.0' },
      }),
    );
    const before = await podsAndPvcs();
    // WHEN
    await createRestore('missing-key', `${backupKey}.missing`);
    await createRestore('wrong-credentials', backupKey, { credentialsSecretName: 's3-wrong' });
    await createRestore('newer-etcd', `${backupKey}.newer`);
    // THEN
    await failsWith('missing-key', 'BackupNotFound');
    await failsWith('wrong-credentials', 'AccessDenied');
    await failsWith('newer-etcd', 'SnapshotFromNewerEtcd');
    assert.equal((await readCluster()).status?.restore, undefined, 'the cluster was never locked');
    assert.deepEqual(await podsAndPvcs(), before);
  });

  test('WHEN a restore names the good backup, and the backup is gone when its seed starts THEN the restore is Stalled SeedRestoreFailing until the backup is back; then the cluster is Ready at 3 members with exactly the keys of the backup, and a second restore of the cluster waits meanwhile', async () => {
    await recorder.stage('restoring');
    // GIVEN no node takes new Pods: the seed stays unscheduled until the test has taken the backup away
    const nodes = (await env.kubectl(['get', 'nodes', '-o', 'name'])).stdout.split('\n').filter(Boolean);
    assert.equal(nodes.length, 3, nodes.join(', '));
    await env.kubectl(['cordon', ...nodes]);
    await s3.send(
      new CopyObjectCommand({
        Bucket: bucket,
        Key: `${backupKey}.saved`,
        CopySource: `${bucket}/${backupKey}`,
      }),
    );
    await createRestore('good', backupKey);
    // AND a second restore of the same cluster, created while the first holds it, waits for it
    await waitFor(async () => (await readCluster()).status?.restore?.name === 'good', {
      what: 'the good restore to hold the cluster',
      timeoutMs: 60_000,
      intervalMs: 250,
    });
    await createRestore('second', backupKey);
    await waitFor(
      async () =>
        (await readRestore('second')).status?.conditions?.some((c) => c.reason === 'WaitingForRestore') ??
        false,
      { what: 'the second restore to wait for the first', timeoutMs: 30_000, intervalMs: 250 },
    );
    // WHEN the verified backup is deleted once the seed exists, and the nodes take Pods again
    const condition = (restore: EtcdRestore, type: string) =>
      restore.status?.conditions?.find((c) => c.type === type);
    await waitFor(
      async () => condition(await readRestore('good'), 'Progressing')?.reason === 'SeedStarting',
      { what: 'the seed Pod to exist', timeoutMs: 120_000, intervalMs: 250 },
    );
    await recorder.stage('seed-failing');
    await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: backupKey }));
    await env.kubectl(['uncordon', ...nodes]);
    // THEN the seed's restore fails BackupNotFound: the restore is Degraded and Stalled (a retry cannot clear it),
    // with a Warning Event; the old member's PVC stays retained
    const stalled = await waitFor(
      async () => {
        const restore = await readRestore('good');
        return condition(restore, 'Stalled')?.status === 'True' && restore;
      },
      { what: 'the restore to be Stalled', timeoutMs: 180_000, intervalMs: 500 },
    );
    const described = JSON.stringify(stalled.status);
    assert.equal(stalled.status?.phase, 'Restoring', described);
    assert.equal(condition(stalled, 'Stalled')?.reason, 'SeedRestoreFailing', described);
    assert.match(condition(stalled, 'Stalled')?.message ?? '', /BackupNotFound/, described);
    assert.equal(condition(stalled, 'Degraded')?.status, 'True', described);
    assert.equal(condition(stalled, 'Progressing')?.status, 'False', described);
    await waitFor(
      async () =>
        (
          await core().listNamespacedEvent({
            namespace: ns,
            fieldSelector: 'involvedObject.name=good,reason=SeedRestoreFailing',
          })
        ).items.some((event) => event.type === 'Warning'),
      { what: 'a Warning Event SeedRestoreFailing on restore good', timeoutMs: 30_000 },
    );
    // AND the cluster says the same of its seed
    await waitFor(
      async () =>
        (await readCluster()).status?.conditions?.some(
          (c) => c.type === 'Stalled' && c.status === 'True' && c.reason === 'SeedRestoreFailing',
        ),
      { what: 'the cluster to be Stalled SeedRestoreFailing', timeoutMs: 60_000, intervalMs: 500 },
    );
    assert.equal(
      (await core().readNamespacedPersistentVolumeClaim({ namespace: ns, name: 'demo-0-data' })).metadata
        ?.labels?.['etcd.gitops.dev/retained-by-restore'],
      'good',
    );
    // WHEN the backup is back (the kubelet retries the seed's restore after its back-off)
    await recorder.stage('seed-retrying');
    await s3.send(
      new CopyObjectCommand({ Bucket: bucket, Key: backupKey, CopySource: `${bucket}/${backupKey}.saved` }),
    );
    // THEN the restore goes on
    const restore = await waitFor(
      async () => (await readRestore('good')).status?.phase === 'Completed' && readRestore('good'),
      {
        what: 'the restore to complete',
        timeoutMs: 300_000,
        intervalMs: 1_000,
      },
    );
    assert.equal(restore.status?.backupKey, backupKey);
    await readyAt(3);
    await waitFor(async () => (await readCluster()).status?.restore === undefined, {
      what: 'the lock released',
      timeoutMs: 30_000,
    });
    const client = new Etcd3({ hosts: [clientURL] });
    try {
      const before = await client.getAll().prefix('before/').keys();
      const after = await client.getAll().prefix('after/').keys();
      assert.equal(before.length, 100);
      assert.equal(after.length, 0, 'keys written after the backup are gone');
      // AND a watcher of the old cluster is never silently wrong (docs/design/restore.md, "Watchers across a
      // restore"): the revision is the backup's plus the bump, and resuming after the last revision the old
      // cluster gave is refused as compacted, not served events numbered as the lost writes were.
      const backupRevision = BigInt((await metadataOf(s3, bucket, backupKey))['etcd-revision']!);
      const revision = BigInt((await client.get('before/0').exec()).header.revision);
      assert.equal(revision, backupRevision + BigInt(RESTORE_REVISION_BUMP));
      assert.ok(lastSeen > backupRevision, `writes after the backup reached revision ${lastSeen}`);
      assert.match(await watchOutcome(client, lastSeen + 1n), /^told: /);
    } finally {
      client.close();
    }
    // AND the old PVC that survived is retained, labelled with the restore, no longer a member's
    const retained = (
      await core().listNamespacedPersistentVolumeClaim({
        namespace: ns,
        labelSelector: 'etcd.gitops.dev/retained-by-restore=good',
      })
    ).items;
    assert.deepEqual(
      retained.map((pvc) => pvc.metadata?.name),
      ['demo-0-data'],
    );
    assert.equal(retained[0]?.metadata?.labels?.['etcd.gitops.dev/member'], undefined);
    // AND the second restore, once the first released the now healthy cluster, is refused rather than run
    await failsWith('second', 'ClusterHealthy');
    // AND the object Git owns was never edited (no drift for Argo CD)
    const cluster = await readCluster();
    assert.deepEqual({ generation: cluster.metadata?.generation, spec: cluster.spec }, gitOwned);
  });

  test('THEN every status the controller wrote reads, for Argo CD, kstatus and Flux, as its stage expects', async (t) => {
    const recording = await recorder.stop();
    t.diagnostic(assertHealthAsExpected(recording));
  });
});
