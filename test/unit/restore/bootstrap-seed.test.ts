// The seed Pod that starts from a backup: the member Pod plus the `restore fetch` init container, for the seed only:
// the seed of an in-place restore (its token is the lock's) restores the lock's source; the seed of a cluster
// bootstrapped from a backup (`spec.bootstrap.backup`) restores that, only before the cluster ever had an id.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EtcdCluster } from '../../../controller/etcdcluster/api.js';
import { buildMemberPod, type MemberMoment } from '../../../controller/etcdcluster/member-pod.js';
import { type SeedMoment, withSeedRestore } from '../../../controller/restore/seed-init-container.js';

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
  withSeedRestore(c, buildMemberPod(c, moment), moment, {
    peerURL,
    image: 'ghcr.io/etcd-gitops/etcd-gitops:9.9.9',
  });

describe('withSeedRestore: spec.bootstrap.backup', () => {
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
  it("GIVEN a backup read with a web identity WHEN the seed Pod is made THEN the Pod runs as <cluster>-backup without the API token, restore fetch has the projected token and the SDK's environment, and the next member Pod is plain", () => {
    const webIdentity = {
      roleArn: 'arn:minio:iam:::role/abc',
      audience: 'minio',
      stsEndpoint: 'http://minio.example:9000',
    };
    const { credentialsSecretName: _, ...rest } = backup;
    const c = cluster({
      spec: { size: 3, version: '3.6.16', bootstrap: { backup: { ...rest, webIdentity } } },
    });
    const pod = podOf(c);
    assert.equal(pod.spec?.serviceAccountName, 'main-backup');
    assert.equal(pod.spec?.automountServiceAccountToken, false);
    const token = pod.spec?.volumes?.find((v) => v.name === 's3-token');
    assert.deepEqual(token?.projected?.sources, [
      { serviceAccountToken: { audience: 'minio', expirationSeconds: 3600, path: 'token' } },
    ]);
    const init = pod.spec?.initContainers?.[0];
    assert.equal(init?.envFrom, undefined);
    assert.deepEqual(init?.volumeMounts?.at(-1), {
      name: 's3-token',
      mountPath: '/var/run/secrets/etcd-gitops/s3-token',
      readOnly: true,
    });
    assert.deepEqual(
      init?.env?.map((e) => e.name),
      ['AWS_ROLE_ARN', 'AWS_WEB_IDENTITY_TOKEN_FILE', 'AWS_ROLE_SESSION_NAME', 'AWS_ENDPOINT_URL_STS'],
    );
    // The etcd container mounts no token.
    assert.ok(!pod.spec?.containers[0]?.volumeMounts?.some((m) => m.name === 's3-token'));
    const after = cluster({ ...c, status: { clusterID: '1234' } });
    assert.equal(podOf(after).spec?.serviceAccountName, undefined);
  });
  it('GIVEN no status.revisionFloor (a new cluster) THEN restore fetch gets no --revision-floor', () => {
    const init = podOf(cluster()).spec?.initContainers?.[0];
    assert.ok(!init?.args?.some((arg) => arg.startsWith('--revision-floor')), `${init?.args}`);
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
  it('GIVEN spec.bootstrap.backup written after a static bootstrap began THEN its seed Pods restore nothing (the path starts empty clusters only)', () => {
    const member = { ...seed, initialCluster: ['main-0', 'main-1', 'main-2'] };
    assert.deepEqual(podOf(cluster(), member), buildMemberPod(cluster(), member));
  });
  it('GIVEN no spec.bootstrap THEN the seed Pod is unchanged', () => {
    const c = cluster({ spec: { size: 3, version: '3.6.16' } });
    assert.deepEqual(podOf(c), buildMemberPod(c, seed));
  });
});

describe('withSeedRestore: the seed of an in-place restore', () => {
  const verified = {
    bucket: 'restores',
    key: 'prod/main/20250101T000000Z-rev42.db',
    endpoint: 'http://minio.other:9000',
    credentialsSecretName: 's3-restore',
  };
  const locked = (lock: Partial<NonNullable<NonNullable<EtcdCluster['status']>['restore']>> = {}) =>
    cluster({
      status: {
        clusterID: '1234',
        restore: {
          name: 'r1',
          uid: 'r-uid',
          token: 'main-u-1-abc',
          source: { backup: verified },
          phase: 'Restoring',
          ...lock,
        },
      },
    });
  it("GIVEN the lock's token WHEN the seed Pod is made THEN restore fetch reads the lock's source (its exact key and Secret), even after the cluster had an id and with spec.bootstrap.backup set", () => {
    const init = podOf(locked()).spec?.initContainers?.[0];
    assert.equal(init?.name, 'restore');
    assert.deepEqual(init?.envFrom, [{ secretRef: { name: 's3-restore' } }]);
    for (const arg of [
      '--bucket=restores',
      '--key=prod/main/20250101T000000Z-rev42.db',
      '--s3-endpoint=http://minio.other:9000',
      '--initial-cluster-token=main-u-1-abc',
      '--name=main-0',
    ]) {
      assert.ok(init?.args?.includes(arg), `${arg} in ${init?.args}`);
    }
    assert.equal(
      init?.args?.some((arg) => arg.startsWith('--latest-under-prefix')),
      false,
    );
  });
  it("GIVEN the cluster's status.revisionFloor THEN restore fetch gets it as --revision-floor (its bump counts from it)", () => {
    const c = locked();
    const floored = { ...c, status: { ...c.status, revisionFloor: '4000047646' } };
    assert.ok(podOf(floored).spec?.initContainers?.[0]?.args?.includes('--revision-floor=4000047646'));
  });
  it('GIVEN a seed with another token than the lock THEN it is a plain member Pod once the cluster had an id', () => {
    const c = locked({ token: 'another-token' });
    assert.deepEqual(podOf(c), buildMemberPod(c, seed));
  });
  it('fails when the restore seed would start without a source (an empty cluster)', () => {
    assert.throws(() => podOf(locked({ source: undefined })), /status\.restore has no source/);
  });
});

describe('withSeedRestore: the seed of a survivor restore (source.member)', () => {
  const survivorLocked = (tls?: EtcdCluster['spec']['tls']) =>
    cluster({
      spec: { size: 3, version: '3.6.16', ...(tls ? { tls } : {}) },
      status: {
        clusterID: '1234',
        restore: {
          name: 'r1',
          uid: 'r-uid',
          token: 'main-u-1-abc',
          source: { member: { name: 'main-2', id: '987654321' } },
          phase: 'Restoring',
        },
      },
    });

  it('GIVEN a plain-http cluster THEN restore from-member asks the survivor at its client URL, as its id, without any Secret', () => {
    const pod = podOf(survivorLocked());
    const init = pod.spec?.initContainers?.[0];
    assert.equal(init?.name, 'restore');
    assert.deepEqual(init?.args?.slice(0, 2), ['restore', 'from-member']);
    for (const arg of [
      '--member-url=http://main-2.main-peer.ns.svc:2379',
      '--member-id=987654321',
      '--etcd-version=3.6.16',
      '--name=main-0',
      `--initial-advertise-peer-urls=${peerURL}`,
      '--initial-cluster-token=main-u-1-abc',
    ]) {
      assert.ok(init?.args?.includes(arg), `${arg} in ${init?.args}`);
    }
    assert.equal(init?.envFrom, undefined);
    assert.equal(init?.image, 'ghcr.io/etcd-gitops/etcd-gitops:9.9.9');
    assert.deepEqual(pod.spec?.volumes, buildMemberPod(survivorLocked(), seed).spec?.volumes);
    const c = survivorLocked();
    const floored = { ...c, status: { ...c.status, revisionFloor: '77000000' } };
    assert.ok(podOf(floored).spec?.initContainers?.[0]?.args?.includes('--revision-floor=77000000'));
  });

  it('GIVEN client TLS THEN https, the client certificate Secret mounted read-only as the backup Jobs mount it, and its files as flags', () => {
    const tls = { client: { secretName: 'main-server-tls', clientSecretName: 'main-client-tls' } };
    const pod = podOf(survivorLocked(tls));
    const init = pod.spec?.initContainers?.[0];
    for (const arg of [
      '--member-url=https://main-2.main-peer.ns.svc:2379',
      '--cacert=/etc/etcd-gitops/tls/ca.crt',
      '--cert=/etc/etcd-gitops/tls/tls.crt',
      '--key=/etc/etcd-gitops/tls/tls.key',
    ]) {
      assert.ok(init?.args?.includes(arg), `${arg} in ${init?.args}`);
    }
    assert.deepEqual(
      init?.volumeMounts?.find((mount) => mount.mountPath === '/etc/etcd-gitops/tls'),
      { name: 'restore-client-tls', mountPath: '/etc/etcd-gitops/tls', readOnly: true },
    );
    assert.deepEqual(pod.spec?.volumes?.find((volume) => volume.name === 'restore-client-tls')?.secret, {
      secretName: 'main-client-tls',
      defaultMode: 0o440,
    });
  });
});
