// The archive: one tar that is an OCI layout and a docker-save archive at once, with every blob its documents
// name, byte-identical when written twice from the same layers.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type Layer, packLayer } from '../../../image/layer.js';
import { writeImageArchive } from '../../../image/oci-archive.js';
import type { ImageSpec } from '../../../image/oci-documents.js';

const temp = mkdtempSync(join(tmpdir(), 'image-archive-'));
after(() => rmSync(temp, { recursive: true, force: true }));
const blobs = join(temp, 'blobs');
let spec: ImageSpec;

before(async () => {
  const layers: Layer[] = [];
  for (const name of ['base', 'app']) {
    const root = join(temp, name);
    mkdirSync(join(root, name), { recursive: true });
    writeFileSync(join(root, name, 'file'), `${name}\n`);
    layers.push(await packLayer(root, blobs, name));
  }
  spec = { tags: ['registry.example.com/etcd-gitops:0.1.0'], layers, config: { cmd: ['/app/file'] } };
});

const sha = (bytes: Buffer) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

describe('writeImageArchive', () => {
  test('GIVEN two layers WHEN written twice THEN both archives are byte-identical and the digest is the manifest’s', async () => {
    // WHEN
    const first = join(temp, 'out1', 'image.tar');
    const second = join(temp, 'out2', 'image.tar');
    const digest = await writeImageArchive(spec, blobs, first);
    assert.equal(await writeImageArchive(spec, blobs, second), digest);
    // THEN
    assert.ok(readFileSync(first).equals(readFileSync(second)));
    const unpacked = join(temp, 'unpacked');
    mkdirSync(unpacked);
    execFileSync('tar', ['-xf', first, '-C', unpacked]);
    assert.equal(sha(readFileSync(join(unpacked, 'blobs/sha256', digest.slice(7)))), digest);
  });

  test('GIVEN an archive WHEN unpacked THEN the OCI index and docker manifest.json name blobs that are there, with their digests', () => {
    // GIVEN
    const archive = join(temp, 'out1', 'image.tar');
    const dir = mkdtempSync(join(temp, 'check-'));
    execFileSync('tar', ['-xf', archive, '-C', dir]);
    const read = (path: string) => readFileSync(join(dir, path));
    const blob = (digest: string) => read(`blobs/sha256/${digest.slice(7)}`);
    // THEN: the OCI side
    assert.deepEqual(JSON.parse(read('oci-layout').toString()), { imageLayoutVersion: '1.0.0' });
    const index = JSON.parse(read('index.json').toString());
    const manifest = JSON.parse(blob(index.manifests[0].digest).toString());
    assert.equal(index.manifests[0].annotations['io.containerd.image.name'], spec.tags[0]);
    for (const d of [manifest.config, ...manifest.layers]) assert.equal(sha(blob(d.digest)), d.digest);
    // THEN: the docker side points at the same blobs
    const [docker] = JSON.parse(read('manifest.json').toString());
    assert.deepEqual(docker.RepoTags, spec.tags);
    assert.equal(docker.Config, `blobs/sha256/${manifest.config.digest.slice(7)}`);
    assert.deepEqual(
      docker.Layers,
      manifest.layers.map((l: { digest: string }) => `blobs/sha256/${l.digest.slice(7)}`),
    );
    // THEN: fixed times and owners on the archive's own entries
    const listing = execFileSync('tar', ['-tvf', archive, '--numeric-owner'], { encoding: 'utf8' });
    for (const line of listing.trim().split('\n')) assert.match(line, / 0\/0 .* 1970-01-01 00:00 /);
  });

  test('fails when a layer blob is missing: the message names its digest and the blob directory', async () => {
    const missing = { ...spec.layers[0]!, digest: `sha256:${'0'.repeat(64)}` };
    await assert.rejects(
      writeImageArchive({ ...spec, layers: [missing] }, blobs, join(temp, 'out3', 'image.tar')),
      new RegExp(`layer blob sha256:${'0'.repeat(64)} is missing from ${blobs}`),
    );
  });
});
