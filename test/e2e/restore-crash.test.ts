// In-place restore with the controller killed in the middle, on the local Kubernetes with MinIO: the user's cdk8s
// app (EtcdCluster + backup CronJob, synthesized by our constructs) is applied; the controller runs as a process
// (`etcd-gitops controller`) inside the environment namespace; the backup is taken by a Job made from the
// synthesized CronJob (our image, on a real node); a majority of members loses Pod and data; an EtcdRestore is
// created while the controller carries a test-only crash switch, so it SIGKILLs itself right after each step of the
// restore in turn, whichever reconciler takes it (docs/design/restore.md, "One writer per cluster"): the EtcdRestore
// reconciler's (ETCD_GITOPS_TEST_RESTORE_CRASH_AFTER: verifying the backup, taking the lock, completing, handing the
// lock back) and the membership reconciler's (ETCD_GITOPS_TEST_CRASH_AFTER: retaining the old PVC, stopping the old
// Pod, creating the seed PVC, creating the seed Pod, handing the seed to its usual steps, clearing the lock),
// restarted each time; a controller without a switch finishes: Completed, Ready at 3, exactly the keys of the backup.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { S3Client } from '@aws-sdk/client-s3';
import { CoreV1Api } from '@kubernetes/client-node';
import { Etcd3 } from 'etcd3';
import { etcdVersions } from '../env/binaries.js';
import type { Environment } from '../env/environment.js';
import { loseMembersWithData } from '../env/lose-data.js';
import type { ManagedProcess } from '../env/process-group.js';
import { waitFor } from '../env/wait.js';
import {
  backupNow,
  type CrashAfter,
  type CrashableControllers,
  crashableControllers,
  type RestoreTestbed,
  restoreObjects,
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
  let controllers: CrashableControllers;
  const objects = () => restoreObjects(env, ns);
  const core = () => env.kubeConfig.makeApiClient(CoreV1Api);
  const startController = (crashAfter?: CrashAfter) => controllers.start(crashAfter);
  const crashed = (controller: ManagedProcess) => controllers.crashed(controller);

  before(async () => {
    testbed = await startRestoreTestbed('crash', ns);
    ({ env, s3, bucket, dir } = testbed);
    controllers = crashableControllers(env, { dir, namespace: ns });
  });

  after(async () => {
    await controllers?.stopAll();
    await testbed?.stop();
  });

  test('GIVEN the synthesized cluster and CronJob WHEN a Job from the CronJob backs it up THEN the backup holds the first keys', async () => {
    await testbed!.applyCluster({ name, version: etcdVersions['3.6'], size: 3 });
    // The first controller carries the switch from the start: it only fires on a restore action.
    const first = startController({ restore: 'Verify' });
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
    await loseMembersWithData(core(), ns, [`${name}-1`, `${name}-2`], { force: true });
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
    await crashed(controllers.started[0]!);
    // THEN the cluster is not locked yet
    assert.equal((await objects().readCluster(name)).status?.restore, undefined);

    // WHEN restarted, the restore reconciler verifies again, takes the lock and dies
    await crashed(startController({ restore: 'TakeLock' }));
    // THEN it died holding the lock, with the token and the verified key to seed from, before anything was stopped
    const taken = (await objects().readCluster(name)).status?.restore;
    assert.equal(taken?.uid, restore.metadata.uid);
    assert.equal(taken?.phase, 'Restoring');
    assert.equal(taken?.source?.backup?.key, backupKey);
    assert.ok(taken?.token);
    assert.ok(await core().readNamespacedPod({ namespace: ns, name: `${name}-0` }));

    // WHEN restarted, the membership reconciler retains the old PVC and dies
    await crashed(startController({ membership: 'RetainPVC' }));
    const old = await core().readNamespacedPersistentVolumeClaim({ namespace: ns, name: `${name}-0-data` });
    assert.equal(old.metadata?.labels?.['etcd.gitops.dev/retained-by-restore'], 'good');
    assert.ok(await core().readNamespacedPod({ namespace: ns, name: `${name}-0` }), 'the old Pod still runs');

    // WHEN restarted, it deletes the old Pod, then creates the seed PVC, then the seed Pod, dying after each
    await crashed(startController({ membership: 'DeletePod' }));
    await crashed(startController({ membership: 'CreatePVC' }));
    await crashed(startController({ membership: 'CreatePod' }));

    // WHEN restarted, it hands the seed to its usual steps once the seed serves, and dies
    await crashed(startController({ membership: 'ReleaseToPlanner' }));
    assert.equal((await objects().readCluster(name)).status?.restore?.phase, 'Growing');

    // WHEN restarted, the cluster grows to 3 and the restore reconciler completes, dying before it records it
    await crashed(startController({ restore: 'Complete' }));
    assert.equal((await objects().readRestore('good')).status?.phase, 'Restoring');
    // AND restarted, it records Completed, hands the lock back and dies
    await crashed(startController({ restore: 'ReleaseLock' }));
    assert.equal((await objects().readRestore('good')).status?.phase, 'Completed');
    assert.equal((await objects().readCluster(name)).status?.restore?.phase, 'Completed');
    // AND restarted, the membership reconciler clears the lock and dies
    await crashed(startController({ membership: 'ClearRestoreLock' }));
    assert.equal((await objects().readCluster(name)).status?.restore, undefined);

    // WHEN restarted without a switch
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
