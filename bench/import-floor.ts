// The memory floor of a controller written on the packages ours must use: a Node.js process that only imports them
// (with the heap cap the Deployment gives ours and the V8 flags the controller sets), collects its garbage and
// idles, measured by its resident set. The scale bench sets it beside the controller's own RSS at rest: what is left
// above it is ours. Ours ships bundled (image/bundle.ts), so the floor is measured the same way: a module that imports
// the whole of each package, bundled by the same function with the same options; the packages imported from
// node_modules as they are, the floor before the bundle, is measured beside it. Each process runs on the Node.js binary
// the controller runs on in the same bench (the scale bench: the image's).
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { repoRoot } from '../test/env/binaries.js';
import { bundled } from './bundled.js';
import { median } from './stats.js';

const run = promisify(execFile);
/** The shared /proc parser, imported last by both the bare and the measured process (the same few KiB in each). */
const procStatusModule = new URL('./proc-status.js', import.meta.url).href;

/** The packages the controller loads at rest: the Kubernetes client and etcd's (the AWS SDK loads on first use). */
export const FLOOR_PACKAGES = ['@kubernetes/client-node', 'etcd3'] as const;

/** Idle after the imports and a full collection, before the resident set is read. */
const IDLE_MS = 3_000;

interface Resident {
  /** VmRSS, MiB. */
  readonly rss: number;
  /** RssFile: the part mapped from files (the node binary), MiB. */
  readonly file: number;
}

/** VmRSS and its file-mapped part in MiB of one process on `node` that imports `modules`, collects garbage and
 *  idles. */
async function rssAfterImport(
  node: string,
  modules: readonly string[],
  nodeOptions: string,
  v8Flags: readonly string[],
): Promise<Resident> {
  const script = [
    ...modules.map((module) => `await import(${JSON.stringify(module)});`),
    'globalThis.gc();',
    `await new Promise((resolve) => setTimeout(resolve, ${IDLE_MS}));`,
    `const { processMiB } = await import(${JSON.stringify(procStatusModule)});`,
    "process.stdout.write(JSON.stringify({ rss: processMiB('self', 'VmRSS'), file: processMiB('self', 'RssFile') }));",
  ].join('\n');
  const { stdout } = await run(node, [...v8Flags, '--expose-gc', '--input-type=module', '--eval', script], {
    cwd: repoRoot,
    env: { ...process.env, NODE_OPTIONS: nodeOptions },
  });
  return JSON.parse(stdout) as Resident;
}

/**
 * Bundles a module that imports every export of `FLOOR_PACKAGES` and keeps them reachable (nothing tree-shaken
 * away), as ours is bundled (bundled.ts); returns the bundle's entry as a URL.
 */
async function bundledFloorEntry(): Promise<string> {
  const dir = join(repoRoot, 'build', 'bench', 'generated');
  mkdirSync(dir, { recursive: true });
  const entry = join(dir, 'import-floor-entry.js');
  writeFileSync(
    entry,
    [
      ...FLOOR_PACKAGES.map((name, i) => `import * as package${i} from ${JSON.stringify(name)};`),
      `globalThis.floorPackages = [${FLOOR_PACKAGES.map((_, i) => `package${i}`).join(', ')}];`,
    ].join('\n'),
  );
  return pathToFileURL(await bundled(entry)).href;
}

export interface ImportFloor {
  readonly runs: number;
  /** `node` importing nothing. */
  readonly bareMiB: number;
  /** `node` importing `packages` bundled as ours is (image/bundle.ts). */
  readonly packagesMiB: number;
  /** Of `packagesMiB`, the part mapped from files (RssFile: the node binary). Absent before 2026-12-05. */
  readonly packagesFileMiB?: number;
  /** `node` importing `packages` from node_modules, unbundled. Absent in results from before the bundle. */
  readonly unbundledPackagesMiB?: number;
  readonly packages: readonly string[];
  readonly nodeOptions: string;
  /** V8 flags on both processes' command line (the controller's, controller/runtime/v8-flags.ts). */
  readonly v8Flags?: readonly string[];
  /** The Node.js version the processes ran on. Absent before 2026-12-05 (the bench's own, Node.js 20). */
  readonly nodeVersion?: string;
}

/**
 * Medians of `runs` processes each on `node`: a bare one, one that imports `FLOOR_PACKAGES` bundled as ours, and one
 * that imports them from node_modules.
 */
export async function importFloor(
  nodeOptions: string,
  v8Flags: readonly string[],
  node: { readonly path: string; readonly version: string },
  runs = 3,
): Promise<ImportFloor> {
  const bundled = await bundledFloorEntry();
  const bare: Resident[] = [];
  const packages: Resident[] = [];
  const unbundled: Resident[] = [];
  for (let i = 0; i < runs; i += 1) {
    bare.push(await rssAfterImport(node.path, [], nodeOptions, v8Flags));
    packages.push(await rssAfterImport(node.path, [bundled], nodeOptions, v8Flags));
    unbundled.push(await rssAfterImport(node.path, FLOOR_PACKAGES, nodeOptions, v8Flags));
  }
  const rss = (of: readonly Resident[]) => median(of.map((resident) => resident.rss));
  return {
    runs,
    bareMiB: rss(bare),
    packagesMiB: rss(packages),
    packagesFileMiB: median(packages.map((resident) => resident.file)),
    unbundledPackagesMiB: rss(unbundled),
    packages: FLOOR_PACKAGES,
    nodeOptions,
    v8Flags,
    nodeVersion: node.version,
  };
}
