#!/usr/bin/env node
// Builds images without a container engine (docs/adr/0001-images-without-a-container-engine.md):
//   node build/image/cli.js <product|etcd-3.4|etcd-3.5|etcd-3.6|pause|busybox|etcd|all>... [--out DIR] [--tag REF]...
// Prints one JSON line per image: name, tags, archive, manifest digest, bytes, ms, unchanged. Exit codes: 0 built,
// 2 bad arguments, 1 a build failed.
import { buildImages } from './build.js';
import { parseImageArgs, usage } from './cli-args.js';

async function main(): Promise<number> {
  let options: ReturnType<typeof parseImageArgs>;
  try {
    options = parseImageArgs(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${usage()}\n`);
    return 2;
  }
  try {
    for (const image of await buildImages(options)) process.stdout.write(`${JSON.stringify(image)}\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`image build failed: ${(error as Error).message}\n`);
    return 1;
  }
}

process.exitCode = await main();
