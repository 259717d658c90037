// A layer built in a fresh directory and cached under a key of its inputs (cache.ts).
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { blobDir, buildDir, cachedLayer, hashOf } from './cache.js';
import { type Layer, type PackOptions, packLayer, sha256File } from './layer.js';

/** The layer recorded under `key`, else the directory `fill(root)` makes, packed (its `root` is the image's `/`). */
export function layerFrom(
  key: string,
  description: string,
  fill: (root: string) => Promise<void>,
  options: PackOptions = {},
): Promise<Layer> {
  return cachedLayer(key, async () => {
    await mkdir(buildDir, { recursive: true });
    const root = await mkdtemp(join(buildDir, 'rootfs-'));
    try {
      await fill(root);
      return await packLayer(root, blobDir, description, options);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
}

/** A hash of the contents of `files` (in order): the key part of a layer made of local binaries. */
export async function contentKey(files: string[]): Promise<string> {
  const digests: string[] = [];
  for (const file of files) digests.push(await sha256File(file));
  return hashOf(...digests);
}
