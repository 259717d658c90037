// A layer: a directory packed as a reproducible tar (the layer's "diffID" is the sha256 of that tar),
// gzip-compressed (the digest is the sha256 of the compressed bytes) and stored in a content-addressed blob
// directory. Every entry is owned by root and writable by root only (a read-only root filesystem for uid 65532
// whatever the umask of the build), except the directories named in `directories`, packed with their own owner
// and mode (`/tmp` 1777, `/home/nonroot` owned by 65532).
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { chmod, mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { deterministicTar } from './tar-flags.js';

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

/** An empty directory packed with an owner and mode of its own. */
export interface LayerDirectory {
  /** Path inside the image, without a leading slash, e.g. `home/nonroot`. */
  path: string;
  /** Permission bits, e.g. `0o1777`. */
  mode: number;
  /** @default 0 */
  uid?: number;
  /** @default 0 */
  gid?: number;
}

export interface PackOptions {
  /** Empty directories created in the layer with their own owner and mode.
   *  @default - none: every entry is root's, `go-w` */
  directories?: LayerDirectory[];
}

export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return `sha256:${hash.digest('hex')}`;
}

/** GNU tar's arguments that append one directory entry (not its contents) with its own owner and mode to
 *  `archive`, run in the layer's root. Later `--owner`/`--group` win over the root-owned defaults. */
export function directoryEntryArgs(directory: LayerDirectory, archive: string): string[] {
  return [
    ...deterministicTar,
    `--owner=${directory.uid ?? 0}`,
    `--group=${directory.gid ?? 0}`,
    `--mode=${directory.mode.toString(8)}`,
    '--no-recursion',
    '-rf',
    archive,
    `./${normalPath(directory.path)}`,
  ];
}

function normalPath(path: string): string {
  const normal = path.replace(/^\/+|\/+$/g, '');
  if (normal === '' || normal.split('/').some((part) => part === '..' || part === '.')) {
    throw new Error(`a layer directory must be a plain path inside the image, got '${path}'`);
  }
  return normal;
}

async function createDirectories(root: string, directories: LayerDirectory[]): Promise<void> {
  for (const directory of directories) {
    const path = join(root, normalPath(directory.path));
    await mkdir(path, { recursive: true });
    const inside = await readdir(path);
    if (inside.length > 0) {
      throw new Error(
        `layer directory /${normalPath(directory.path)} must be empty (its own owner and mode are packed, not its contents), has ${inside.slice(0, 3).join(', ')}`,
      );
    }
  }
}

/** Packs `root` (its contents become the image's `/`) into a layer blob in `blobDir`. */
export async function packLayer(
  root: string,
  blobDir: string,
  description: string,
  options: PackOptions = {},
): Promise<Layer> {
  const directories = options.directories ?? [];
  await createDirectories(root, directories);
  // mkdtemp makes 0700 directories; the layer's `./` entry would make the image's `/` unreadable to non-root.
  await chmod(root, 0o755);
  await mkdir(blobDir, { recursive: true });
  const tmp = join(blobDir, `.layer-${process.pid}-${Date.now()}`);
  try {
    const excludes = directories.map((d) => `--exclude=./${normalPath(d.path)}`);
    await run('tar', [...deterministicTar, '--anchored', ...excludes, '-cf', `${tmp}.tar`, '-C', root, '.']);
    for (const directory of directories) {
      await run('tar', directoryEntryArgs(directory, `${tmp}.tar`), { cwd: root });
    }
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
