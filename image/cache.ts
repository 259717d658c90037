// Where images and their parts are cached: `<cache>/images/` (archives, one file per image, which the test
// environment imports), `<cache>/image-build/` (blobs, layer records, downloads).
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cacheDir } from '../test/env/binaries.js';
import type { Layer } from './layer.js';

export const imagesDir = join(cacheDir, 'images');
export const buildDir = join(cacheDir, 'image-build');
export const blobDir = join(buildDir, 'blobs');

export function hashOf(...parts: string[]): string {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part).update('\0');
  return hash.digest('hex').slice(0, 24);
}

/** The layer recorded under `key`, if its blob is still there; else builds it with `make` and records it. */
export async function cachedLayer(key: string, make: () => Promise<Layer>): Promise<Layer> {
  const record = join(buildDir, 'layers', `${key}.json`);
  if (existsSync(record)) {
    const layer = JSON.parse(await readFile(record, 'utf8')) as Layer;
    if (existsSync(join(blobDir, layer.digest.slice('sha256:'.length)))) return layer;
  }
  const layer = await make();
  await mkdir(join(buildDir, 'layers'), { recursive: true });
  await writeFile(record, JSON.stringify(layer));
  return layer;
}
