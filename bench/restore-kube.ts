// An in-place restore on the local Kubernetes, timed once (bench/restore.ts): a 3-member etcd 3.6 cluster from our
// constructs, `databaseMiB` written, backed up by a Job from its synthesized CronJob, a majority lost with its data,
// then an EtcdRestore: seconds from the request to the seed's Ready (verify + lock + stop + fetch/restore + start)
// and to Completed (grown back to 3 by learners, each receiving the whole snapshot). One run: it takes minutes.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { Etcd3 } from 'etcd3';
import { etcdClusterCrd, etcdRestoreCrd } from '../constructs/api/crds.js';
import { etcdVersions } from '../test/env/binaries.js';
import { type Environment, startEnvironment } from '../test/env/environment.js';
import type { ManagedProcess } from '../test/env/process-group.js';
import { waitFor } from '../test/env/wait.js';
import { createBucket, minioClient } from '../test/integration/helpers/backup-cli.js';
import { fillEtcd } from '../test/integration/helpers/fill.js';
import {
  backupNow,
  clusterApp,
  makeToolsDir,
  ourImageWithTools,
  restoreObjects,
  startControllerProcess,
  whileRunning,
} from '../test/integration/helpers/restore-kube.js';
import { keys } from '../test/integration/helpers/s3-objects.js';

export interface KubernetesRestoreRow {
  readonly databaseMiB: number;
  readonly runs: 1;
  readonly requestToSeedReadySeconds: number;
  readonly requestToCompletedSeconds: number;
}

const ns = 'bench-restore';
const name = 'bench';
const seconds = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e9;

export async function runOnKubernetes(databaseMiB: number): Promise<KubernetesRestoreRow> {
  const dir = await mkdtemp(join(tmpdir(), 'etcd-gitops-bench-restore-kube-'));
  let env: Environment | undefined;
  let controller: ManagedProcess | undefined;
  try {
    await makeToolsDir(join(dir, 'tools'));
    env = await startEnvironment({
      agent: true,
      minio: true,
      agentOptions: { backoff: { baseMs: 1_000 }, imageMap: [ourImageWithTools(join(dir, 'tools'))] },
    });
    const minio = env.minio as NonNullable<Environment['minio']>;
    const s3 = minioClient(minio);
    const bucket = await createBucket(s3, 'bench');
    for (const crd of [etcdClusterCrd(), etcdRestoreCrd()]) {
      await env.kubectl(['apply', '--server-side', '-f', '-'], { input: JSON.stringify(crd) });
      await env.kubectl(['wait', '--for=condition=Established', `crd/${crd.metadata.name}`, '--timeout=60s']);
    }
    await env.createNamespace(ns);
    await env.kubectl([
      'create',
      'secret',
      'generic',
      's3',
      '-n',
      ns,
      `--from-literal=AWS_ACCESS_KEY_ID=${minio.accessKey}`,
      `--from-literal=AWS_SECRET_ACCESS_KEY=${minio.secretKey}`,
    ]);
    const yaml = clusterApp({
      namespace: ns,
      name,
      version: etcdVersions['3.6'],
      size: 3,
      bucket,
      minio,
      credentialsSecretName: 's3',
    });
    await env.kubectl(['apply', '--server-side', '-f', '-'], { input: yaml });
    controller = startControllerProcess(env, { name: 'controller', dir, namespace: ns });
    const objects = restoreObjects(env, ns);
    await objects.readyAt(name, 3, whileRunning(controller));
    const client = new Etcd3({ hosts: [`http://${name}-client.${ns}.svc:2379`] });
    try {
      await fillEtcd(client, databaseMiB * 1024 * 1024);
    } finally {
      client.close();
    }
    await backupNow(env, ns, `${name}-backup`, 'bench-backup');
    const [key] = await keys(s3, bucket);
    s3.destroy();
    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    for (const member of [`${name}-1`, `${name}-2`]) {
      await core.deleteNamespacedPersistentVolumeClaim({ namespace: ns, name: `${member}-data` });
      await core.deleteNamespacedPod({ namespace: ns, name: member, gracePeriodSeconds: 0 });
    }
    await waitFor(
      async () =>
        (await objects.readCluster(name)).status?.conditions?.find((c) => c.type === 'Available')?.status ===
        'False',
      { what: 'quorum lost', timeoutMs: 120_000, intervalMs: 500 },
    );
    const start = process.hrtime.bigint();
    await objects.createRestore('bench', {
      clusterName: name,
      backup: { bucket, key, endpoint: minio.endpoint, forcePathStyle: true, credentialsSecretName: 's3' },
    });
    await waitFor(async () => (await objects.readCluster(name)).status?.restore?.phase === 'Growing', {
      what: 'the seed Ready (lock phase Growing)',
      timeoutMs: 600_000,
      intervalMs: 200,
      abortIf: whileRunning(controller),
    });
    const requestToSeedReadySeconds = seconds(start);
    await objects.phase('bench', 'Completed', whileRunning(controller), 900_000);
    return { databaseMiB, runs: 1, requestToSeedReadySeconds, requestToCompletedSeconds: seconds(start) };
  } finally {
    await controller?.stop(5_000);
    await env?.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
