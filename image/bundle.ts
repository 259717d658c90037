// Our code as the image ships it: `build/controller/cli.js` and everything it imports bundled by esbuild, one chunk
// per lazily imported subcommand (controller, backup, restore, defrag, drill), minified; `npm run build` writes it
// where image/shipped-code.ts says, the image copies it to `/app/controller`, and the tests run it.
// Why: Node keeps the source text of every module it loads for lazy compilation, and the controller loads
// @kubernetes/client-node's thousands of generated files at start. Loading the controller's modules took 92.7 MiB of
// RSS unbundled and 71.2 MiB as this bundle (measured on the development machine, `node --no-opt`, 2026-12-02); the
// V8 heap in use 39.0 MiB and 19.8 MiB (docs/adr/0007-bundled-controller.md).
import { build } from 'esbuild';

/**
 * Packages left out of the bundle, loaded from `/app/node_modules` as before. etcd3 reads its gRPC service
 * definitions at load time from files beside its own module (`${__dirname}/../proto/rpc.proto`), which a bundle
 * would not have.
 */
export const UNBUNDLED_PACKAGES = ['etcd3'] as const;

/** Bundles `entry` (a compiled ES module) and what it imports into `outdir` for the image's Node.js (22 LTS). */
export async function bundleController(entry: string, outdir: string): Promise<void> {
  const result = await build({
    entryPoints: [entry],
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    minify: true,
    // Function and class names survive minification: stack traces and `err.name` stay readable in the logs.
    keepNames: true,
    external: [...UNBUNDLED_PACKAGES],
    // The CommonJS packages in the bundle call require() for Node's built-ins; an ES module has none of its own.
    banner: {
      js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
    },
    legalComments: 'none',
    logLevel: 'warning',
  });
  if (result.errors.length > 0) throw new Error(`esbuild: ${result.errors.map((e) => e.text).join('; ')}`);
}
