import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { containerArgv, podExecutable, resolveExecutable, resolveImage } from '../../env/agent/images.js';
import { etcdBinary, etcdVersions, repoRoot } from '../../env/binaries.js';

function image(reference: string) {
  const resolution = resolveImage(reference);
  if ('error' in resolution) throw new Error(resolution.error);
  return resolution.image;
}

describe('image table', () => {
  const v36 = etcdVersions['3.6'];

  it('maps the etcd images of a built version to that build', () => {
    for (const reference of [
      `gcr.io/etcd-development/etcd:v${v36}`,
      `quay.io/coreos/etcd:v${v36}`,
      `registry.k8s.io/etcd:${v36}-0`,
    ]) {
      const etcd = image(reference);
      assert.deepEqual(resolveExecutable(etcd, '/usr/local/bin/etcd'), [etcdBinary(v36, 'etcd')], reference);
      assert.deepEqual(resolveExecutable(etcd, 'etcdctl'), [etcdBinary(v36, 'etcdctl')], reference);
    }
  });

  it('runs the etcd image CMD when the container has neither command nor args, as the released image', () => {
    const etcd = image(`gcr.io/etcd-development/etcd:v${v36}`);
    assert.deepEqual(containerArgv(etcd, undefined, undefined), ['/usr/local/bin/etcd']);
    assert.deepEqual(containerArgv(etcd, ['/usr/local/bin/etcd'], ['--name=a']), [
      '/usr/local/bin/etcd',
      '--name=a',
    ]);
  });

  it('fails to resolve commands an etcd image does not hold', () => {
    assert.equal(resolveExecutable(image(`gcr.io/etcd-development/etcd:v${v36}`), '/bin/sh'), undefined);
  });

  it('maps our image to node running the compiled CLI from the repository bound read-only at /app/etcd-gitops, with args after the entrypoint', () => {
    const ours = image('ghcr.io/etcd-gitops/etcd-gitops:0.1.0');
    const argv = containerArgv(ours, undefined, ['controller']);
    assert.deepEqual(argv, ['/app/bin/etcd-gitops', 'controller']);
    assert.deepEqual(resolveExecutable(ours, '/app/bin/etcd-gitops'), [
      process.execPath,
      '/app/etcd-gitops/build/controller/cli.js',
    ]);
    assert.deepEqual(ours.mounts, [{ source: repoRoot, target: '/app/etcd-gitops', readOnly: true }]);
  });

  it('GIVEN our image THEN the pod-network preload is loaded through the bound repository, not a host path a Pod volume could hide', () => {
    const ours = image('ghcr.io/etcd-gitops/etcd-gitops:0.1.0');
    const argv = podExecutable(
      ours,
      [process.execPath, '/app/etcd-gitops/build/controller/cli.js'],
      '127.1.2.3',
    );
    assert.equal(
      argv[1],
      '--import=file:///app/etcd-gitops/build/test/env/agent/pod-network-preload.js?podIP=127.1.2.3',
    );
  });

  it('runs busybox commands from the host', () => {
    for (const reference of ['busybox', 'busybox:1.36', 'docker.io/library/busybox:1.36']) {
      assert.deepEqual(resolveExecutable(image(reference), 'sh'), ['sh']);
    }
  });

  it('fails when the image is unknown, naming it', () => {
    const resolution = resolveImage('nginx:1.27');
    assert.ok('error' in resolution);
    assert.match(resolution.error, /image "nginx:1\.27" is not in the node agent's image table/);
  });

  it('fails when an etcd version is not built, naming the image', () => {
    const resolution = resolveImage('gcr.io/etcd-development/etcd:v3.9.99');
    assert.ok('error' in resolution);
    assert.match(
      resolution.error,
      /etcd:v3\.9\.99" is known but not available: .*etcd-v3\.9\.99\/etcd is missing/,
    );
  });

  it('consults extra rules first', () => {
    const resolution = resolveImage('nginx:1.27', [
      (ref) =>
        ref === 'nginx:1.27'
          ? { entrypoint: ['nginx'], cmd: [], executables: {}, hostCommands: true }
          : undefined,
    ]);
    assert.ok('image' in resolution);
  });
});
