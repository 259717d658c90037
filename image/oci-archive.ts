// One tar that is both an OCI image layout (`oci-layout`, `index.json`, `blobs/sha256/...`) and a `docker save`
// archive (`manifest.json` pointing at the same blobs), so `docker load`, `podman load`, `ctr images import` and
// `skopeo copy oci-archive:`/`docker-archive:` all accept it. The layers are gzip-compressed tars already in the
// blob directory (layer.ts); the documents come from oci-documents.ts; GNU tar packs everything in name order
// with fixed times and owners, so the same inputs give the same bytes.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, link, mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { blobPath, type ImageDocuments, type ImageSpec, imageDocuments } from './oci-documents.js';
import { deterministicTar } from './tar-flags.js';

const run = promisify(execFile);

/** The OCI image layout version this writer produces. */
const OCI_LAYOUT = JSON.stringify({ imageLayoutVersion: '1.0.0' });

/** Puts a layer blob into the staging directory: a hard link when it can, else a copy. */
async function stageBlob(blobDir: string, stage: string, digest: string): Promise<void> {
  const source = join(blobDir, digest.slice('sha256:'.length));
  if (!existsSync(source))
    throw new Error(`layer blob ${digest} is missing from ${blobDir}: rebuild the layer`);
  const target = join(stage, blobPath(digest));
  await link(source, target).catch(() => copyFile(source, target));
}

async function stageImage(spec: ImageSpec, docs: ImageDocuments, blobDir: string, stage: string) {
  await mkdir(join(stage, 'blobs', 'sha256'), { recursive: true });
  for (const layer of new Set(spec.layers.map((l) => l.digest))) await stageBlob(blobDir, stage, layer);
  for (const document of [docs.config, docs.manifest]) {
    await writeFile(join(stage, blobPath(document.descriptor.digest)), document.content);
  }
  await writeFile(join(stage, 'oci-layout'), OCI_LAYOUT);
  await writeFile(join(stage, 'index.json'), docs.index);
  await writeFile(join(stage, 'manifest.json'), docs.dockerManifest);
}

/**
 * Writes the archive of `spec` to `out`, whose layer blobs are in `blobDir`: staged beside `out`, packed to
 * `<out>.part`, renamed over `out`, so a reader never sees half an archive. Returns the manifest's digest.
 */
export async function writeImageArchive(spec: ImageSpec, blobDir: string, out: string): Promise<string> {
  const docs = imageDocuments(spec);
  await mkdir(dirname(out), { recursive: true });
  const stage = await mkdtemp(join(dirname(out), '.stage-'));
  const part = `${out}.part`;
  try {
    await stageImage(spec, docs, blobDir, stage);
    await run('tar', [
      ...deterministicTar,
      '-cf',
      part,
      '-C',
      stage,
      'oci-layout',
      'index.json',
      'manifest.json',
      'blobs',
    ]);
    await rename(part, out);
    return docs.manifest.descriptor.digest;
  } finally {
    await rm(stage, { recursive: true, force: true });
    await rm(part, { force: true });
  }
}
