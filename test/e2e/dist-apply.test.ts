// dist/ (the committed cdk8s output) applies to a real API server: with kubectl in one shot once the
// CRDs and namespaces exist, and wave by wave on an empty cluster, as Argo CD syncs it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { distDir, type Manifest, readManifests, toYamlStream } from '../env/dist-manifests.js';
import { type Environment, startEnvironment } from '../env/environment.js';

const manifests = readManifests();
const count = (kind: string) => manifests.filter((m) => m.kind === kind).length;
const names = (items: Manifest[]) => items.map((m) => `${m.kind}/${m.name}`);

/** `kubectl get` of one object as JSON, or undefined when it does not exist. */
async function get(env: Environment, m: Manifest): Promise<unknown> {
  const group = m.apiVersion.includes('/') ? m.apiVersion.split('/')[0] : '';
  const resource = group ? `${m.kind}.${group}` : m.kind;
  const namespace = m.namespace ? ['-n', m.namespace] : [];
  const result = await env.kubectl([
    'get',
    resource,
    m.name,
    ...namespace,
    '-o',
    'json',
    '--ignore-not-found',
  ]);
  return result.stdout.trim() === '' ? undefined : JSON.parse(result.stdout);
}

test('GIVEN dist/ THEN it holds both CRDs, the operator Deployment and at least one EtcdCluster (so applying it proves something)', () => {
  assert.deepEqual(
    manifests
      .filter((m) => m.kind === 'CustomResourceDefinition')
      .map((m) => m.name)
      .sort(),
    ['etcdclusters.etcd.gitops.dev', 'etcdrestores.etcd.gitops.dev'],
  );
  assert.ok(
    manifests.some(
      (m) =>
        m.kind === 'Deployment' &&
        m.name === 'etcd-gitops-controller' &&
        m.namespace === 'etcd-gitops-system',
    ),
  );
  assert.ok(count('EtcdCluster') >= 1, `no EtcdCluster in ${distDir}`);
});

describe('kubectl apply --server-side -f dist/', () => {
  let env: Environment;
  before(async () => {
    env = await startEnvironment();
  });
  after(() => env?.stop());

  test('GIVEN an empty cluster WHEN the CRDs of dist/ are applied THEN both are Established', async () => {
    const crds = manifests.filter((m) => m.kind === 'CustomResourceDefinition');
    await env.kubectl(['apply', '--server-side', '-f', '-'], { input: toYamlStream(crds) });
    await env.kubectl([
      'wait',
      '--for=condition=Established',
      '--timeout=60s',
      ...crds.map((m) => `crd/${m.name}`),
    ]);
  });

  test('GIVEN the CRDs and namespaces exist WHEN applied with --dry-run=server THEN every object passes admission and nothing is persisted', async () => {
    await env.kubectl(['apply', '--server-side', '-f', '-'], {
      input: toYamlStream(manifests.filter((m) => m.kind === 'Namespace')),
    });
    const result = await env.kubectl(['apply', '--server-side', '--dry-run=server', '-f', distDir]);
    const lines = result.stdout.trim().split('\n');
    assert.equal(lines.length, manifests.length, result.stdout);
    assert.ok(
      lines.every((line) => line.endsWith('serverside-applied (server dry run)')),
      result.stdout,
    );
    assert.doesNotMatch(result.stderr, /would violate PodSecurity/);
    const clusters = await env.kubectl(['get', 'etcdclusters', '-A', '-o', 'name']);
    assert.equal(clusters.stdout.trim(), '', 'a dry run must not create EtcdClusters');
  });

  test('WHEN applied for real THEN it succeeds, every object exists, and Pod Security has nothing to warn about', async () => {
    const result = await env.kubectl(['apply', '--server-side', '-f', distDir]);
    const lines = result.stdout.trim().split('\n');
    assert.equal(lines.length, manifests.length, result.stdout);
    assert.ok(
      lines.every((line) => line.endsWith('serverside-applied')),
      result.stdout,
    );
    assert.doesNotMatch(result.stderr, /would violate PodSecurity/);
    const clusters = await env.kubectl(['get', 'etcdclusters', '-A', '-o', 'name']);
    assert.equal(clusters.stdout.trim().split('\n').length, count('EtcdCluster'));
    const missing = [];
    for (const m of manifests) if ((await get(env, m)) === undefined) missing.push(m);
    assert.deepEqual(names(missing), []);
  });

  test('GIVEN dist/ applied WHEN applied again THEN it succeeds unchanged (a GitOps resync)', async () => {
    const deployment = await env.kubectl([
      'get',
      'deployment',
      'etcd-gitops-controller',
      '-n',
      'etcd-gitops-system',
      '-o',
      'jsonpath={.metadata.generation}',
    ]);
    await env.kubectl(['apply', '--server-side', '-f', distDir]);
    const again = await env.kubectl([
      'get',
      'deployment',
      'etcd-gitops-controller',
      '-n',
      'etcd-gitops-system',
      '-o',
      'jsonpath={.metadata.generation}',
    ]);
    assert.equal(again.stdout, deployment.stdout);
  });
});

describe('dist/ synced wave by wave, as Argo CD does', () => {
  let env: Environment;
  before(async () => {
    env = await startEnvironment();
  });
  after(() => env?.stop());

  test('GIVEN an empty cluster WHEN applyDist() applies the sync waves in order THEN every object exists', async () => {
    const applied = await env.applyDist();
    assert.deepEqual(
      [...new Set(applied.map((m) => m.wave))],
      [...new Set(applied.map((m) => m.wave))].sort((a, b) => a - b),
    );
    assert.equal(applied[0]?.kind, 'CustomResourceDefinition');
    const missing = [];
    for (const m of applied) if ((await get(env, m)) === undefined) missing.push(m);
    assert.deepEqual(names(missing), []);
  });
});
