// An EtcdRestore deleted while it holds its cluster (docs/design/restore.md, "Failure after the point of no
// return"), on a real API server with the controller as a process: the restore took the lock, retained the old
// member PVCs, stopped the old Pods and created its seed; it is deleted while no controller runs; the next controller
// releases the lock, marks the retained PVC abandoned, reports the cluster Degraded naming that PVC and records a
// Warning Event, and deletes nothing. No nodes: Pods stay Pending, which is all this needs. First, in a namespace of
// its own, a restore of a cluster applied without the Role its construct makes: the controller's 403 on the
// credentials Secret fails the restore with a message that names the Role.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CoreV1Api } from '@kubernetes/client-node';
import { etcdClusterCrd, etcdRestoreCrd } from '../../constructs/api/crds.js';
import { restrictedNamespaceLabels } from '../../constructs/security.js';
import { etcdVersions } from '../env/binaries.js';
import { type Environment, startEnvironment } from '../env/environment.js';
import type { ManagedProcess } from '../env/process-group.js';
import { waitFor } from '../env/wait.js';
import { applyClusterControllerRbac } from '../integration/helpers/membership-kube.js';
import { restoreObjects, startControllerProcess, whileRunning } from '../integration/helpers/restore-kube.js';

const ns = 'restore-orphan';
const name = 'demo';

