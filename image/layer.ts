// A layer: a directory packed as a reproducible tar (layer's "diffID" is the sha256 of that tar), gzip-compressed
// (the digest is the sha256 of the compressed bytes) and stored in a content-addressed blob directory.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { deterministicTar } from './oci-archive.js';

const run = promisify(execFile);

export interface Layer {
  /** `sha256:<hex>` of the compressed blob. */
  digest: string;
  /** `sha256:<hex>` of the uncompressed tar. */
  diffId: string;
  /** Compressed size in bytes. */
  size: number;
  /** What the layer holds (the image history). */
  description: string;
}

async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return `sha256:${hash.digest('hex')}`;
}

/** Packs `root` (its contents become the image's `/`) into a layer blob in `blobDir`. */
export async function packLayer(root: string, blobDir: string, description: string): Promise<Layer> {
  await mkdir(blobDir, { recursive: true });
  const tmp = join(blobDir, `.layer-${process.pid}-${Date.now()}`);
  try {
    await run('tar', [...deterministicTar, '-cf', `${tmp}.tar`, '-C', root, '.'], { maxBuffer: 1 << 26 });
    const diffId = await sha256File(`${tmp}.tar`);
    await run('gzip', ['-n', '-6', `${tmp}.tar`]);
    const digest = await sha256File(`${tmp}.tar.gz`);
    const { size } = await stat(`${tmp}.tar.gz`);
    await rename(`${tmp}.tar.gz`, join(blobDir, digest.slice('sha256:'.length)));
    return { digest, diffId, size, description };
  } finally {
    await rm(`${tmp}.tar`, { force: true });
    await rm(`${tmp}.tar.gz`, { force: true });
  }
}
