import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EtcdCluster, KubeEtcdCluster, KubeEtcdRestore } from '../../../constructs/index.js';
import { clusterChart, only, synth, testChart } from './helpers.js';

const backup = { bucket: 'etcd-backups', latestUnderPrefix: 'etcd-test/main/', credentialsSecretName: 's3' };

describe('typed custom resources', () => {
  it('GIVEN an EtcdRestore WHEN synthesized THEN it is a v1alpha1 EtcdRestore in the clusters wave, skipped in dry-run until its CRD exists', () => {
    const chart = testChart();
    new KubeEtcdRestore(chart, 'restore', {
      metadata: { name: 'restore-1' },
      spec: { clusterName: 'main', backup },
    });
    const restore = only(synth(chart), 'EtcdRestore', 'restore-1');
    assert.equal(restore.apiVersion, 'etcd.gitops.dev/v1alpha1');
    assert.deepEqual(restore.spec, { clusterName: 'main', backup });
    assert.equal(restore.metadata.annotations['argocd.argoproj.io/sync-wave'], '0');
    assert.equal(
      restore.metadata.annotations['argocd.argoproj.io/sync-options'],
      'SkipDryRunOnMissingResource=true',
    );
  });

  it("GIVEN an EtcdRestore THEN it carries its cluster's labels (component restore), and the user's labels win", () => {
    const chart = testChart();
    new KubeEtcdRestore(chart, 'restore', {
      metadata: { name: 'restore-1', labels: { team: 'db', 'app.kubernetes.io/part-of': 'payments' } },
      spec: { clusterName: 'main', backup },
    });
    assert.deepEqual(only(synth(chart), 'EtcdRestore', 'restore-1').metadata.labels, {
      'app.kubernetes.io/name': 'etcd',
      'app.kubernetes.io/instance': 'main',
      'app.kubernetes.io/component': 'restore',
      'app.kubernetes.io/managed-by': 'etcd-gitops',
      'app.kubernetes.io/part-of': 'payments',
      team: 'db',
    });
  });

  it('GIVEN spec.survivor THEN it is synthesized as given; both or neither source, or a survivor with both or neither of member and newest, is refused naming the field', () => {
    const chart = testChart();
    new KubeEtcdRestore(chart, 'newest', {
      metadata: { name: 'r-newest' },
      spec: { clusterName: 'main', survivor: { newest: true } },
    });
    new KubeEtcdRestore(chart, 'named', {
      metadata: { name: 'r-named' },
      spec: { clusterName: 'main', survivor: { member: 'main-2' } },
    });
    const objects = synth(chart);
    assert.deepEqual(only(objects, 'EtcdRestore', 'r-newest').spec, {
      clusterName: 'main',
      survivor: { newest: true },
    });
    assert.deepEqual(only(objects, 'EtcdRestore', 'r-named').spec.survivor, { member: 'main-2' });
    const refused = (spec: object, pattern: RegExp) =>
      assert.throws(
        () => new KubeEtcdRestore(testChart(), 'r', { spec: { clusterName: 'main', ...spec } }),
        pattern,
      );
    refused({}, /exactly one of 'spec.backup' .* and 'spec.survivor' .*, got neither/);
    refused({ backup, survivor: { newest: true } }, /exactly one of 'spec.backup' .* got both/);
    refused({ survivor: {} }, /'spec.survivor' takes exactly one of member .* and newest: true, got \{\}/);
    refused({ survivor: { member: 'main-2', newest: true } }, /'spec.survivor' takes exactly one of member/);
    refused({ survivor: { member: 'Main_2' } }, /spec\.survivor\.member/);
  });

  it('GIVEN a KubeEtcdCluster THEN its manifest carries the group, version and kind', () => {
    assert.deepEqual(KubeEtcdCluster.manifest({ metadata: { name: 'x' }, spec: { version: '3.6.16' } }), {
      apiVersion: 'etcd.gitops.dev/v1alpha1',
      kind: 'EtcdCluster',
      metadata: { name: 'x' },
      spec: { version: '3.6.16' },
    });
  });

  it('fails when an EtcdRestore names neither a key nor a prefix', () => {
    const chart = testChart();
    assert.throws(
      () =>
        new KubeEtcdRestore(chart, 'r', {
          spec: { clusterName: 'main', backup: { bucket: 'etcd-backups', credentialsSecretName: 's3' } },
        }),
      /^Error: 'spec.backup' must set exactly one of 'key' .* got neither$/,
    );
  });

  it('fails when an EtcdRestore names an invalid bucket', () => {
    assert.throws(
      () =>
        new KubeEtcdRestore(testChart(), 'r', {
          spec: { clusterName: 'main', backup: { ...backup, bucket: 'a' } },
        }),
      /^Error: 'spec.backup.bucket' must be an S3 bucket name/,
    );
  });
  it('fails when an EtcdRestore names a cluster the app does not hold in a namespace where it holds others (a misspelt name), naming them', () => {
    const chart = clusterChart('db');
    new EtcdCluster(chart, 'registry-etcd', { version: '3.6.16' });
    new KubeEtcdRestore(chart, 'restore', {
      metadata: { name: 'restore-1' },
      spec: { clusterName: 'registry-etc', backup },
    });
    assert.throws(
      () => synth(chart),
      /'spec.clusterName' is 'registry-etc', but this app's clusters in namespace 'db' are 'registry-etcd': name one of them/,
    );
  });

  it('GIVEN an EtcdRestore of its own cluster, or in a namespace where the app holds no cluster THEN synth passes', () => {
    const chart = clusterChart('db');
    new EtcdCluster(chart, 'main', { version: '3.6.16' });
    new KubeEtcdRestore(chart, 'ours', {
      metadata: { name: 'r-ours' },
      spec: { clusterName: 'main', backup },
    });
    new KubeEtcdRestore(chart, 'elsewhere', {
      metadata: { name: 'r-elsewhere', namespace: 'other-team' },
      spec: { clusterName: 'theirs', backup },
    });
    assert.equal(synth(chart).filter((o) => o.kind === 'EtcdRestore').length, 2);
  });
});
