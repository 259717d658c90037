// The sandbox image's only file: `/pause`, compiled static from image/pause.c with the machine's gcc.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from '../test/env/binaries.js';
import { layerFrom } from './build-layer.js';
import { hashOf } from './cache.js';
import type { Layer } from './layer.js';

const run = promisify(execFile);

/** The pause program's path in its image. */
export const PAUSE_BINARY = '/pause';

export const pauseCompileArgs = ['-static', '-O2', '-s', '-Wall', '-Werror'];

export async function pauseLayer(): Promise<Layer> {
  const source = join(repoRoot, 'image', 'pause.c');
  const key = `pause-${hashOf(await readFile(source, 'utf8'), ...pauseCompileArgs)}`;
  return layerFrom(key, 'pause (image/pause.c, gcc -static)', async (root) => {
    await run('gcc', [...pauseCompileArgs, '-o', join(root, PAUSE_BINARY), source]).catch((error: Error) => {
      throw new Error(
        `gcc could not compile ${source} (apt-get install gcc libc6-dev): ${error.message.trim()}`,
      );
    });
  });
}
