// The Pod of a CreatePod action: a cluster bootstrapped from a backup gets `restore fetch` on its seed only,
// and only before the cluster ever had an id; the seed of an in-place restore gets it from the lock's source.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { EtcdCluster } from '../../../controller/etcdcluster/api.js';
import { podForAction } from '../../../controller/etcdcluster/pod-for-action.js';
import type { Action } from '../../../controller/etcdcluster/types.js';
import { operatorImage } from '../../../controller/restore/seed-init-container.js';

type CreatePod = Extract<Action, { kind: 'CreatePod' }>;

const backup = { bucket: 'backups', key: 'ns/main/20260101T000000Z-rev42.db', credentialsSecretName: 's3' };
const cluster = (over: Partial<EtcdCluster> = {}): EtcdCluster => ({
  apiVersion: 'etcd.gitops.dev/v1alpha1',
  kind: 'EtcdCluster',
  metadata: { name: 'main', namespace: 'ns', uid: 'u-1' },
  spec: { size: 3, version: '3.6.16', bootstrap: { backup } },
  ...over,
});
const seed: CreatePod = {
  kind: 'CreatePod',
  member: 'main-0',
  reason: 'seed',
  state: 'new',
  initialCluster: ['main-0'],
  token: 'main-u-1-abcdef',
};
const join: CreatePod = {
  kind: 'CreatePod',
  member: 'main-1',
  reason: 'join',
  state: 'existing',
  initialCluster: ['main-0', 'main-1'],
};

const image = 'registry.example/mirror/etcd-gitops:0.1.0';

describe('podForAction', () => {
  test('GIVEN spec.bootstrap.backup and no cluster id WHEN the seed Pod is made THEN restore fetch of the controller’s own image runs first with the seed’s name, peer URL and token', () => {
    const pod = podForAction(cluster(), seed, image);
    const init = pod.spec?.initContainers ?? [];
    assert.equal(init.length, 1);
    assert.equal(init[0]?.name, 'restore');
    assert.equal(init[0]?.image, image);
    assert.deepEqual(init[0]?.command, ['/app/bin/etcd-gitops']);
    assert.deepEqual(init[0]?.args?.slice(0, 2), ['restore', 'fetch']);
    for (const arg of [
      `--key=${backup.key}`,
      '--etcd-version=3.6.16',
      '--data-dir=/var/lib/etcd/data',
      '--name=main-0',
      '--initial-advertise-peer-urls=http://main-0.main-peer.ns.svc:2380',
      '--initial-cluster-token=main-u-1-abcdef',
    ]) {
      assert.ok(init[0]?.args?.includes(arg), `${arg} in ${init[0]?.args?.join(' ')}`);
    }
    assert.deepEqual(init[0]?.volumeMounts, [{ name: 'data', mountPath: '/var/lib/etcd' }]);
    assert.equal(pod.spec?.containers[0]?.name, 'etcd');
  });

  test('fails when a joining member would restore: a joiner never gets the init container', () => {
    assert.equal(podForAction(cluster(), join, image).spec?.initContainers, undefined);
  });

  test('fails when a seed recreated after the cluster had an id would restore again', () => {
    assert.equal(
      podForAction(cluster({ status: { clusterID: '42' } }), seed, image).spec?.initContainers,
      undefined,
    );
  });

  test('GIVEN an in-place restore holding the cluster WHEN its seed Pod (the lock’s token) is made THEN restore fetch reads the lock’s source, at the revision of the spec', () => {
    const verified = {
      bucket: 'restores',
      key: 'ns/main/20260102T000000Z-rev7.db',
      credentialsSecretName: 's3-r',
    };
    const restored = cluster({
      spec: { size: 3, version: '3.6.16' },
      status: {
        clusterID: '42',
        restore: {
          name: 'r1',
          uid: 'r',
          token: seed.token,
          source: { backup: verified },
          phase: 'Restoring',
        },
      },
    });
    const pod = podForAction(restored, seed, image);
    const init = pod.spec?.initContainers ?? [];
    assert.equal(init[0]?.name, 'restore');
    assert.ok(init[0]?.args?.includes(`--key=${verified.key}`), init[0]?.args?.join(' '));
    assert.deepEqual(init[0]?.envFrom, [{ secretRef: { name: 's3-r' } }]);
    assert.ok(pod.metadata?.annotations?.['etcd.gitops.dev/pod-revision']);
    // AND a joiner of the growing cluster is a plain member Pod
    assert.equal(podForAction(restored, join, image).spec?.initContainers, undefined);
  });

  test('GIVEN no spec.bootstrap WHEN the seed Pod is made THEN no init container', () => {
    const plain = cluster({ spec: { size: 3, version: '3.6.16' } });
    assert.equal(podForAction(plain, seed, image).spec?.initContainers, undefined);
  });

  test('GIVEN $ETCD_GITOPS_IMAGE WHEN the controller picks its image THEN it is used, else the package default', () => {
    assert.equal(operatorImage({ ETCD_GITOPS_IMAGE: image }), image);
    assert.match(operatorImage({}), /^ghcr\.io\/etcd-gitops\/etcd-gitops:/);
  });
});
