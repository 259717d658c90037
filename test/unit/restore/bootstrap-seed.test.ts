// The seed Pod of a cluster bootstrapped from a backup (`spec.bootstrap.backup`): the member Pod plus the
// `restore fetch` init container, for the seed only and only before the cluster ever had an id.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EtcdCluster } from '../../../controller/etcdcluster/api.js';
import { buildMemberPod, type MemberMoment } from '../../../controller/etcdcluster/member-pod.js';
import { type SeedMoment, withBootstrapRestore } from '../../../controller/restore/seed-init-container.js';

const backup = {
  bucket: 'backups',
  latestUnderPrefix: 'prod/main/',
  endpoint: 'http://minio.example:9000',
  forcePathStyle: true,
  credentialsSecretName: 's3',
};
const cluster = (over: Partial<EtcdCluster> = {}): EtcdCluster => ({
  apiVersion: 'etcd.gitops.dev/v1alpha1',
  kind: 'EtcdCluster',
  metadata: { name: 'main', namespace: 'ns', uid: 'u-1' },
  spec: { size: 3, version: '3.6.16', bootstrap: { backup } },
  ...over,
});
const seed: MemberMoment & SeedMoment = {
  member: 'main-0',
  reason: 'seed',
  state: 'new',
  initialCluster: ['main-0'],
  token: 'main-u-1-abc',
};
const peerURL = 'http://main-0.main-peer.ns.svc:2380';
const podOf = (c: EtcdCluster, moment = seed) =>
  withBootstrapRestore(c, buildMemberPod(c, moment), moment, {
    peerURL,
    image: 'ghcr.io/etcd-gitops/etcd-gitops:9.9.9',
  });

describe('withBootstrapRestore', () => {
  it('GIVEN spec.bootstrap.backup WHEN the seed Pod is made THEN restore fetch runs first, from that location, for the cluster version, seed name, peer URL and token', () => {
    const pod = podOf(cluster());
    const init = pod.spec?.initContainers?.[0];
    assert.equal(init?.name, 'restore');
    assert.equal(init?.image, 'ghcr.io/etcd-gitops/etcd-gitops:9.9.9');
    assert.deepEqual(init?.envFrom, [{ secretRef: { name: 's3' } }]);
    for (const arg of [
      '--bucket=backups',
      '--latest-under-prefix=prod/main/',
      '--s3-endpoint=http://minio.example:9000',
      '--force-path-style',
      '--etcd-version=3.6.16',
      '--name=main-0',
      `--initial-advertise-peer-urls=${peerURL}`,
      '--initial-cluster-token=main-u-1-abc',
    ]) {
      assert.ok(init?.args?.includes(arg), `${arg} in ${init?.args}`);
    }
    // AND the etcd container is the plain seed's
    assert.deepEqual(pod.spec?.containers, buildMemberPod(cluster(), seed).spec?.containers);
  });
  it('GIVEN the cluster already had an id WHEN the seed Pod is made again THEN it is a plain member Pod', () => {
    const c = cluster({ status: { clusterID: '1234' } });
    assert.deepEqual(podOf(c), buildMemberPod(c, seed));
  });
  it('GIVEN a joining member THEN no restore init container', () => {
    const join = { ...seed, member: 'main-1', reason: 'join', state: 'existing' as const };
    assert.equal(
      podOf(cluster(), join).spec?.initContainers?.some((c) => c.name === 'restore') ?? false,
      false,
    );
  });
  it('GIVEN no spec.bootstrap THEN the seed Pod is unchanged', () => {
    const c = cluster({ spec: { size: 3, version: '3.6.16' } });
    assert.deepEqual(podOf(c), buildMemberPod(c, seed));
  });
});
