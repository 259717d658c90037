// Node.js for our product image: the npm registry's `node-linux-<arch>` package (official Node.js builds,
// integrity-checked by npm), its binary at `/nodejs/bin/node` as distroless has it. The version is
// NODE_IMAGE_VERSION in test/env/versions.env, its one pin.
import { execFile } from 'node:child_process';
import { chmod, copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { versions } from '../test/env/binaries.js';
import { layerFrom } from './build-layer.js';
import { buildDir } from './cache.js';
import type { Layer } from './layer.js';

const run = promisify(execFile);

/** Where the image has Node.js. */
export const NODE_BINARY = '/nodejs/bin/node';

/** The pinned Node.js version of the image. */
export function nodeImageVersion(): string {
  const version = versions.NODE_IMAGE_VERSION;
  if (!version) throw new Error('test/env/versions.env has no NODE_IMAGE_VERSION (the Node.js of our image)');
  return version;
}

/** The npm package with the Node.js binary for `arch` (a `process.arch`). */
export function nodePackage(version: string, arch: string = process.arch): string {
  if (arch !== 'x64' && arch !== 'arm64') {
    throw new Error(`no Node.js package for architecture '${arch}': only x64 and arm64 are supported`);
  }
  return `node-linux-${arch}@${version}`;
}

/** Downloads `pkg` with `npm pack` and copies its binary and licence into `root`. */
async function unpackNode(pkg: string, root: string): Promise<void> {
  const download = await mkdtemp(join(buildDir, 'npm-'));
  try {
    const { stdout } = await run('npm', ['pack', '--silent', pkg, '--pack-destination', download], {
      maxBuffer: 1 << 24,
    });
    const tgz = join(download, stdout.trim().split('\n').pop() ?? '');
    await run('tar', ['-xzf', tgz, '-C', download, 'package/bin/node', 'package/LICENSE']);
    await mkdir(join(root, 'nodejs/bin'), { recursive: true });
    await copyFile(join(download, 'package/bin/node'), join(root, NODE_BINARY));
    await copyFile(join(download, 'package/LICENSE'), join(root, 'nodejs/LICENSE'));
    await chmod(join(root, NODE_BINARY), 0o755);
  } finally {
    await rm(download, { recursive: true, force: true });
  }
}

export function nodeLayer(): Promise<Layer> {
  const pkg = nodePackage(nodeImageVersion());
  return layerFrom(`node-${pkg.replace('@', '-')}`, `Node.js (npm ${pkg})`, (root) => unpackNode(pkg, root));
}
