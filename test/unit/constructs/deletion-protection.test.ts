// Argo CD and Flux never delete what holds data: the CRDs, EtcdClusters and the namespaces they create, unless the
// user opts out with `deletionProtection: false`.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { App, Chart } from 'cdk8s';
import { EtcdCluster, type EtcdClusterProps, EtcdCrds } from '../../../constructs/index.js';
import { distObjects } from '../gitops/dist-files.js';
import { clusterChart, type Manifest, only, synth, testChart } from './helpers.js';

const ARGO = 'argocd.argoproj.io/sync-options';
const FLUX = 'kustomize.toolkit.fluxcd.io/prune';

function protectedFromDeletion(object: Manifest): boolean {
  const options = String(object.metadata.annotations?.[ARGO] ?? '').split(',');
  return (
    options.includes('Prune=false') &&
    options.includes('Delete=false') &&
    object.metadata.annotations?.[FLUX] === 'disabled'
  );
}

function clusterObjects(props: Partial<EtcdClusterProps> = {}): Manifest[] {
  const chart = clusterChart('db');
  new EtcdCluster(chart, 'main', { version: '3.6.16', ...props });
  return synth(chart);
}

describe('deletion protection', () => {
  it('GIVEN the CRDs THEN neither Argo CD nor Flux ever prunes or deletes them', () => {
    const chart = testChart(null);
    new EtcdCrds(chart, 'crds');
    const crds = synth(chart);
    assert.equal(crds.length, 2);
    for (const crd of crds) assert.ok(protectedFromDeletion(crd), crd.metadata.name);
  });

  it('GIVEN a cluster by default THEN its EtcdCluster is protected and still skips dry-run; the objects without data are not', () => {
    const objects = clusterObjects();
    const resource = only(objects, 'EtcdCluster', 'main');
    assert.ok(protectedFromDeletion(resource));
    assert.match(resource.metadata.annotations[ARGO], /^SkipDryRunOnMissingResource=true,/);
    for (const object of objects.filter((o) => o.kind !== 'EtcdCluster')) {
      assert.equal(protectedFromDeletion(object), false, `${object.kind}/${object.metadata.name}`);
    }
  });

  it('GIVEN deletionProtection: false THEN Argo CD and Flux may prune the EtcdCluster', () => {
    const resource = only(clusterObjects({ deletionProtection: false }), 'EtcdCluster', 'main');
    assert.equal(resource.metadata.annotations[ARGO], 'SkipDryRunOnMissingResource=true');
    assert.equal(resource.metadata.annotations[FLUX], undefined);
  });

  it('GIVEN createNamespace THEN the cluster creates a protected, Pod Security restricted Namespace without a namespace field', () => {
    const namespace = only(clusterObjects({ createNamespace: true }), 'Namespace', 'db');
    assert.ok(protectedFromDeletion(namespace));
    assert.equal(namespace.metadata.namespace, undefined);
    assert.equal(namespace.metadata.labels['pod-security.kubernetes.io/enforce'], 'restricted');
  });

  it('GIVEN createNamespace and deletionProtection: false THEN the EtcdCluster is not protected but the Namespace, which holds the member volumes, still is', () => {
    const objects = clusterObjects({ createNamespace: true, deletionProtection: false });
    assert.ok(protectedFromDeletion(only(objects, 'Namespace', 'db')));
    assert.equal(protectedFromDeletion(only(objects, 'EtcdCluster', 'main')), false);
  });

  it('GIVEN dist/ THEN every CRD, EtcdCluster and Namespace of the example is protected, and the operator is not', () => {
    const objects = distObjects();
    const held = objects.filter(
      (o) =>
        o.kind === 'CustomResourceDefinition' ||
        o.kind === 'EtcdCluster' ||
        o.metadata.name === 'etcd-example',
    );
    assert.equal(held.length, 4);
    for (const object of held)
      assert.ok(protectedFromDeletion(object), `${object.kind}/${object.metadata.name}`);
    assert.equal(protectedFromDeletion(only(objects, 'Deployment', 'etcd-gitops-controller')), false);
  });

  it('fails when createNamespace has no namespace to create', () => {
    assert.throws(
      () => new EtcdCluster(clusterChart(null), 'main', { version: '3.6.16', createNamespace: true }),
      /^Error: 'createNamespace' needs a namespace to create: set 'namespace' or use a chart with one, got none$/,
    );
  });

  it('fails when two clusters create the same namespace, naming both', () => {
    const chart = clusterChart('db');
    new EtcdCluster(chart, 'a', { version: '3.6.16', createNamespace: true });
    new EtcdCluster(new Chart(App.of(chart), 'more', { namespace: 'db' }), 'b', {
      version: '3.6.16',
      createNamespace: true,
    });
    assert.throws(
      () => synth(chart),
      /\[more\/b\/Namespace\] Namespace 'db' is created twice, here and by 'test\/a\/Namespace': set 'createNamespace' on one cluster of the namespace only/,
    );
  });
});
