// The pod revision (docs/design/rolling-update.md, "The pod revision"): one per spec, changed by every field the
// member Pod builder writes, not by a member's moment, the seed's init container or key order.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ANNOTATION_POD_REVISION } from '../../../constructs/conventions/index.js';
import type { EtcdCluster } from '../../../controller/etcdcluster/api.js';
import { podForAction } from '../../../controller/etcdcluster/pod-for-action.js';
import { canonicalJson, podRevision, REVISION_LENGTH } from '../../../controller/etcdcluster/revision.js';

function etcdCluster(spec: Partial<EtcdCluster['spec']> = {}): EtcdCluster {
  return {
    apiVersion: 'etcd.gitops.dev/v1alpha1',
    kind: 'EtcdCluster',
    metadata: { name: 'demo', namespace: 'ns', uid: 'uid-1', generation: 1 },
    spec: { size: 3, version: '3.6.16', ...spec },
  };
}

const base = podRevision(etcdCluster());

describe('podRevision', () => {
  it('GIVEN one spec THEN one revision of 10 hex digits, the same for every call', () => {
    assert.match(base, new RegExp(`^[0-9a-f]{${REVISION_LENGTH}}$`));
    assert.equal(podRevision(etcdCluster()), base);
  });

  const changes: [string, Partial<EtcdCluster['spec']>][] = [
    ['version', { version: '3.6.15' }],
    ['image', { image: 'registry.local/etcd:3.6.16-patched' }],
    ['resources', { resources: { requests: { cpu: '200m', memory: '256Mi' } } }],
    ['podTemplate annotations', { podTemplate: { annotations: { team: 'a' } } }],
    ['podTemplate labels', { podTemplate: { labels: { team: 'a' } } }],
    ['podTemplate nodeSelector', { podTemplate: { nodeSelector: { disk: 'ssd' } } }],
    ['podTemplate priorityClassName', { podTemplate: { priorityClassName: 'high' } }],
    ['extraFlags', { extraFlags: { 'snapshot-count': '50000' } }],
    ['autoCompaction', { autoCompaction: { mode: 'periodic', retention: '30m' } }],
    ['quotaBackendBytes', { quotaBackendBytes: '512Mi' }],
    ['storage.ephemeral', { storage: { ephemeral: true } }],
  ];
  for (const [field, spec] of changes) {
    it(`GIVEN spec.${field} changed THEN the revision changes`, () => {
      assert.notEqual(podRevision(etcdCluster(spec)), base);
    });
  }

  it('GIVEN fields the Pod does not carry (size, paused, backups) THEN the revision stays', () => {
    assert.equal(podRevision(etcdCluster({ size: 5, paused: true, allowEvenSize: false })), base);
  });

  it('GIVEN the same spec written in another key order THEN the revision stays', () => {
    const a = etcdCluster({
      resources: { requests: { cpu: '1', memory: '1Gi' } },
      extraFlags: { a: '1', b: '2' },
    });
    const b = etcdCluster({
      extraFlags: { b: '2', a: '1' },
      resources: { requests: { memory: '1Gi', cpu: '1' } },
    });
    assert.equal(podRevision(a), podRevision(b));
    assert.equal(canonicalJson({ b: 1, a: [{ d: 2, c: undefined }] }), '{"a":[{"d":2}],"b":1}');
  });

  it('GIVEN Pods of different moments and members THEN each carries the one revision of the spec', () => {
    const cluster = etcdCluster();
    const seed = podForAction(
      cluster,
      {
        kind: 'CreatePod',
        member: 'demo-0',
        reason: 'seed',
        state: 'new',
        initialCluster: ['demo-0'],
        token: 't',
      },
      'img',
    );
    const joiner = podForAction(
      cluster,
      {
        kind: 'CreatePod',
        member: 'demo-2',
        reason: 'join',
        state: 'existing',
        initialCluster: ['demo-0', 'demo-1', 'demo-2'],
      },
      'img',
    );
    assert.equal(seed.metadata?.annotations?.[ANNOTATION_POD_REVISION], base);
    assert.equal(joiner.metadata?.annotations?.[ANNOTATION_POD_REVISION], base);
  });

  it('GIVEN a seed bootstrapped from a backup THEN its restore init container does not change the revision', () => {
    const backup = { bucket: 'b', key: 'k', credentialsSecretName: 's', endpoint: 'http://minio:9000' };
    const cluster = etcdCluster({ bootstrap: { backup } });
    const seed = podForAction(
      cluster,
      {
        kind: 'CreatePod',
        member: 'demo-0',
        reason: 'seed',
        state: 'new',
        initialCluster: ['demo-0'],
        token: 't',
      },
      'img',
    );
    assert.equal(seed.spec?.initContainers?.length, 1, 'the seed restores first');
    assert.equal(seed.metadata?.annotations?.[ANNOTATION_POD_REVISION], podRevision(cluster));
    assert.equal(podRevision(cluster), base, 'bootstrap is not part of the member Pod');
  });
});
