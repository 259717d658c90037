// Recovery from a surviving member (docs/design/restore.md, "Recovery from a surviving member"), on the local
// Kubernetes with MinIO: the user's synthesized cluster and backup CronJob, a backup taken by a Job from it, then more
// writes the backup does not hold; the writes stop, the survivor has applied them (a linearizable read through it),
// two of three members lose Pod and PVC. An EtcdRestore with `survivor: {newest: true}` is created while the
// controller process carries the test-only crash switches, so it SIGKILLs itself right after each step of both
// reconcilers in turn (choosing the survivor, taking the lock, retaining the PVC, creating the seed PVC and Pod,
// stopping the survivor, handing the seed over); a controller without a switch finishes: Completed, Ready at 3, with
// every acknowledged write, also those newer than the backup. Before it, a restore naming a member that has no Pod
// or volume is refused (InvalidSurvivor) with nothing changed.
// Then the user's part of a lost seed (docs/design/membership.md step 2.6): an in-place restore of that cluster whose
// seed's node dies before the seed serves reads SeedLost, and deleting the seed's PVC and then its Pod, as the
// message says, seeds again on a node that is up.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CoreV1Api } from '@kubernetes/client-node';
import { Etcd3 } from 'etcd3';
import { memberSelectorString } from '../../constructs/conventions/labels.js';
import { etcdVersions } from '../env/binaries.js';
import type { Environment } from '../env/environment.js';
import { loseMembersWithData } from '../env/lose-data.js';
import type { ManagedProcess } from '../env/process-group.js';
import { waitFor } from '../env/wait.js';
import {
  backupNow,
  backupResult,
  type CrashAfter,
  type CrashableControllers,
  crashableControllers,
  type RestoreTestbed,
  restoreObjects,
  startRestoreTestbed,
  untilAnswering,
  whileRunning,
} from '../integration/helpers/restore-kube.js';

const ns = 'restore-survivor';
const name = 'sv';
const clientURL = `http://${name}-client.${ns}.svc:2379`;
const survivorURL = `http://${name}-0.${name}-peer.${ns}.svc:2379`;
const BEFORE = 100;
const AFTER = 150;
const NODE_NOT_READY = '10s';

/** Every key and value of the cluster, read through its client Service once it answers. */
async function keysOnceAnswering(): Promise<Record<string, string>> {
  const client = new Etcd3({ hosts: [clientURL] });
  try {
    await untilAnswering(client, clientURL);
    return await client.getAll().strings();
  } finally {
    client.close();
  }
}

/** Every write the first test acknowledged is there: BEFORE `before/` keys and AFTER `after/` keys, with values. */
function assertEveryWrite(all: Record<string, string>): void {
  assert.equal(Object.keys(all).filter((k) => k.startsWith('before/')).length, BEFORE);
  assert.equal(Object.keys(all).filter((k) => k.startsWith('after/')).length, AFTER);
  for (let i = 0; i < BEFORE; i++) assert.equal(all[`before/${i}`], `v${i}`);
  for (let i = 0; i < AFTER; i++) assert.equal(all[`after/${i}`], `w${i}`);
}

