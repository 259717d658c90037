// Real Flux syncs dist/ from Git on three real nodes. The environment's Git server (test/env/gitops/git-server.ts)
// serves two repositories: one whose first commit is this repository's dist/, unchanged, and a user's application
// (`my-app`, one ConfigMap). Flux's source-controller and kustomize-controller (test/env/gitops/flux.ts) reconcile
// docs/gitops/flux.yaml as the docs give it (the GitRepository's url replaced, and the `my-app` GitRepository its
// second Kustomization names): `wait: true` with our healthCheckExprs, `dependsOn`, `prune: true`.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import type { EtcdCluster } from '../../controller/etcdcluster/api.js';
import { readManifests } from '../env/dist-manifests.js';
import { type Environment, startEnvironment } from '../env/environment.js';
import { type Flux, type FluxObject, startFlux } from '../env/gitops/flux.js';
import { type GitRepository, startGitServer } from '../env/gitops/git-server.js';
import { waitFor } from '../env/wait.js';

const manifests = readManifests();
const example = manifests.find((m) => m.kind === 'EtcdCluster');
const namespace = example?.namespace ?? 'etcd-example';
const name = example?.name ?? 'example';
const EXAMPLE_FILE = 'dist/02-example.k8s.yaml';
const MY_APP = 'my-app';
const MY_APP_CONFIGMAP = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'my-app-settings', namespace: 'default' },
  data: { etcd: `http://${name}-client.${namespace}.svc:2379` },
};

interface Condition {
  readonly type: string;
  readonly status: string;
  readonly reason?: string;
  readonly lastTransitionTime?: string;
}
const ready = (object: { status?: { conditions?: Condition[] } } | undefined) =>
  object?.status?.conditions?.find((c) => c.type === 'Ready');

interface Sample {
  readonly at: number;
  readonly kustomizationReady: boolean;
  readonly clusterReady: boolean;
  readonly myAppReason?: string;
  readonly myAppApplied: boolean;
}

