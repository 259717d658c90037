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
    const [{ config: configBlob, manifest: manifestBlob }] = docs.platforms as [(typeof docs.platforms)[0]];
    const config = JSON.parse(configBlob.content);
    assert.deepEqual(config.rootfs, { type: 'layers', diff_ids: [layer(1).diffId, layer(3).diffId] });
    assert.equal(config.architecture, 'amd64');
    assert.equal(config.os, 'linux');
    assert.equal(config.config.User, '65532:65532');
    assert.deepEqual(config.config.ExposedPorts, { '8080/tcp': {} });
    const manifest = JSON.parse(manifestBlob.content);
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
    assert.equal(manifest.config.digest, sha(configBlob.content));
    assert.equal(manifestBlob.descriptor.digest, sha(manifestBlob.content));
    assert.equal(docs.target, manifestBlob, 'a single-platform image: the tags name its manifest');
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
        [docs.target.descriptor.digest, spec.tags[0], '0.1.0'],
        [docs.target.descriptor.digest, spec.tags[1], '0.1.0'],
      ],
    );
    const [docker] = JSON.parse(docs.dockerManifest);
    assert.deepEqual(docker.RepoTags, spec.tags);
    assert.equal(docker.Config, `blobs/sha256/${docs.platforms[0]?.config.descriptor.digest.slice(7)}`);
    assert.deepEqual(docker.Layers, [`blobs/sha256/${'1'.repeat(64)}`, `blobs/sha256/${'3'.repeat(64)}`]);
  });

  test('GIVEN the same spec twice WHEN documents are made THEN the digests are the same (no timestamps)', () => {
    assert.equal(
      imageDocuments(spec).target.descriptor.digest,
      imageDocuments(spec).target.descriptor.digest,
    );
  });

  test("GIVEN amd64 and arm64 platforms WHEN documents are made THEN the tags name an image index of one manifest per platform, and docker load gets this machine's", () => {
    const multi: ImageSpec = {
      tags: spec.tags,
      config: spec.config,
      platforms: [
        { architecture: 'amd64', layers: [layer(1), layer(3)] },
        { architecture: 'arm64', layers: [layer(5), layer(3)] },
      ],
    };
    const docs = imageDocuments(multi, 'arm64');
    const platformIndex = JSON.parse(docs.documents.at(-1)?.content ?? '{}');
    assert.equal(docs.target.descriptor.mediaType, mediaTypes.index);
    assert.equal(docs.target.descriptor.digest, sha(docs.target.content));
    assert.deepEqual(
      platformIndex.manifests.map((m: { digest: string; mediaType: string; platform: object }) => [
        m.mediaType,
        m.digest,
        m.platform,
      ]),
      docs.platforms.map((p) => [
        mediaTypes.manifest,
        p.manifest.descriptor.digest,
        { architecture: p.architecture, os: 'linux' },
      ]),
    );
    assert.deepEqual(
      docs.platforms.map((p) => JSON.parse(p.config.content).architecture),
      ['amd64', 'arm64'],
    );
    assert.deepEqual(
      JSON.parse(docs.index).manifests.map((m: { digest: string }) => m.digest),
      [docs.target.descriptor.digest, docs.target.descriptor.digest],
    );
    assert.deepEqual(
      docs.layers.map((l) => l.digest),
      [layer(1).digest, layer(3).digest, layer(5).digest],
      'every layer once',
    );
    assert.deepEqual(JSON.parse(docs.dockerManifest)[0].Layers, [
      `blobs/sha256/${'5'.repeat(64)}`,
      `blobs/sha256/${'3'.repeat(64)}`,
    ]);
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
