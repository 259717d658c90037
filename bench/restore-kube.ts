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
  untilAnswering,
  whileRunning,
} from '../test/integration/helpers/restore-kube.js';
import { keys } from '../test/integration/helpers/s3-objects.js';
import { removeAll } from './membership-pods.js';
import { type RestoreByHandSample, restoreByHand } from './restore-pods.js';
import { median } from './stats.js';

/** Restores per size on one environment (the first pays for the environment; each run restores anew). */
export const KUBE_RESTORE_RUNS = 3;

export interface KubernetesRestoreRow {
  readonly databaseMiB: number;
  readonly runs: number;
  /** Medians over the runs; each phase's share, from the EtcdRestore created to: */
  readonly requestToLockSeconds: number;
  readonly requestToSeedReadySeconds: number;
  readonly requestToCompletedSeconds: number;
  readonly requestToCompletedMinSeconds: number;
  readonly requestToCompletedMaxSeconds: number;
  /** Every run's times, in order. */
  readonly samples: readonly RestoreSample[];
  /** The fair floor: the same recovery by a script on the same nodes (restore-pods.ts), medians over as many runs. */
  readonly byHand?: {
    readonly stoppedSeconds: number;
    readonly seedReadySeconds: number;
    readonly completedSeconds: number;
    readonly completedMinSeconds: number;
    readonly completedMaxSeconds: number;
    readonly samples: readonly RestoreByHandSample[];
  };
}

/** Seconds from creating the EtcdRestore until each phase was first seen (status read every 200 ms). */
interface RestoreSample {
  /** Verified and lock taken (`status.restore.phase` Restoring): the restore reconciler's part. */
  readonly lock: number;
  /** Old Pods stopped, seed restored and Ready (lock phase Growing). */
  readonly seedReady: number;
  /** Grown back to size by learners, EtcdRestore Completed. */
  readonly completed: number;
}

const ns = 'bench-restore';
const name = 'bench';
const seconds = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e9;

/** One size's in-place restores; the controller runs on `node` (the image's Node.js in the bench). */
export async function runOnKubernetes(databaseMiB: number, node: string): Promise<KubernetesRestoreRow> {
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
    controller = startControllerProcess(env, { name: 'controller', dir, namespace: ns, node });
    const objects = restoreObjects(env, ns);
    await objects.readyAt(name, 3, whileRunning(controller));
    const clientURL = `http://${name}-client.${ns}.svc:2379`;
    const client = new Etcd3({ hosts: [clientURL] });
    try {
      // The network policy enforcer admits this process a moment after the cluster is Ready.
      await untilAnswering(client, clientURL);
      await fillEtcd(client, databaseMiB * 1024 * 1024);
    } finally {
      client.close();
    }
    await backupNow(env, ns, `${name}-backup`, 'bench-backup');
    const [key] = await keys(s3, bucket);
    s3.destroy();
    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    const location = {
      bucket,
      key,
      endpoint: minio.podEndpoint,
      forcePathStyle: true,
      credentialsSecretName: 's3',
    };
    const samples: RestoreSample[] = [];
    for (let run = 0; run < KUBE_RESTORE_RUNS; run += 1) {
      const members = (await objects.readyAt(name, 3, whileRunning(controller))).members ?? [];
      // The previous restore's lock is cleared once its retained PVCs are gone: a new restore waits for that, so
      // start each run from a cluster with no lock, as a user's first restore does.
      await waitFor(async () => (await objects.readCluster(name)).status?.restore === undefined, {
        what: 'no restore lock on the cluster',
        timeoutMs: 120_000,
        intervalMs: 500,
      });
      // Two of the three (a restore names its members anew): the majority and their data are gone.
      for (const member of members.slice(1).map((m) => m.name)) {
        await core.deleteNamespacedPersistentVolumeClaim({ namespace: ns, name: `${member}-data` });
        await core.deleteNamespacedPod({ namespace: ns, name: member, gracePeriodSeconds: 0 });
      }
      await waitFor(
        async () =>
          (await objects.readCluster(name)).status?.conditions?.find((c) => c.type === 'Available')
            ?.status === 'False',
        { what: 'quorum lost', timeoutMs: 120_000, intervalMs: 500 },
      );
      const restore = `bench-${run}`;
      const start = process.hrtime.bigint();
      await objects.createRestore(restore, {
        clusterName: name,
        // The seed's init container reads the backup from a Pod: MinIO's address inside the environment.
        backup: location,
      });
      // A seed whose restore fails is retried by the kubelet for ever: give up at once, naming the failure.
      let failed: string | undefined;
      const seen: Partial<Record<keyof RestoreSample, number>> = {};
      const running = whileRunning(controller);
      await waitFor(
        async () => {
          const [cluster, request] = await Promise.all([
            objects.readCluster(name),
            objects.readRestore(restore),
          ]);
          const status = cluster.status;
          const degraded = status?.conditions?.find((c) => c.type === 'Degraded' && c.status === 'True');
          if (degraded && degraded.reason !== 'QuorumLost')
            failed = `${degraded.reason}: ${degraded.message}`;
          const lock = status?.restore?.name === restore ? status.restore.phase : undefined;
          if (lock) seen.lock ??= seconds(start);
          if (lock && lock !== 'Restoring') seen.seedReady ??= seconds(start);
          if (request.status?.phase === 'Completed') seen.completed ??= seconds(start);
          if (request.status?.phase === 'Failed') failed = `EtcdRestore ${restore} Failed`;
          return seen.completed !== undefined;
        },
        {
          what: `EtcdRestore ${restore} Completed`,
          timeoutMs: 900_000,
          intervalMs: 200,
          abortIf: () => running() ?? failed,
        },
      );
      const { lock, seedReady, completed } = seen;
      if (lock === undefined || seedReady === undefined || completed === undefined)
        throw new Error(`${restore}: a phase was never seen (${JSON.stringify(seen)})`);
      samples.push({ lock, seedReady, completed });
      console.log(JSON.stringify({ databaseMiB, run, lock, seedReady, completed }));
    }
    // The floor on the same nodes, once ours is gone (nothing of it runs beside the script's Pods). Its PVCs are
    // retained when it is deleted (whenDeleted: Retain, the default): the bench deletes them and the Services too.
    await env.kubectl(['delete', 'etcdcluster', name, '-n', ns, '--wait=true', '--timeout=120s']);
    await removeAll(env, ns, name);
    const hand = await restoreByHand(env, ns, 'hand', etcdVersions['3.6'], location, KUBE_RESTORE_RUNS);
    const handCompleted = hand.map((sample) => sample.completed);
    const completed = samples.map((sample) => sample.completed);
    return {
      databaseMiB,
      runs: samples.length,
      requestToLockSeconds: median(samples.map((sample) => sample.lock)),
      requestToSeedReadySeconds: median(samples.map((sample) => sample.seedReady)),
      requestToCompletedSeconds: median(completed),
      requestToCompletedMinSeconds: Math.min(...completed),
      requestToCompletedMaxSeconds: Math.max(...completed),
      samples,
      byHand: {
        stoppedSeconds: median(hand.map((sample) => sample.stopped)),
        seedReadySeconds: median(hand.map((sample) => sample.seedReady)),
        completedSeconds: median(handCompleted),
        completedMinSeconds: Math.min(...handCompleted),
        completedMaxSeconds: Math.max(...handCompleted),
        samples: hand,
      },
    };
  } finally {
    await controller?.stop(5_000);
    await testbed?.stop();
  }
}
