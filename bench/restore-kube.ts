import { CoreV1Api } from '@kubernetes/client-node';
import { Etcd3 } from 'etcd3';
import { etcdVersions } from '../test/env/binaries.js';
import type { Environment } from '../test/env/environment.js';
import type { ManagedProcess } from '../test/env/process-group.js';
import { waitFor } from '../test/env/wait.js';
import { fillEtcd } from '../test/integration/helpers/fill.js';
import {
  backupNow,
  clusterApp,
  type RestoreTestbed,
  restoreObjects,
  startControllerProcess,
  startRestoreTestbed,
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
  let testbed: RestoreTestbed | undefined;
  let controller: ManagedProcess | undefined;
  try {
    testbed = await startRestoreTestbed('bench', ns);
    const { env, s3, bucket, dir } = testbed;
    const minio = env.minio as NonNullable<Environment['minio']>;
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
      // The seed's init container reads the backup from a Pod: MinIO's address inside the environment.
      backup: { bucket, key, endpoint: minio.podEndpoint, forcePathStyle: true, credentialsSecretName: 's3' },
    });
    // A seed whose restore fails is retried by the kubelet for ever: give up at once, naming the failure.
    let failed: string | undefined;
    const running = whileRunning(controller);
    await waitFor(
      async () => {
        const status = (await objects.readCluster(name)).status;
        const degraded = status?.conditions?.find((c) => c.type === 'Degraded' && c.status === 'True');
        if (degraded && degraded.reason !== 'QuorumLost') failed = `${degraded.reason}: ${degraded.message}`;
        return status?.restore?.phase === 'Growing';
      },
      {
        what: 'the seed Ready (lock phase Growing)',
        timeoutMs: 600_000,
        intervalMs: 200,
        abortIf: () => running() ?? failed,
      },
    );
    const requestToSeedReadySeconds = seconds(start);
    await objects.phase('bench', 'Completed', whileRunning(controller), 900_000);
    return { databaseMiB, runs: 1, requestToSeedReadySeconds, requestToCompletedSeconds: seconds(start) };
  } finally {
    await controller?.stop(5_000);
    await testbed?.stop();
  }
}
