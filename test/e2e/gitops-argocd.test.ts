// Real Argo CD syncs dist/ from Git on three real nodes. The environment's Git server (test/env/gitops/git-server.ts)
// serves a repository whose first commit is this repository's dist/, unchanged; Argo CD (application-controller,
// repo-server, Redis: test/env/gitops/argocd.ts) runs with the argocd-cm health checks and the Application exactly as
// docs/gitops tells users (only `repoURL` replaced, as the file says). Every later change is a commit (scale, a
// restore, removals), announced as a push webhook announces it (the refresh annotation), except the one test that
// edits the cluster behind Git's back to show self-heal. After each scenario every managed resource is Synced: no
// permanent OutOfSync from server-defaulted fields or from anything the controller writes.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CreateBucketCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { CoreV1Api } from '@kubernetes/client-node';
import type { EtcdRestore } from '../../controller/etcdrestore/api.js';
import { buildApp } from '../../src/app.js';
import { readManifests } from '../env/dist-manifests.js';
import { type Environment, startEnvironment } from '../env/environment.js';
import {
  type Application,
  type ArgoCd,
  type ManagedResource,
  type SyncedOptions,
  startArgoCd,
  summary,
} from '../env/gitops/argocd.js';
import { type GitRepository, startGitServer } from '../env/gitops/git-server.js';
import { loseMembersWithData } from '../env/lose-data.js';
import { nodeNetwork } from '../env/nodes/layout.js';
import { waitFor } from '../env/wait.js';
import { minioClient } from '../integration/helpers/backup-cli.js';
import { backupNow, createS3Secret, restoreObjects } from '../integration/helpers/restore-kube.js';

const manifests = readManifests();
const example = manifests.find((m) => m.kind === 'EtcdCluster');
const namespace = example?.namespace ?? 'etcd-example';
const name = example?.name ?? 'example';
const EXAMPLE_FILE = 'dist/02-example.k8s.yaml';
const CRDS_FILE = 'dist/00-crds.k8s.yaml';
const RESTORE_FILE = 'dist/03-restore.yaml';

/** The example's file with the EtcdCluster's `spec.size` set to `size` (the only two-space `size:` line). */
function withSize(text: string, size: number): string {
  assert.match(text, /^ {2}size: \d+$/m, 'the example file has a spec.size line');
  return text.replace(/^ {2}size: \d+$/m, `  size: ${size}`);
}

/** The field manager of Argo CD's server-side apply (gitops-engine's default, which Argo CD keeps). */
const ARGOCD_FIELD_MANAGER = 'argocd-controller';

interface ManagedFieldsEntry {
  readonly manager?: string;
  readonly operation?: string;
  readonly time?: string;
}

interface Sample {
  readonly at: number;
  readonly sync?: string;
  readonly health?: string;
  readonly revision?: string;
}

