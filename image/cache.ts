// Where images and their parts are cached: `<cache>/images/` (archives, one file per image, which the test
// environment imports), `<cache>/image-build/` (layer blobs, layer and archive records, downloads). `<cache>` is
// `$ETCD_GITOPS_CACHE` or `~/.cache/etcd-gitops`. A layer is recorded under a key made of everything it is built
// from, so an unchanged input reuses its blob and a changed one builds a new layer beside the old.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cacheDir } from '../test/env/binaries.js';
import type { Layer } from './layer.js';

export const imagesDir = join(cacheDir, 'images');
export const buildDir = join(cacheDir, 'image-build');
export const blobDir = join(buildDir, 'blobs');

/** Part of every layer key: raise it when packing changes (owners, modes, tar flags), so no old layer is reused. */
const LAYER_FORMAT = 'f2';

/** A short hex hash of `parts` (each part delimited, so `('ab', 'c')` and `('a', 'bc')` differ). */
export function hashOf(...parts: string[]): string {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part).update('\0');
  return hash.digest('hex').slice(0, 24);
}

async function writeJson(path: string, value: unknown): Promise<void> {
  const part = `${path}.${process.pid}.part`;
  await writeFile(part, JSON.stringify(value));
  await rename(part, path);
}

/** The layer recorded under `key`, if its blob is still there; else builds it with `make` and records it. */
export async function cachedLayer(key: string, make: () => Promise<Layer>): Promise<Layer> {
  const records = join(buildDir, 'layers');
  const record = join(records, `${key}-${LAYER_FORMAT}.json`);
  if (existsSync(record)) {
    const layer = JSON.parse(await readFile(record, 'utf8')) as Layer;
    if (existsSync(join(blobDir, layer.digest.slice('sha256:'.length)))) return layer;
  }
  const layer = await make();
  await mkdir(records, { recursive: true });
  await writeJson(record, layer);
  return layer;
}

interface ArchiveRecord {
  digest: string;
  bytes: number;
  mtimeMs: number;
}

function archiveRecordPath(archive: string): string {
  return join(buildDir, 'archives', `${hashOf(archive)}.json`);
}

/** Whether `archive` is the one this cache wrote for manifest `digest` (same size and time since). */
export async function archiveIsCurrent(archive: string, digest: string): Promise<boolean> {
  const record = archiveRecordPath(archive);
  if (!existsSync(record) || !existsSync(archive)) return false;
  const recorded = JSON.parse(await readFile(record, 'utf8')) as ArchiveRecord;
  const { size, mtimeMs } = await stat(archive);
  return recorded.digest === digest && recorded.bytes === size && recorded.mtimeMs === mtimeMs;
}

/** Records that `archive` now holds the image whose manifest is `digest`. */
export async function recordArchive(archive: string, digest: string): Promise<void> {
  const { size, mtimeMs } = await stat(archive);
  await mkdir(join(buildDir, 'archives'), { recursive: true });
  await writeJson(archiveRecordPath(archive), { digest, bytes: size, mtimeMs } satisfies ArchiveRecord);
}