describe('Flux (real source-controller and kustomize-controller) syncs dist/ from Git on real nodes', () => {
  let env: Environment;
  let dir: string;
  let repo: GitRepository;
  let flux: Flux;

  const custom = () => env.kubeConfig.makeApiClient(CustomObjectsApi);
  const core = () => env.kubeConfig.makeApiClient(CoreV1Api);
  const readCluster = async () =>
    (await custom()
      .getNamespacedCustomObject({
        group: 'etcd.gitops.dev',
        version: 'v1alpha1',
        namespace,
        plural: 'etcdclusters',
        name,
      })
      .catch(() => undefined)) as (EtcdCluster & { metadata: { uid?: string } }) | undefined;
  const myAppApplied = async () =>
    core()
      .readNamespacedConfigMap({ namespace: 'default', name: MY_APP_CONFIGMAP.metadata.name })
      .then(
        (cm) => cm,
        () => undefined,
      );
  const pvcNames = async () =>
    (await core().listNamespacedPersistentVolumeClaim({ namespace })).items
      .map((pvc) => pvc.metadata?.name ?? '')
      .sort();

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'etcd-gitops-flux-'));
    env = await startEnvironment({ nodes: 3 });
    const git = await startGitServer(env, join(dir, 'git'));
    repo = await git.createRepository('etcd-gitops');
    const myApp = await git.createRepository(MY_APP, {
      'deploy/settings.yaml': `${JSON.stringify(MY_APP_CONFIGMAP, null, 2)}\n`,
    });
    flux = await startFlux(env, join(dir, 'flux'));
    await flux.applyDocs({ etcdGitops: repo.url, myApp: myApp.url });
  });

  after(async () => {
    await env?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  test('GIVEN the docs Kustomizations WHEN Flux syncs dist/ THEN etcd-gitops is Ready only once the EtcdCluster is Ready, and my-app (dependsOn) is applied only after that', async (t) => {
    const samples: Sample[] = [];
    const start = Date.now();
    let kustomization: FluxObject | undefined;
    await waitFor(
      async () => {
        kustomization = await flux.kustomization('etcd-gitops').catch(() => undefined);
        const cluster = await readCluster();
        const myApp = await flux.kustomization(MY_APP).catch(() => undefined);
        samples.push({
          at: Date.now() - start,
          kustomizationReady: ready(kustomization)?.status === 'True',
          clusterReady: ready(cluster)?.status === 'True',
          myAppReason: ready(myApp)?.reason,
          myAppApplied: (await myAppApplied()) !== undefined,
        });
        return ready(myApp)?.status === 'True';
      },
      {
        what: 'the my-app Kustomization Ready',
        timeoutMs: 600_000,
        intervalMs: 1_000,
        abortIf: () => flux.exited(),
      },
    ).catch(async (error: Error) => {
      throw new Error(
        `${error.message}\netcd-gitops: ${JSON.stringify(kustomization?.status?.conditions)}\n${flux.logTail()}`,
      );
    });
    const cluster = await readCluster();
    const clusterReadyAt = Date.parse(ready(cluster)?.lastTransitionTime ?? '');
    const kustomizationReadyAt = Date.parse(ready(kustomization)?.lastTransitionTime ?? '');
    const configMap = await myAppApplied();
    const appliedAt = Date.parse(configMap?.metadata?.creationTimestamp?.toString() ?? '');
    const times = `EtcdCluster Ready ${new Date(clusterReadyAt).toISOString()}, etcd-gitops Ready ${new Date(kustomizationReadyAt).toISOString()}, my-app applied ${new Date(appliedAt).toISOString()}`;
    t.diagnostic(
      `${times} (${((kustomizationReadyAt - start) / 1000).toFixed(0)} s after the Kustomizations were created)`,
    );
    // All three are whole-second times (metav1.Time; ours too, controller/status/conditions.ts kubeTime).
    assert.ok(kustomizationReadyAt >= clusterReadyAt, `etcd-gitops Ready before the EtcdCluster: ${times}`);
    assert.ok(appliedAt >= kustomizationReadyAt, `my-app applied before etcd-gitops was Ready: ${times}`);
    // Sampled once a second: never a Ready Kustomization over a cluster that is not, never my-app applied before.
    assert.deepEqual(
      samples.filter((s) => s.kustomizationReady && !s.clusterReady),
      [],
    );
    assert.deepEqual(
      samples.filter((s) => s.myAppApplied && !s.kustomizationReady),
      [],
    );
    assert.ok(
      samples.some((s) => !s.kustomizationReady && s.myAppReason === 'DependencyNotReady'),
      `my-app waited on its dependency: ${JSON.stringify(samples.map((s) => s.myAppReason))}`,
    );
  });

  test('WHEN the example leaves Git with prune: true THEN Flux prunes what holds no data and leaves the EtcdCluster, its namespace and every member volume', async () => {
    const uid = (await readCluster())?.metadata.uid;
    const pvcs = await pvcNames();
    assert.ok(pvcs.length >= 3, pvcs.join(', '));
    const revision = await repo.commit('remove the example cluster', { [EXAMPLE_FILE]: null });
    await flux.reconcileNow('GitRepository', 'etcd-gitops');
    await waitFor(
      async () => {
        const k = await flux.kustomization('etcd-gitops');
        return k.status?.lastAppliedRevision?.endsWith(revision) && ready(k)?.status === 'True';
      },
      {
        what: `etcd-gitops applied at ${revision.slice(0, 8)}`,
        timeoutMs: 180_000,
        intervalMs: 1_000,
        abortIf: () => flux.exited(),
      },
    );
    // Pruned: the example's Services (they hold no data and come back with Git).
    assert.equal(
      (await env.kubectl(['get', 'service', `${name}-client`, '-n', namespace], { allowFailure: true })).code,
      1,
    );
    assert.equal((await readCluster())?.metadata.uid, uid, 'the EtcdCluster stays');
    assert.deepEqual(await pvcNames(), pvcs, 'every member volume stays');
    assert.equal((await env.kubectl(['get', 'namespace', namespace], { allowFailure: true })).code, 0);
  });
});