describe('a survivor restore recovers writes newer than the last backup, with the controller killed between steps (local Kubernetes, MinIO)', () => {
  let testbed: RestoreTestbed | undefined;
  let env: Environment;
  let dir: string;
  let bucket: string;
  let controllers: CrashableControllers;
  const objects = () => restoreObjects(env, ns);
  const core = () => env.kubeConfig.makeApiClient(CoreV1Api);
  const startController = (crashAfter?: CrashAfter) => controllers.start(crashAfter);
  const crashed = (controller: ManagedProcess) => controllers.crashed(controller);
  const pod = (member: string) =>
    core()
      .readNamespacedPod({ namespace: ns, name: member })
      .catch(() => undefined);

  before(async () => {
    testbed = await startRestoreTestbed('survivor', ns);
    ({ env, bucket, dir } = testbed);
    controllers = crashableControllers(env, { dir, namespace: ns });
  });
  after(async () => {
    await controllers?.stopAll();
    await testbed?.stop();
  });

  test('GIVEN a backup and writes after it WHEN two members lose Pod and data THEN a restore naming a member without Pod or volume is refused with nothing changed, and a survivor restore run with the controller killed after each step brings the cluster back at 3 with every acknowledged write', async () => {
    await testbed!.applyCluster({
      name,
      version: etcdVersions['3.6'],
      size: 3,
      // The second test's seed is lost with its node: replaced after 10 s of NotReady, not the default 2 min.
      props: { failureDetection: { nodeNotReady: NODE_NOT_READY } },
    });
    const first = startController({ restore: 'ChooseSurvivor' });
    await objects().readyAt(name, 3, whileRunning(first));
    const client = new Etcd3({ hosts: [clientURL] });
    try {
      await untilAnswering(client, clientURL);
      for (let i = 0; i < BEFORE; i++) await client.put(`before/${i}`).value(`v${i}`);
      await backupNow(env, ns, `${name}-backup`, 'backup-1');
      // Acknowledged after the backup: only the members have them.
      for (let i = 0; i < AFTER; i++) await client.put(`after/${i}`).value(`w${i}`);
    } finally {
      client.close();
    }
    // The writes stopped; the survivor has applied every one (a linearizable read through it waits for that).
    const survivor = new Etcd3({ hosts: [survivorURL] });
    try {
      assert.equal(await survivor.get(`after/${AFTER - 1}`).string(), `w${AFTER - 1}`);
    } finally {
      survivor.close();
    }
    // Two of three members lose Pod and PVC: no quorum, and the backup lacks the last AFTER writes.
    await loseMembersWithData(core(), ns, [`${name}-1`, `${name}-2`], { force: true });
    await waitFor(
      async () =>
        (await objects().readCluster(name)).status?.conditions?.find((c) => c.type === 'Available')
          ?.status === 'False',
      { what: 'the cluster to report quorum lost', timeoutMs: 120_000, intervalMs: 1_000 },
    );
    // Admission refuses a restore that names both kinds of source.
    const both = await env.kubectl(['apply', '-f', '-'], {
      allowFailure: true,
      input: JSON.stringify({
        apiVersion: 'etcd.gitops.dev/v1alpha1',
        kind: 'EtcdRestore',
        metadata: { name: 'both', namespace: ns },
        spec: {
          clusterName: name,
          survivor: { newest: true },
          backup: { bucket, key: 'k', credentialsSecretName: 's3' },
        },
      }),
    });
    assert.notEqual(both.code, 0);
    assert.match(both.stderr, /set exactly one of backup .* and survivor/);

    // A named survivor with no member Pod or volume (a typo) can never seed: it fails at once, InvalidSurvivor with
    // a Warning Event, before any Pod, PVC or lock changes.
    const podsBefore = (await core().listNamespacedPod({ namespace: ns })).items.map((p) => p.metadata?.uid);
    const pvcsBefore = (await core().listNamespacedPersistentVolumeClaim({ namespace: ns })).items.map(
      (p) => `${p.metadata?.uid} ${JSON.stringify(p.metadata?.labels)}`,
    );
    await objects().createRestore('typo', { clusterName: name, survivor: { member: `${name}-9` } });
    const typo = await objects().phase('typo', 'Failed', whileRunning(first), 60_000);
    const refusal = typo.status?.conditions?.find((c) => c.type === 'Degraded');
    assert.equal(refusal?.reason, 'InvalidSurvivor', JSON.stringify(typo.status));
    assert.match(
      refusal?.message ?? '',
      new RegExp(
        `^spec\\.survivor\\.member: ${name}-9 has no member Pod or volume in cluster ${name}, .*members with a Pod or volume: ${name}-0\\); nothing was changed$`,
      ),
    );
    await waitFor(
      async () =>
        (await objects().events('typo')).some((e) => e.type === 'Warning' && e.reason === 'InvalidSurvivor'),
      { what: 'a Warning Event InvalidSurvivor on restore typo', timeoutMs: 30_000 },
    );
    assert.equal((await objects().readCluster(name)).status?.restore, undefined, 'no lock taken');
    assert.deepEqual(
      (await core().listNamespacedPod({ namespace: ns })).items.map((p) => p.metadata?.uid),
      podsBefore,
    );
    assert.deepEqual(
      (await core().listNamespacedPersistentVolumeClaim({ namespace: ns })).items.map(
        (p) => `${p.metadata?.uid} ${JSON.stringify(p.metadata?.labels)}`,
      ),
      pvcsBefore,
    );

    // WHEN the survivor restore is created: the controller chooses the survivor and dies before recording it
    const restore = await objects().createRestore('survive', {
      clusterName: name,
      survivor: { newest: true },
    });
    await crashed(first);
    assert.equal((await objects().readCluster(name)).status?.restore, undefined, 'not locked yet');

    // chooses again, records, takes the lock, dies
    await crashed(startController({ restore: 'TakeLock' }));
    const chosen = (await objects().readRestore('survive')).status;
    assert.equal(chosen?.sourceMember, `${name}-0`);
    assert.ok(chosen?.sourceMemberId && Number(chosen.revision) > BEFORE + AFTER, JSON.stringify(chosen));
    assert.match(chosen?.message ?? '', /writes it had not applied are lost/);
    const lock = (await objects().readCluster(name)).status?.restore;
    assert.equal(lock?.uid, restore.metadata.uid);
    assert.deepEqual(lock?.source, { member: { name: `${name}-0`, id: chosen?.sourceMemberId } });

    // the membership controller retains the survivor's PVC (its Pod keeps running), then makes the seed
    await crashed(startController({ membership: 'RetainPVC' }));
    const retained = await core().readNamespacedPersistentVolumeClaim({
      namespace: ns,
      name: `${name}-0-data`,
    });
    assert.equal(retained.metadata?.labels?.['etcd.gitops.dev/retained-by-restore'], 'survive');
    assert.equal((await pod(`${name}-0`))?.metadata?.deletionTimestamp, undefined, 'the survivor still runs');
    await crashed(startController({ membership: 'CreatePVC' }));
    await crashed(startController({ membership: 'CreatePod' }));
    // once the seed serves the survivor's copy, the survivor's Pod is stopped
    await crashed(startController({ membership: 'DeletePod' }));
    // The seed is the Pod carrying the lock's token (its name is the lowest free index, not the survivor's).
    const token = (await objects().readCluster(name)).status?.restore?.token;
    const seedPods = (await core().listNamespacedPod({ namespace: ns })).items.filter(
      (p) => token && p.metadata?.annotations?.['etcd.gitops.dev/cluster-token'] === token,
    );
    assert.equal(seedPods.length, 1, `one seed Pod with token ${token}`);
    const seed = seedPods[0];
    assert.notEqual(seed?.metadata?.name, `${name}-0`, 'the seed is a new member, not the survivor');
    assert.deepEqual(seed?.spec?.initContainers?.[0]?.args?.slice(0, 2), ['restore', 'from-member']);
    await waitFor(async () => !(await pod(`${name}-0`)), {
      what: 'the survivor Pod gone',
      timeoutMs: 60_000,
    });
    await crashed(startController({ membership: 'ReleaseToPlanner' }));
    assert.equal((await objects().readCluster(name)).status?.restore?.phase, 'Growing');

    // THEN a controller without a switch completes the restore
    const last = startController();
    const done = await objects().phase('survive', 'Completed', whileRunning(last));
    assert.equal(done.status?.sourceMember, `${name}-0`);
    await objects().readyAt(name, 3, whileRunning(last));
    await waitFor(async () => (await objects().readCluster(name)).status?.restore === undefined, {
      what: 'the lock released',
      timeoutMs: 60_000,
      abortIf: whileRunning(last),
    });
    // AND every acknowledged write is there, the ones newer than the backup too
    assertEveryWrite(await keysOnceAnswering());
    const restored = new Etcd3({ hosts: [clientURL] });
    try {
      await restored.put('after-restore').value('writes work');
    } finally {
      restored.close();
    }
    // AND the survivor's data is still on its retained PVC, and the restarts made one seed
    const pvcs = (await core().listNamespacedPersistentVolumeClaim({ namespace: ns })).items;
    assert.deepEqual(
      pvcs
        .filter((p) => p.metadata?.labels?.['etcd.gitops.dev/retained-by-restore'])
        .map((p) => p.metadata?.name),
      [`${name}-0-data`],
    );
    const seeds = pvcs.filter(
      (p) =>
        p.metadata?.annotations?.['etcd.gitops.dev/cluster-token'] &&
        !p.metadata.labels?.['etcd.gitops.dev/retained-by-restore'],
    );
    assert.equal(seeds.length, 1, `seed PVCs: ${seeds.map((p) => p.metadata?.name)}`);
  });

  test("GIVEN an in-place restore whose seed's node dies before the seed serves THEN the cluster reads SeedLost (Degraded, Stalled, a Warning Event) saying to delete the seed's PVC and then its Pod; a user doing so seeds again on a node that is up, and the restore completes with every write", async () => {
    // GIVEN the cluster the first test restored, Ready at 3, and a backup of it; no controller runs
    await controllers.stopAll();
    const log = await backupNow(env, ns, `${name}-backup`, 'backup-2');
    const { key } = backupResult(log);
    // WHEN a restore of it runs until the seed's Pod is made (the controller stops right after: nothing sees the
    // seed serve), and the seed's node then dies
    await objects().createRestore('reseed', {
      clusterName: name,
      allowHealthyCluster: true,
      backup: {
        bucket,
        key,
        endpoint: env.minio?.podEndpoint,
        forcePathStyle: true,
        credentialsSecretName: 's3',
      },
    });
    await crashed(startController({ membership: 'CreatePod' }));
    const token = (await objects().readCluster(name)).status?.restore?.token;
    const seedOf = async () =>
      (await core().listNamespacedPod({ namespace: ns })).items.find(
        (p) => token && p.metadata?.annotations?.['etcd.gitops.dev/cluster-token'] === token,
      );
    const first = await waitFor(
      async () => {
        const seed = await seedOf();
        return seed?.spec?.nodeName ? seed : undefined;
      },
      { what: 'the seed Pod scheduled', timeoutMs: 60_000 },
    );
    const seedName = first.metadata?.name as string;
    const deadNode = first.spec?.nodeName as string;
    await env.faults.stopNode(deadNode);
    try {
      // The controller starts once the API server no longer reports the seed Ready (the node lifecycle controller
      // marks a Pod of a node that stopped answering not Ready), so it never sees the seed serve.
      await waitFor(
        async () =>
          (await seedOf())?.status?.conditions?.find((c) => c.type === 'Ready')?.status !== 'True' &&
          (await core().readNode({ name: deadNode })).status?.conditions?.find((c) => c.type === 'Ready')
            ?.status !== 'True',
        { what: `node ${deadNode} and the seed ${seedName} not Ready`, timeoutMs: 90_000, intervalMs: 1_000 },
      );
      const controller = startController();
      // THEN the cluster says the seed is lost, and what to do, in that order
      const lost = await waitFor(
        async () => {
          const conditions = (await objects().readCluster(name)).status?.conditions ?? [];
          const degraded = conditions.find((c) => c.type === 'Degraded');
          const stalled = conditions.find((c) => c.type === 'Stalled');
          return (
            degraded?.status === 'True' &&
            degraded.reason === 'SeedLost' &&
            stalled?.status === 'True' &&
            degraded
          );
        },
        {
          what: 'Degraded SeedLost and Stalled',
          timeoutMs: 180_000,
          intervalMs: 1_000,
          abortIf: whileRunning(controller),
        },
      );
      assert.match(
        lost.message ?? '',
        new RegExp(
          `^the seed ${seedName} of EtcdRestore reseed is lost \\(its node ${deadNode} has not been Ready for .*delete its PVC, then its Pod \\(with --force when its node is gone\\)`,
        ),
      );
      await waitFor(
        async () =>
          (await objects().events(name)).some((e) => e.type === 'Warning' && e.reason === 'SeedLost'),
        { what: `a Warning Event SeedLost on ${name}`, timeoutMs: 30_000 },
      );
      // WHEN the user follows it
      await env.kubectl(['delete', 'pvc', `${seedName}-data`, '-n', ns, '--wait=false']);
      await env.kubectl(['delete', 'pod', seedName, '-n', ns, '--force', '--grace-period=0']);
      // THEN a new seed under a new name on a node that is up restores, and the restore completes
      const done = await objects().phase('reseed', 'Completed', whileRunning(controller));
      assert.equal(done.status?.phase, 'Completed');
      await objects().readyAt(name, 3, whileRunning(controller));
      const pods = (
        await core().listNamespacedPod({ namespace: ns, labelSelector: memberSelectorString(name) })
      ).items;
      // The new seed takes the lowest free name, which may be the lost seed's again: it is another Pod.
      assert.equal(
        pods.some((p) => p.metadata?.uid === first.metadata?.uid),
        false,
        'the lost seed Pod is gone',
      );
      assert.equal(
        pods.some((p) => p.spec?.nodeName === deadNode),
        false,
        'no member on the dead node',
      );
      const all = await keysOnceAnswering();
      assertEveryWrite(all);
      assert.equal(all['after-restore'], 'writes work');
    } finally {
      await env.faults.restartNode(deadNode);
    }
  });
});
