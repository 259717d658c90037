// Our part of the product image under /app: the production dependencies (package.json, node_modules at the
// lockfile's versions) and the compiled code (`npm run build`: build/controller, build/constructs) with the
// launcher `/app/bin/etcd-gitops`. Dependencies change rarely, code often: two layers, each cached by its inputs.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cp, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from '../test/env/binaries.js';
import { layerFrom } from './build-layer.js';
import { hashOf } from './cache.js';
import type { Layer } from './layer.js';
import { NODE_BINARY } from './node-layer.js';

const run = promisify(execFile);

/** The image's working directory and the home of our code. */
export const APP_DIR = '/app';

/** The compiled directories the image runs (the controller imports the constructs' conventions). */
export const compiledDirs = ['controller', 'constructs'];

/**
 * The launcher: the kernel reads its first line and runs Node.js on it, so no shell is needed; `import()` works
 * whether Node.js loads it as a CommonJS or an ES module.
 */
export function launcherScript(cli = `${APP_DIR}/controller/cli.js`): string {
  return `#!${NODE_BINARY}\nimport(${JSON.stringify(cli)});\n`;
}

/** `/app/package.json` and `/app/node_modules`: our production dependencies at the lockfile's versions. */
export async function dependenciesLayer(): Promise<Layer> {
  const manifest = await readFile(join(repoRoot, 'package.json'), 'utf8');
  const lock = await readFile(join(repoRoot, 'package-lock.json'), 'utf8');
  const key = `deps-${hashOf(manifest, lock, process.platform, process.arch)}`;
  return layerFrom(key, 'production dependencies (npm ci --omit=dev, package-lock.json)', async (root) => {
    const app = join(root, APP_DIR);
    await mkdir(app, { recursive: true });
    await writeFile(join(app, 'package.json'), manifest);
    await writeFile(join(app, 'package-lock.json'), lock);
    // --ignore-scripts: nothing of ours needs an install script, and none runs on the build machine.
    await run(
      'npm',
      ['ci', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'],
      {
        cwd: app,
        maxBuffer: 1 << 26,
      },
    );
    await rm(join(app, 'package-lock.json'));
    await rm(join(app, 'node_modules/.package-lock.json'), { force: true });
  });
}

/** Every file under `dir` (relative, sorted) with its contents, hashed. */
async function treeHash(dir: string): Promise<string> {
  const files = (await readdir(dir, { recursive: true, withFileTypes: true }))
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
  if (files.length === 0) throw new Error(`${dir} is empty: run 'npm run build' first`);
  const hash = createHash('sha256');
  for (const file of files)
    hash
      .update(file)
      .update('\0')
      .update(await readFile(join(dir, file)));
  return hash.digest('hex');
}

/** Our compiled code (no declarations, no source maps) and the launcher at `entrypoint`. */
export async function codeLayer(entrypoint: string): Promise<Layer> {
  const built = compiledDirs.map((dir) => join(repoRoot, 'build', dir));
  const trees = await Promise.all(built.map((dir) => treeHash(dir).catch(() => missingBuild(dir))));
  const key = `code-${hashOf(...trees, entrypoint, launcherScript())}`;
  const description = `etcd-gitops (${compiledDirs.map((d) => `build/${d}`).join(', ')}, ${entrypoint})`;
  return layerFrom(key, description, async (root) => {
    for (const dir of built) {
      await cp(dir, join(root, APP_DIR, relative(join(repoRoot, 'build'), dir)), {
        recursive: true,
        filter: (source) => !source.endsWith('.d.ts') && !source.endsWith('.map'),
      });
    }
    await mkdir(join(root, dirname(entrypoint)), { recursive: true });
    await writeFile(join(root, entrypoint), launcherScript(), { mode: 0o755 });
  });
}

function missingBuild(dir: string): never {
  throw new Error(`${dir} is missing or empty: run 'npm run build' before building the product image`);
}
