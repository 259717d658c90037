// In-place restore with the controller killed in the middle, on the local Kubernetes with MinIO: the user's cdk8s
// app (EtcdCluster + backup CronJob, synthesized by our constructs) is applied; the controller runs as a process
// (`etcd-gitops controller`) inside the environment namespace; the backup is taken by a Job made from the
// synthesized CronJob (our image, on a real node); a majority of members loses Pod and data; an EtcdRestore is created
// while the controller carries the test-only crash switch ETCD_GITOPS_TEST_RESTORE_CRASH_AFTER, so it SIGKILLs itself
// right after each step of the
// restore in turn (verifying the backup, taking the lock, retaining the old PVC, stopping the old Pod, creating the
// seed PVC, creating the seed Pod, handing the seed to the membership planner), restarted each time; a controller
// without the switch finishes: Completed, Ready at 3, exactly the keys of the backup.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { S3Client } from '@aws-sdk/client-s3';
import { CoreV1Api } from '@kubernetes/client-node';
import { Etcd3 } from 'etcd3';
import { etcdVersions } from '../env/binaries.js';
import type { Environment } from '../env/environment.js';
import type { ManagedProcess } from '../env/process-group.js';
import { waitFor } from '../env/wait.js';
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
import { keys } from '../integration/helpers/s3-objects.js';

const ns = 'restore-crash';
const name = 'demo';
const clientURL = `http://${name}-client.${ns}.svc:2379`;

