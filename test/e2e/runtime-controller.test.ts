// The runtime's Controller against a real kube-apiserver with the product's CRDs: EtcdCluster changes and member
// Pod changes both enqueue the cluster's key, the resync enqueues every known cluster again, and a failed pass
// does not stop the controller (retry timing is unit-tested in test/unit/runtime/queue.test.ts). The reconciler
// here only records what it is asked: the seam under test is the runtime, not a reconciler.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { pino } from 'pino';
import { etcdClusterCrd, etcdRestoreCrd } from '../../constructs/api/crds.js';
import { Controller } from '../../controller/runtime/controller.js';
import { SharedInformers } from '../../controller/runtime/informers.js';
import { clusterKeysOfMember } from '../../controller/runtime/owner-keys.js';
import type { ObjectKey, ReconcileResult } from '../../controller/runtime/types.js';
import { type ControlPlane, startControlPlane } from '../env/control-plane.js';
import { kubectl as runKubectl } from '../env/kubectl.js';
import { waitFor } from '../env/wait.js';
import { createNamespace, pod } from './runtime-support.js';

const log = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });

describe('Controller against a real API server', { timeout: 300_000 }, () => {
  let cp: ControlPlane;
  let dir: string;
  const stops: Array<() => Promise<unknown>> = [];

  before(async () => {
    cp = await startControlPlane();
    dir = await mkdtemp(join(tmpdir(), 'etcd-gitops-runtime-controller-'));
    const crds = join(dir, 'crds.json');
    await writeFile(
      crds,
      JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [etcdClusterCrd(), etcdRestoreCrd()] }),
    );
    const kubectl = (...args: string[]) => runKubectl(cp.kubeconfigPath, args);
    await kubectl('create', '-f', crds);
    await kubectl('wait', '--for=condition=Established', '--timeout=60s', 'crd/etcdclusters.etcd.gitops.dev');
    await kubectl('wait', '--for=condition=Established', '--timeout=60s', 'crd/etcdrestores.etcd.gitops.dev');
  });
  after(async () => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    await cp?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('reconciles a cluster on its own changes, its member Pods and every resync, and goes on after a failed pass', async () => {
    // GIVEN a namespace with one EtcdCluster, and a controller whose reconciler fails its second pass
    const namespace = await createNamespace(cp.kubeConfig, 'controller');
    const objects = cp.kubeConfig.makeApiClient(CustomObjectsApi);
    const cluster = (name: string) => ({
      apiVersion: 'etcd.gitops.dev/v1alpha1',
      kind: 'EtcdCluster',
      metadata: { name },
      spec: { size: 1, version: '3.5.17' },
    });
    const group = { group: 'etcd.gitops.dev', version: 'v1alpha1', plural: 'etcdclusters', namespace };
    await objects.createNamespacedCustomObject({ ...group, body: cluster('main') });
    const calls: string[] = [];
    const reconciler = {
      async reconcile(key: ObjectKey): Promise<ReconcileResult> {
        calls.push(key.name);
        if (calls.length === 2) throw new Error('second pass fails');
        return {};
      },
    };
    const informers = new SharedInformers({ kubeConfig: cp.kubeConfig, log, namespaces: [namespace] });
    const controller = new Controller({
      name: 'test',
      reconciler,
      log,
      primary: informers.clusters,
      secondaries: [{ informer: informers.pods, keysOf: clusterKeysOfMember }],
      resyncPeriodMs: 60_000,
      backoff: { initialMs: 100, maxMs: 100 },
    });
    stops.push(
      () => informers.stop(),
      () => controller.stop(1_000),
    );
    informers.start();
    await controller.start();
    // THEN the existing cluster is reconciled once the caches synced
    await waitFor(() => calls.length >= 1, { what: 'the first reconcile' });
    assert.ok(
      informers.clusters.synced && informers.pods.synced,
      'the informers of this controller synced first',
    );
    assert.equal(calls[0], 'main');
    // WHEN a member Pod of the cluster appears (the second pass fails)
    await cp.kubeConfig.makeApiClient(CoreV1Api).createNamespacedPod({
      namespace,
      body: pod(namespace, 'main-0', {
        'app.kubernetes.io/managed-by': 'etcd-gitops',
        'app.kubernetes.io/instance': 'main',
      }),
    });
    // THEN the cluster is reconciled for it, and again afterwards (retry or Pod update)
    await waitFor(() => calls.length >= 3, {
      what: `a reconcile for the Pod and its retry (calls: ${calls})`,
    });
    assert.deepEqual(calls.slice(0, 3), ['main', 'main', 'main']);
    // WHEN a second cluster is created and a resync happens
    await objects.createNamespacedCustomObject({ ...group, body: cluster('other') });
    await waitFor(() => calls.includes('other'), { what: 'the new cluster to be reconciled' });
    const before = calls.length;
    controller.resync();
    // THEN both known clusters are reconciled again
    await waitFor(() => calls.length >= before + 2, {
      what: 'a reconcile of every cluster after the resync',
    });
    assert.deepEqual(calls.slice(before, before + 2).sort(), ['main', 'other']);
  });
});