describe('an EtcdRestore deleted while it holds the cluster (real API server, controller process)', () => {
  let env: Environment;
  let dir: string;
  const controllers: ManagedProcess[] = [];
  const objects = () => restoreObjects(env, ns);
  const core = () => env.kubeConfig.makeApiClient(CoreV1Api);
  const startController = () => {
    const controller = startControllerProcess(env, {
      name: `controller-${controllers.length + 1}`,
      dir,
      namespace: ns,
    });
    controllers.push(controller);
    return controller;
  };
  /** Secret `s3` with an access key only (the first test never gets to read it; the second adds the secret key). */
  const createS3Secret = (namespace: string) =>
    env.kubectl(['create', 'secret', 'generic', 's3', '-n', namespace, '--from-literal=AWS_ACCESS_KEY_ID=a']);
  /** EtcdCluster `name` of etcd 3.6 as a bare custom resource (no construct: no Role for its Secrets). */
  const applyCluster = (namespace: string, size: number) =>
    env.kubectl(['apply', '--server-side', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'etcd.gitops.dev/v1alpha1',
        kind: 'EtcdCluster',
        metadata: { name, namespace },
        spec: { size, version: etcdVersions['3.6'] },
      }),
    });
  const names = async (list: Promise<{ items: { metadata?: { name?: string } }[] }>) =>
    (await list).items.map((item) => item.metadata?.name).sort();

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'etcd-gitops-restore-orphan-'));
    env = await startEnvironment({});
    for (const crd of [etcdClusterCrd(), etcdRestoreCrd()]) {
      await env.kubectl(['apply', '--server-side', '-f', '-'], { input: JSON.stringify(crd) });
      await env.kubectl(['wait', '--for=condition=Established', `crd/${crd.metadata.name}`, '--timeout=60s']);
    }
    await env.createNamespace(ns, restrictedNamespaceLabels());
    await createS3Secret(ns);
    await env.kubectl([
      'patch',
      'secret',
      's3',
      '-n',
      ns,
      '-p',
      '{"stringData":{"AWS_SECRET_ACCESS_KEY":"b"}}',
    ]);
  });

  after(async () => {
    await Promise.all(controllers.map((controller) => controller.stop(5_000)));
    await env?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test('GIVEN a cluster applied without the Role its EtcdCluster construct makes WHEN a restore from a backup is created THEN it fails at once, InvalidBackupSource naming the 403 on its credentials Secret and the Role that grants it, with a Warning Event', async () => {
    // A namespace of its own (nothing of it meets the next test), with the credentials Secret but no Role.
    const other = `${ns}-ungranted`;
    await env.createNamespace(other, restrictedNamespaceLabels());
    await createS3Secret(other);
    await applyCluster(other, 1);
    const controller = startControllerProcess(env, { name: 'controller-ungranted', dir, namespace: other });
    controllers.push(controller);
    try {
      const restores = restoreObjects(env, other);
      await restores.createRestore('r0', {
        clusterName: name,
        backup: {
          bucket: 'backups',
          key: `${other}/${name}/x.db`,
          endpoint: 'http://127.0.0.1:9',
          credentialsSecretName: 's3',
        },
      });
      const failed = await restores.phase('r0', 'Failed', whileRunning(controller), 60_000);
      const degraded = failed.status?.conditions?.find((c) => c.type === 'Degraded');
      assert.equal(degraded?.reason, 'InvalidBackupSource', JSON.stringify(failed.status));
      assert.equal(
        degraded?.message,
        `the controller may not read Secret s3 in namespace ${other} (403 Forbidden): grant its ServiceAccount get on Secrets there, as the Role ${name}-etcd-gitops-controller the EtcdCluster construct synthesizes does; nothing was changed`,
      );
      await waitFor(
        async () =>
          (await restores.events('r0')).some(
            (event) => event.type === 'Warning' && event.reason === 'InvalidBackupSource',
          ),
        { what: 'a Warning Event InvalidBackupSource on r0', timeoutMs: 30_000 },
      );
    } finally {
      await controller.stop(5_000);
    }
  });

  test('GIVEN a restore that stopped the old members and seeded WHEN it is deleted while no controller runs THEN the next controller releases the lock, reports the retained PVCs and deletes nothing', async () => {
    // The S3 Secret is readable by the controller through the Role the EtcdCluster construct makes.
    await applyClusterControllerRbac(env, ns, name);
    // GIVEN a cluster the controller seeded: its three initial members (a static bootstrap), whose Pods stay
    // Pending (no node)
    const old = ['demo-0', 'demo-1', 'demo-2'];
    await applyCluster(ns, 3);
    const first = startController();
    await waitFor(async () => (await core().readNamespacedPod({ namespace: ns, name: 'demo-2' })).metadata, {
      what: 'the seed Pods demo-0..2',
      abortIf: whileRunning(first),
    });
    await first.stop(5_000);
    // AND a restore past verification (its status says so), taken up by the next controller
    const restore = await objects().createRestore('r1', {
      clusterName: name,
      backup: {
        bucket: 'backups',
        key: `${ns}/${name}/x.db`,
        endpoint: 'http://127.0.0.1:9',
        credentialsSecretName: 's3',
      },
    });
    await env.kubectl([
      'patch',
      'etcdrestore',
      'r1',
      '-n',
      ns,
      '--subresource=status',
      '--type=merge',
      '-p',
      JSON.stringify({ status: { phase: 'Restoring', backupKey: `${ns}/${name}/x.db` } }),
    ]);
    const second = startController();
    const seed = await waitFor(
      async () => {
        const token = (await objects().readCluster(name)).status?.restore?.token;
        const pods = await core().listNamespacedPod({ namespace: ns });
        return (
          token !== undefined &&
          pods.items.find((pod) => pod.metadata?.annotations?.['etcd.gitops.dev/cluster-token'] === token)
        );
      },
      {
        what: 'the restore to stop demo-0..2 and create its seed Pod',
        timeoutMs: 60_000,
        abortIf: whileRunning(second),
      },
    );
    const locked = (await objects().readCluster(name)).status?.restore;
    assert.equal(locked?.uid, restore.metadata.uid, 'the restore holds the lock');
    assert.deepEqual(await names(core().listNamespacedPod({ namespace: ns })), [seed.metadata?.name]);
    await second.stop(5_000);

    // WHEN the restore is deleted while no controller runs, and a controller starts
    await env.kubectl(['delete', 'etcdrestore', 'r1', '-n', ns, '--wait=true']);
    const third = startController();

    // THEN the lock is released
    await waitFor(async () => (await objects().readCluster(name)).status?.restore === undefined, {
      what: 'the orphaned lock released',
      timeoutMs: 60_000,
      abortIf: whileRunning(third),
    });
    // AND the old members' PVCs are marked abandoned by r1, and nothing was deleted
    for (const member of old) {
      const pvc = await core().readNamespacedPersistentVolumeClaim({ namespace: ns, name: `${member}-data` });
      assert.equal(pvc.metadata?.labels?.['etcd.gitops.dev/retained-by-restore'], 'r1', member);
      assert.equal(pvc.metadata?.annotations?.['etcd.gitops.dev/abandoned-by-restore'], 'r1', member);
    }
    assert.deepEqual(await names(core().listNamespacedPersistentVolumeClaim({ namespace: ns })), [
      ...old.map((member) => `${member}-data`),
      `${seed.metadata?.name}-data`,
    ]);
    assert.deepEqual(await names(core().listNamespacedPod({ namespace: ns })), [seed.metadata?.name]);
    // AND the cluster says Degraded, naming the PVC with the old data
    const degraded = await waitFor(
      async () =>
        (await objects().readCluster(name)).status?.conditions?.find(
          (c) => c.type === 'Degraded' && c.reason === 'RestoreAbandoned',
        ),
      { what: 'Degraded RestoreAbandoned on the cluster', timeoutMs: 60_000, abortIf: whileRunning(third) },
    );
    assert.equal(degraded.status, 'True');
    assert.match(degraded.message ?? '', /EtcdRestore r1 was deleted before it completed/);
    for (const member of old) assert.ok(degraded.message?.includes(`${member}-data`), degraded.message);
    // AND a Warning Event on the cluster says the same
    const event = await waitFor(
      async () => (await objects().events(name)).find((e) => e.reason === 'RestoreAbandoned'),
      { what: 'the RestoreAbandoned Event', timeoutMs: 30_000 },
    );
    assert.equal(event.type, 'Warning');
    for (const member of old) assert.ok(event.message?.includes(`${member}-data`), event.message);
  });
});