describe('in-place restore survives the controller being killed between steps (local Kubernetes, MinIO)', () => {
  let testbed: RestoreTestbed | undefined;
  let env: Environment;
  let s3: S3Client;
  let dir: string;
  let bucket: string;
  let backupKey: string;
  const controllers: ManagedProcess[] = [];
  const objects = () => restoreObjects(env, ns);
  const core = () => env.kubeConfig.makeApiClient(CoreV1Api);
  const startController = (crashAfter?: string) => {
    const controller = startControllerProcess(env, {
      name: `controller-${controllers.length + 1}${crashAfter ? `-crash-after-${crashAfter}` : ''}`,
      dir,
      namespace: ns,
      env: crashAfter ? { ETCD_GITOPS_TEST_RESTORE_CRASH_AFTER: crashAfter } : {},
    });
    controllers.push(controller);
    return controller;
  };
  /** Waits for the controller to kill itself; fails with its log when it exits any other way. */
  const crashed = async (controller: ManagedProcess) => {
    await waitFor(() => controller.exitStatus(), {
      what: `${controller.name} to kill itself`,
      timeoutMs: 120_000,
      intervalMs: 250,
    });
    assert.deepEqual(await controller.exited, { code: null, signal: 'SIGKILL' }, controller.logTail(30));
  };

  before(async () => {
    testbed = await startRestoreTestbed('crash', ns);
    ({ env, s3, bucket, dir } = testbed);
  });

  after(async () => {
    await Promise.all(controllers.map((controller) => controller.stop(5_000)));
    await testbed?.stop();
  });

  test('GIVEN the synthesized cluster and CronJob WHEN a Job from the CronJob backs it up THEN the backup holds the first keys', async () => {
    const yaml = clusterApp({
      namespace: ns,
      name,
      version: etcdVersions['3.6'],
      size: 3,
      bucket,
      minio: env.minio!,
      credentialsSecretName: 's3',
    });
    await env.kubectl(['apply', '--server-side', '-f', '-'], { input: yaml });
    // The first controller carries the switch from the start: it only fires on a restore action.
    const first = startController('Verify');
    await objects().readyAt(name, 3, whileRunning(first));
    const client = new Etcd3({ hosts: [clientURL] });
    try {
      await untilAnswering(client, clientURL);
      for (let i = 0; i < 100; i++) await client.put(`before/${i}`).value(`v${i}`);
      await backupNow(env, ns, `${name}-backup`, 'backup-1');
      const stored = await keys(s3, bucket);
      assert.equal(stored.length, 1, `objects: ${stored.join(', ')}`);
      backupKey = stored[0]!;
      assert.match(backupKey, new RegExp(`^${ns}/${name}/\\d{8}T\\d{6}Z-rev\\d+\\.db$`));
      for (let i = 0; i < 50; i++) await client.put(`after/${i}`).value(`w${i}`);
    } finally {
      client.close();
    }
  });

  test('GIVEN a majority lost with its data WHEN the controller is killed after each restore step in turn THEN a restarted controller completes the restore with exactly the keys of the backup', async () => {
    // GIVEN two of three members lose Pod and PVC
    for (const member of [`${name}-1`, `${name}-2`]) {
      await core().deleteNamespacedPersistentVolumeClaim({ namespace: ns, name: `${member}-data` });
      await core().deleteNamespacedPod({ namespace: ns, name: member, gracePeriodSeconds: 0 });
    }
    await waitFor(
      async () =>
        (await objects().readCluster(name)).status?.conditions?.find((c) => c.type === 'Available')
          ?.status === 'False',
      { what: 'the cluster to report quorum lost', timeoutMs: 120_000, intervalMs: 1_000 },
    );

    // WHEN a restore is created: the running controller verifies the backup and dies before recording it
    const restore = await objects().createRestore('good', {
      clusterName: name,
      backup: {
        bucket,
        key: backupKey,
        endpoint: env.minio!.podEndpoint,
        forcePathStyle: true,
        credentialsSecretName: 's3',
      },
    });
    await crashed(controllers[0]!);
    // THEN the cluster is not locked yet
    assert.equal((await objects().readCluster(name)).status?.restore, undefined);

    // WHEN restarted, it verifies again, takes the lock and dies
    await crashed(startController('TakeLock'));
    // THEN it died holding the lock, before stopping anything
    assert.equal((await objects().readCluster(name)).status?.restore?.uid, restore.metadata.uid);
    assert.ok(await core().readNamespacedPod({ namespace: ns, name: `${name}-0` }));

    // WHEN restarted, it retains the old PVC and dies
    await crashed(startController('RetainPVC'));
    const old = await core().readNamespacedPersistentVolumeClaim({ namespace: ns, name: `${name}-0-data` });
    assert.equal(old.metadata?.labels?.['etcd.gitops.dev/retained-by-restore'], 'good');
    assert.ok(await core().readNamespacedPod({ namespace: ns, name: `${name}-0` }), 'the old Pod still runs');

    // WHEN restarted, it deletes the old Pod, then the seed PVC, then the seed Pod, dying after each
    await crashed(startController('DeletePod'));
    await crashed(startController('CreateSeedPVC'));
    await crashed(startController('CreateSeedPod'));

    // WHEN restarted, it hands the seed to the planner once the seed serves and dies
    await crashed(startController('ReleaseToPlanner'));
    assert.equal((await objects().readCluster(name)).status?.restore?.phase, 'Growing');

    // WHEN restarted without the switch
    const last = startController();
    // THEN the restore completes and the cluster is Ready at 3, unlocked
    const done = await objects().phase('good', 'Completed', whileRunning(last));
    assert.equal(done.status?.backupKey, backupKey);
    await objects().readyAt(name, 3, whileRunning(last));
    await waitFor(async () => (await objects().readCluster(name)).status?.restore === undefined, {
      what: 'the lock released',
      timeoutMs: 30_000,
      abortIf: whileRunning(last),
    });
    // AND etcd holds exactly the keys of the backup
    const client = new Etcd3({ hosts: [clientURL] });
    try {
      const all = (await client.getAll().keys()).sort();
      const expected = Array.from({ length: 100 }, (_, i) => `before/${i}`).sort();
      assert.deepEqual(all, expected);
    } finally {
      client.close();
    }
    // AND the old PVC is still there, retained, and the restarts made one seed, not several
    const pvcs = (await core().listNamespacedPersistentVolumeClaim({ namespace: ns })).items;
    const retained = pvcs.filter((pvc) => pvc.metadata?.labels?.['etcd.gitops.dev/retained-by-restore']);
    assert.deepEqual(
      retained.map((pvc) => pvc.metadata?.name),
      [`${name}-0-data`],
    );
    const seeds = pvcs.filter(
      (pvc) =>
        pvc.metadata?.annotations?.['etcd.gitops.dev/cluster-token'] &&
        !pvc.metadata.labels?.['etcd.gitops.dev/retained-by-restore'],
    );
    assert.equal(seeds.length, 1, `seed PVCs: ${seeds.map((pvc) => pvc.metadata?.name)}`);
  });
});
