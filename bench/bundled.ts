// The bench's own Node.js programs run as ours ships: bundled by image/bundle.ts's function with its options (etcd3
// left in node_modules, as in the image). A floor beside ours then loads its packages the way ours does, so what it
// measures beside ours is the work, not the way the modules were loaded.
import { mkdirSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { bundleController } from '../image/bundle.js';
import { repoRoot } from '../test/env/binaries.js';

/** Where the bench's bundles are written, one directory per bundle. */
const BENCH_BUNDLES_DIR = join(repoRoot, 'build', 'bench-bundled');

/**
 * Bundles the compiled ES module `entry` (a path under build/) into its own directory of BENCH_BUNDLES_DIR, named
 * after the entry's file, and returns the bundle's entry file.
 */
export async function bundled(entry: string): Promise<string> {
  const outdir = join(BENCH_BUNDLES_DIR, basename(entry, '.js'));
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(outdir, { recursive: true });
  await bundleController(entry, outdir);
  return join(outdir, basename(entry));
}
