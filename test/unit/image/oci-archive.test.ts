// The OCI writer's documents: config, manifest, index and docker manifest agree with each other and with the
// layers, and the same inputs always give the same digests.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { type ImageSpec, imageDocuments, mediaTypes, ociArchitecture } from '../../../image/oci-archive.js';

const layer = (n: number) => ({
  digest: `sha256:${String(n).repeat(64)}`,
  diffId: `sha256:${String(n + 1).repeat(64)}`,
  size: 100 * n,
  description: `layer ${n}`,
});

const spec: ImageSpec = {
  tags: ['ghcr.io/etcd-gitops/etcd-gitops:0.1.0', 'registry.example.com/etcd-gitops:0.1.0'],
  layers: [layer(1), layer(3)],
  config: { user: '65532:65532', entrypoint: ['/app/bin/etcd-gitops'], exposedPorts: ['8080/tcp'] },
};

const sha = (text: string) => `sha256:${createHash('sha256').update(text).digest('hex')}`;

describe('imageDocuments', () => {
  test('GIVEN two layers WHEN documents are made THEN the config lists their diffIDs and the manifest their blobs, in order', () => {
    const docs = imageDocuments(spec, 'amd64');
    const config = JSON.parse(docs.config.content);
    assert.deepEqual(config.rootfs, { type: 'layers', diff_ids: [layer(1).diffId, layer(3).diffId] });
    assert.equal(config.architecture, 'amd64');
    assert.equal(config.os, 'linux');
    assert.equal(config.config.User, '65532:65532');
    assert.deepEqual(config.config.ExposedPorts, { '8080/tcp': {} });
    const manifest = JSON.parse(docs.manifest.content);
    assert.deepEqual(
      manifest.layers.map((l: { digest: string; size: number; mediaType: string }) => [
        l.digest,
        l.size,
        l.mediaType,
      ]),
      [
        [layer(1).digest, 100, mediaTypes.layer],
        [layer(3).digest, 300, mediaTypes.layer],
      ],
    );
    assert.equal(manifest.config.digest, sha(docs.config.content));
    assert.equal(docs.manifest.descriptor.digest, sha(docs.manifest.content));
  });

  test('GIVEN two tags WHEN documents are made THEN the index names each for containerd and the docker manifest tags both', () => {
    const docs = imageDocuments(spec, 'amd64');
    const index = JSON.parse(docs.index);
    assert.deepEqual(
      index.manifests.map((m: { digest: string; annotations: Record<string, string> }) => [
        m.digest,
        m.annotations['io.containerd.image.name'],
        m.annotations['org.opencontainers.image.ref.name'],
      ]),
      [
        [docs.manifest.descriptor.digest, spec.tags[0], '0.1.0'],
        [docs.manifest.descriptor.digest, spec.tags[1], '0.1.0'],
      ],
    );
    const [docker] = JSON.parse(docs.dockerManifest);
    assert.deepEqual(docker.RepoTags, spec.tags);
    assert.equal(docker.Config, `blobs/sha256/${docs.config.descriptor.digest.slice(7)}`);
    assert.deepEqual(docker.Layers, [`blobs/sha256/${'1'.repeat(64)}`, `blobs/sha256/${'3'.repeat(64)}`]);
  });

  test('GIVEN the same spec twice WHEN documents are made THEN the digests are the same (no timestamps)', () => {
    assert.equal(
      imageDocuments(spec).manifest.descriptor.digest,
      imageDocuments(spec).manifest.descriptor.digest,
    );
  });

  test('fails when an image has no tag', () => {
    assert.throws(() => imageDocuments({ ...spec, tags: [] }), /an image needs at least one tag/);
  });

  test('fails when the machine is neither x64 nor arm64: the message names the architecture', () => {
    assert.equal(ociArchitecture('x64'), 'amd64');
    assert.equal(ociArchitecture('arm64'), 'arm64');
    assert.throws(() => ociArchitecture('ppc64'), /cannot build images on architecture ppc64/);
  });
});