describe('Argo CD (real application-controller and repo-server) syncs dist/ from Git on real nodes', () => {
  let env: Environment;
  let dir: string;
  let repo: GitRepository;
  let argo: ArgoCd;
  let app: string;
  let exampleText: string;

  const core = () => env.kubeConfig.makeApiClient(CoreV1Api);
  const objects = () => restoreObjects(env, namespace);
  const readCluster = () => objects().readCluster(name);
  const clusterExists = async () =>
    (await env.kubectl(['get', 'etcdcluster', name, '-n', namespace], { allowFailure: true })).code === 0;
  const pvcNames = async () =>
    (await core().listNamespacedPersistentVolumeClaim({ namespace })).items
      .map((pvc) => pvc.metadata?.name ?? '')
      .sort();
  /** The running member Pods' names, sorted (member names change across a restore and a scale). */
  const memberPods = async () =>
    (
      await core().listNamespacedPod({
        namespace,
        labelSelector: `app.kubernetes.io/instance=${name},app.kubernetes.io/component=member`,
      })
    ).items
      .filter((pod) => pod.status?.phase === 'Running' && !pod.metadata?.deletionTimestamp)
      .map((pod) => pod.metadata?.name ?? '')
      .sort();
  const aMember = async () => {
    const [first] = await memberPods();
    assert.ok(first, 'a running member Pod');
    return first;
  };
  /** `etcdctl <args>` in a running member, at its default endpoint; its stdout. */
  const etcdctl = async (...args: string[]) =>
    (await env.kubectl(['exec', '-n', namespace, await aMember(), '--', 'etcdctl', ...args])).stdout;
  const members = async () =>
    (
      JSON.parse(await etcdctl('member', 'list', '--write-out=json')) as {
        members: { ID: number | string; name: string }[];
      }
    ).members
      .map((m) => `${m.name}=${BigInt(m.ID).toString(16)}`)
      .sort();
  const readyAt = (size: number) => objects().readyAt(name, size, argoExited);
  const argoExited = () =>
    argo.processes.map((p) => (p.exitStatus() ? `${p.name} ${p.exitStatus()}` : '')).find(Boolean);

  /** Commits, announces the push, and waits until Argo CD synced that commit and the app reads `health`. */
  const commitAndSync = async (
    message: string,
    changes: Record<string, string | null>,
    options: SyncedOptions = {},
  ) => {
    const revision = await repo.commit(message, changes);
    await argo.refresh(app);
    return { revision, app: await argo.synced(app, revision, { timeoutMs: 300_000, ...options }) };
  };

  /**
   * Refreshes and waits until Argo CD has compared again (its refresh annotation is gone) and every managed resource
   * is Synced, except those `allowed` (resources left on purpose, e.g. by Prune=false); returns the Application.
   */
  const noDrift = async (allowed: (r: ManagedResource) => boolean = () => false): Promise<Application> => {
    await argo.refresh(app);
    let last: Application | undefined;
    try {
      return await waitFor(
        async () => {
          last = await argo.application(app);
          if (last.metadata.annotations?.['argocd.argoproj.io/refresh']) return undefined;
          const drifted = (last.status?.resources ?? []).filter((r) => r.status !== 'Synced' && !allowed(r));
          return drifted.length === 0 && (last.status?.resources?.length ?? 0) > 0 ? last : undefined;
        },
        { what: 'every managed resource Synced', timeoutMs: 60_000, intervalMs: 1_000, abortIf: argoExited },
      );
    } catch (error) {
      throw new Error(`${(error as Error).message}\n${JSON.stringify(summary(last), null, 1)}`);
    }
  };

  /** Samples the Application's sync and health once a second until `done()` holds; returns the samples. `done` is
   *  given the very Application read just sampled, so the last sample is the state that ended it. */
  const sampleUntil = async (
    done: (a: Application) => Promise<boolean>,
    timeoutMs = 300_000,
  ): Promise<Sample[]> => {
    const samples: Sample[] = [];
    const start = Date.now();
    for (;;) {
      const a = await argo.application(app);
      samples.push({
        at: Date.now() - start,
        sync: a.status?.sync?.status,
        health: a.status?.health?.status,
        revision: a.status?.sync?.revision,
      });
      if (await done(a)) return samples;
      const exited = argoExited();
      if (exited) throw new Error(exited);
      if (Date.now() - start > timeoutMs)
        throw new Error(`not done within ${timeoutMs} ms; samples: ${JSON.stringify(samples.slice(-20))}`);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  };
  const healthSequence = (samples: readonly Sample[]) =>
    samples.map((s) => s.health).filter((h, i, all) => i === 0 || h !== all[i - 1]);

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'etcd-gitops-argocd-'));
    env = await startEnvironment({ nodes: 3, minio: true });
    const git = await startGitServer(env, join(dir, 'git'));
    repo = await git.createRepository('etcd-gitops');
    argo = await startArgoCd(env, join(dir, 'argocd'));
    exampleText = await repo.read(EXAMPLE_FILE);
  });

  /** The example's Pods, PVCs, PDB and EtcdCluster status, and the operator's last log lines (for a failure). */
  async function exampleState(): Promise<string> {
    const operator = manifests.find((m) => m.kind === 'Deployment');
    const run = async (args: string[]) => {
      const out = await env.kubectl(args, { allowFailure: true });
      return `$ kubectl ${args.join(' ')}\n${out.stdout}${out.stderr}`;
    };
    return [
      await run(['get', 'pods,pvc,pdb,events', '-n', namespace, '-o', 'wide']),
      await run(['get', 'etcdcluster', name, '-n', namespace, '-o', 'jsonpath={.status}']),
      operator
        ? await run(['logs', '-n', operator.namespace ?? '', `deployment/${operator.name}`, '--tail=60'])
        : 'no operator Deployment in dist/',
    ].join('\n');
  }

  after(async () => {
    await env?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  test('GIVEN an empty cluster WHEN the docs Application is created THEN it reaches Synced and Healthy on its own, applying CRDs, operator and example cluster in wave order', async (t) => {
    const started = Date.now();
    app = await argo.createApplication(repo.url);
    const head = await repo.head();
    const synced = await argo.synced(app, head, { timeoutMs: 420_000 }).catch(async (error: unknown) => {
      // What Argo CD's health was judging: the example's objects, its status and the operator's last words.
      throw new Error(`${(error as Error).message}\n${await exampleState()}`);
    });
    const seconds = (Date.now() - started) / 1000;
    t.diagnostic(`first sync: Synced and Healthy ${seconds.toFixed(1)} s after the Application was created`);
    // Synced by Argo CD's automated sync, no one asking again.
    assert.equal(synced.status?.operationState?.operation?.initiatedBy?.automated, true);
    // Every object of dist/ is managed and Synced, nothing else.
    const managed = (synced.status?.resources ?? []).map((r) => `${r.kind}/${r.name}`).sort();
    assert.deepEqual(managed, manifests.map((m) => `${m.kind}/${m.name}`).sort());
    await noDrift();
    // Wave order: Argo CD applied every object of a wave before any object of the next (it waits for a wave to be
    // healthy, then 2 s, before the next), so the times of its server-side applies (managedFields, whole seconds)
    // are strictly ordered by wave. (The operator's Namespace, ServiceAccount and RBAC exist before: the
    // environment applies them for its controller identity; Argo CD applies them again in their wave.)
    const created = new Map<number, number[]>();
    for (const m of manifests) {
      const group = m.apiVersion.includes('/') ? m.apiVersion.split('/')[0] : '';
      const out = await env.kubectl([
        'get',
        group ? `${m.kind}.${group}` : m.kind,
        m.name,
        ...(m.namespace ? ['-n', m.namespace] : []),
        '--show-managed-fields',
        '-o',
        'json',
      ]);
      const fields = (JSON.parse(out.stdout) as { metadata: { managedFields?: ManagedFieldsEntry[] } })
        .metadata.managedFields;
      const applied = fields?.find((f) => f.manager === ARGOCD_FIELD_MANAGER && f.operation === 'Apply');
      assert.ok(applied?.time, `${m.kind}/${m.name}: no server-side apply by ${ARGOCD_FIELD_MANAGER}`);
      created.set(m.wave, [...(created.get(m.wave) ?? []), Date.parse(applied.time)]);
    }
    const waves = [...created.keys()].sort((a, b) => a - b);
    assert.deepEqual(waves, [-2, -1, 0]);
    for (let i = 1; i < waves.length; i++) {
      const before = Math.max(...(created.get(waves[i - 1]!) ?? []));
      const first = Math.min(...(created.get(waves[i]!) ?? []));
      assert.ok(
        before < first,
        `wave ${waves[i - 1]} ended at ${new Date(before).toISOString()}, wave ${waves[i]} began at ${new Date(first).toISOString()}`,
      );
    }
    await readyAt(3);
  });

  test('WHEN Git scales the cluster 3 → 5 → 3 THEN health goes Progressing then Healthy, never Degraded or Missing, and each commit is synced', async (t) => {
    for (const size of [5, 3]) {
      const revision = await repo.commit(`example: size ${size}`, {
        [EXAMPLE_FILE]: withSize(exampleText, size),
      });
      await argo.refresh(app);
      const samples = await sampleUntil(async (a) => {
        const status = (await readCluster()).status;
        return (
          a.status?.sync?.revision === revision &&
          a.status?.sync?.status === 'Synced' &&
          a.status?.health?.status === 'Healthy' &&
          status?.readyMembers === size &&
          status?.replicas === size
        );
      });
      const sequence = healthSequence(samples);
      t.diagnostic(`size ${size}: health ${sequence.join(' → ')} over ${samples.length} samples`);
      assert.ok(
        !samples.some((s) => s.health === 'Degraded' || s.health === 'Missing'),
        JSON.stringify(sequence),
      );
      assert.ok(sequence.includes('Progressing'), `health never Progressing: ${sequence.join(' → ')}`);
      assert.equal(sequence.at(-1), 'Healthy');
      // Once Argo CD synced the commit, sync stays Synced to the end.
      const firstAtRevision = samples.findIndex((s) => s.revision === revision && s.sync === 'Synced');
      assert.ok(firstAtRevision >= 0);
      assert.deepEqual(
        samples.slice(firstAtRevision).filter((s) => s.sync !== 'Synced'),
        [],
        'sync left Synced after the commit was synced',
      );
    }
    await noDrift();
  });

  test('WHEN a member Pod is deleted THEN the Application stays Synced, is never Degraded or Missing, and is Healthy once the member is back', async (t) => {
    const before = await members();
    const victim = (await memberPods())[1]!;
    const uid = (await core().readNamespacedPod({ namespace, name: victim })).metadata?.uid;
    await core().deleteNamespacedPod({ namespace, name: victim });
    const samples = await sampleUntil(async (a) => {
      const pod = await core()
        .readNamespacedPod({ namespace, name: victim })
        .catch(() => undefined);
      const back = pod?.metadata?.uid !== undefined && pod.metadata.uid !== uid;
      const status = (await readCluster()).status;
      const ready = status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
      return back && ready && status?.readyMembers === 3 && a.status?.health?.status === 'Healthy';
    });
    const sequence = healthSequence(samples);
    t.diagnostic(`member Pod deleted: health ${sequence.join(' → ')}`);
    assert.deepEqual(
      samples.filter((s) => s.sync !== 'Synced'),
      [],
      'sync left Synced while the member came back',
    );
    assert.ok(!samples.some((s) => s.health === 'Degraded' || s.health === 'Missing'), sequence.join(' → '));
    assert.equal(sequence.at(-1), 'Healthy');
    assert.deepEqual(await members(), before, 'the same members, with the same IDs');
    await noDrift();
  });

  test('WHEN an EtcdRestore is committed to Git after a majority is lost THEN it completes and the Application is Synced with no diff on any resource', async () => {
    // What a user of the example sets up beside Git: the credentials Secret, the bucket, and an S3 endpoint at the
    // address the example names (http://minio.etcd-example.svc:9000): a Service without selector in front of MinIO.
    const minio = env.minio!;
    await minioClient(minio).send(new CreateBucketCommand({ Bucket: 'etcd-backups' }));
    await createS3Secret(env, namespace, 'example-backup-s3', minio);
    const minioPort = Number(new URL(minio.podEndpoint).port);
    await env.kubectl(['apply', '-f', '-'], {
      input: [
        {
          apiVersion: 'v1',
          kind: 'Service',
          metadata: { name: 'minio', namespace },
          spec: { ports: [{ name: 's3', port: 9000, targetPort: minioPort }] },
        },
        {
          apiVersion: 'discovery.k8s.io/v1',
          kind: 'EndpointSlice',
          metadata: { name: 'minio-1', namespace, labels: { 'kubernetes.io/service-name': 'minio' } },
          addressType: 'IPv4',
          ports: [{ name: 's3', port: minioPort, protocol: 'TCP' }],
          endpoints: [{ addresses: [nodeNetwork.gateway] }],
        },
      ]
        .map((o) => `---\n${JSON.stringify(o)}\n`)
        .join(''),
    });
    const member = await aMember();
    const put = (key: string) => etcdctl('put', key, 'v');
    for (let i = 0; i < 5; i++) await put(`before/${i}`);
    await backupNow(env, namespace, `${name}-backup`, 'backup-1');
    const listed = await minioClient(minio).send(new ListObjectsV2Command({ Bucket: 'etcd-backups' }));
    const backupKey = (listed.Contents ?? []).map((o) => o.Key ?? '').find((k) => !k.endsWith('.part'));
    assert.ok(backupKey, `no backup in the bucket: ${JSON.stringify(listed.Contents)}`);
    for (let i = 0; i < 5; i++) await put(`after/${i}`);
    // A majority lost with its data.
    const others = (await memberPods()).filter((pod) => pod !== member);
    assert.equal(others.length, 2);
    await loseMembersWithData(core(), namespace, others, { force: true });
    await waitFor(
      async () =>
        (await readCluster()).status?.conditions?.find((c) => c.type === 'Available')?.status === 'False',
      { what: 'the cluster to report quorum lost', timeoutMs: 120_000, intervalMs: 1_000 },
    );
    const restore: EtcdRestore = {
      apiVersion: 'etcd.gitops.dev/v1alpha1',
      kind: 'EtcdRestore',
      metadata: { name: 'restore-1', namespace },
      spec: {
        clusterName: name,
        backup: {
          bucket: 'etcd-backups',
          key: backupKey,
          endpoint: 'http://minio.etcd-example.svc:9000',
          forcePathStyle: true,
          credentialsSecretName: 'example-backup-s3',
        },
      },
    } as EtcdRestore;
    const { app: synced } = await commitAndSync('restore example from backup-1', {
      [RESTORE_FILE]: `${JSON.stringify(restore, null, 2)}\n`,
    });
    const restored = await objects().readRestore('restore-1');
    assert.equal(restored.status?.phase, 'Completed', JSON.stringify(restored.status));
    assert.equal(synced.status?.health?.status, 'Healthy');
    await readyAt(3);
    const keys = await etcdctl('get', '--prefix', '--keys-only', '');
    const restoredKeys = keys.split('\n').filter(Boolean).sort();
    assert.deepEqual(
      restoredKeys,
      [0, 1, 2, 3, 4].map((i) => `before/${i}`),
    );
    const after = await noDrift();
    assert.equal(after.status?.sync?.status, 'Synced');
  });

  test('WHEN kubectl scales the cluster behind Git THEN Argo CD puts Git’s size back and the cluster converges to it with no member lost', async () => {
    const before = await members();
    const scaledAt = Date.now();
    await env.kubectl(['scale', 'etcdcluster', name, '-n', namespace, '--replicas=5']);
    assert.equal((await readCluster()).spec.size, 5, 'kubectl scale wrote spec.size');
    await waitFor(async () => (await readCluster()).spec.size === 3, {
      what: 'Argo CD to revert spec.size to 3',
      timeoutMs: 60_000,
      intervalMs: 500,
      abortIf: argoExited,
    });
    // Reverted by an automated sync Argo CD started after the scale (self-heal), not by anything else.
    const operation = (await argo.application(app)).status?.operationState;
    assert.equal(operation?.operation?.initiatedBy?.automated, true, JSON.stringify(operation));
    assert.ok(
      Date.parse(operation?.startedAt ?? '') >= Math.floor(scaledAt / 1000) * 1000,
      operation?.startedAt,
    );
    await readyAt(3);
    // The controller may have added a learner for size 5 before the revert; it removes it again.
    let now: string[] = [];
    await waitFor(
      async () => {
        now = await members();
        return JSON.stringify(now) === JSON.stringify(before);
      },
      { what: 'etcd back at the same three members', timeoutMs: 120_000, intervalMs: 1_000 },
    ).catch((error: Error) => {
      throw new Error(`${error.message}: ${now.join(', ')} (before: ${before.join(', ')})`);
    });
    await noDrift();
  });

  test('WHEN the CRD file leaves Git THEN nothing is deleted: the CRDs, the EtcdCluster and its volumes stay, and the app stays Synced', async (t) => {
    const uid = (await readCluster()).metadata.uid;
    const pvcs = await pvcNames();
    const crds = await repo.read(CRDS_FILE);
    const { app: synced } = await commitAndSync('remove the CRDs from Git', { [CRDS_FILE]: null });
    const crdEntries = (synced.status?.resources ?? []).filter((r) => r.kind === 'CustomResourceDefinition');
    t.diagnostic(`CRDs in the Application after their removal from Git: ${JSON.stringify(crdEntries)}`);
    for (const crd of manifests.filter((m) => m.kind === 'CustomResourceDefinition')) {
      assert.equal((await env.kubectl(['get', 'crd', crd.name], { allowFailure: true })).code, 0, crd.name);
    }
    assert.equal((await readCluster()).metadata.uid, uid);
    assert.deepEqual(await pvcNames(), pvcs);
    await readyAt(3);
    await noDrift();
    await commitAndSync('CRDs back in Git', { [CRDS_FILE]: crds });
    await noDrift();
  });

  test('WHEN the example leaves Git with automated prune THEN Argo CD prunes what holds no data, leaves the EtcdCluster, its namespace and every member volume (Prune=false), and shows those two as requiring pruning', async (t) => {
    const uid = (await readCluster()).metadata.uid;
    const pvcs = await pvcNames();
    assert.ok(pvcs.length >= 3, pvcs.join(', '));
    // The app stays OutOfSync by the two objects it must not prune; its health is the cluster's, which has just lost
    // its Services (pruned with the rest of the example).
    const { app: synced } = await commitAndSync(
      'remove the example cluster',
      { [EXAMPLE_FILE]: null, [RESTORE_FILE]: null },
      { sync: 'OutOfSync', health: null },
    );
    // Argo CD's resource list catches up with the prune a moment after the operation.
    let left = (synced.status?.resources ?? []).filter((r) => r.requiresPruning);
    await waitFor(
      async () => {
        left = ((await argo.application(app)).status?.resources ?? []).filter((r) => r.requiresPruning);
        return left.length === 2;
      },
      { what: 'only the EtcdCluster and its namespace left to prune', timeoutMs: 60_000, intervalMs: 1_000 },
    ).catch(() => undefined);
    t.diagnostic(
      `left for a person to prune: ${left.map((r) => `${r.kind}/${r.name} (${r.status})`).join(', ')}; app health ${synced.status?.health?.status}`,
    );
    assert.deepEqual(left.map((r) => `${r.kind}/${r.name}`).sort(), [
      `EtcdCluster/${name}`,
      `Namespace/${namespace}`,
    ]);
    // Pruned: what holds no data (the example's Services, for one).
    assert.equal(
      (await env.kubectl(['get', 'service', `${name}-client`, '-n', namespace], { allowFailure: true })).code,
      1,
    );
    assert.equal((await readCluster()).metadata.uid, uid);
    assert.deepEqual(await pvcNames(), pvcs);
    assert.equal((await env.kubectl(['get', 'namespace', namespace], { allowFailure: true })).code, 0);
  });

  test('WHEN the example with deletionProtection: false leaves Git THEN Argo CD deletes the EtcdCluster but no member volume, and the namespace stays', async () => {
    // The example as the app synthesizes it with the docs' opt-out (the only change: its sync options).
    const outdir = join(dir, 'synth-unprotected');
    buildApp(outdir, { deletionProtection: false }).synth();
    const unprotected = await readFile(join(outdir, '02-example.k8s.yaml'), 'utf8');
    assert.notEqual(unprotected, exampleText);
    await commitAndSync('example back, without deletion protection', { [EXAMPLE_FILE]: unprotected });
    await readyAt(3);
    await noDrift();
    const pvcs = await pvcNames();
    // Left OutOfSync by the namespace only (it stays protected); the EtcdCluster is pruned.
    await commitAndSync(
      'remove the unprotected example',
      { [EXAMPLE_FILE]: null },
      { sync: 'OutOfSync', health: null },
    );
    await waitFor(async () => !(await clusterExists()), {
      what: 'the EtcdCluster to be deleted',
      timeoutMs: 120_000,
      intervalMs: 1_000,
    });
    assert.deepEqual(await pvcNames(), pvcs, 'every member volume stays (whenDeleted: Retain, the default)');
    assert.equal((await env.kubectl(['get', 'namespace', namespace], { allowFailure: true })).code, 0);
  });
});
