#!/usr/bin/env node
// Builds images without a container engine (see docs/adr/0001-images-without-a-container-engine.md):
//   node build/image/cli.js <product|etcd-3.4|etcd-3.5|etcd-3.6|pause|busybox|all>... [--out DIR] [--tag REF]...
// Prints one JSON line per image: name, tags, archive, manifest digest, bytes, milliseconds.
import { parseArgs } from 'node:util';
import { buildImages, images } from './images.js';

const usage = `usage: cli.js <${[...Object.keys(images), 'all'].join('|')}>... [--out DIR] [--tag REF]...`;

async function main(): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse();
  } catch (error) {
    console.error(`${(error as Error).message}\n${usage}`);
    return 2;
  }
  const which = parsed.positionals;
  if (which.length === 0) {
    console.error(usage);
    return 2;
  }
  const tags = parsed.values.tag;
  if (tags && tags.length > 0 && (which.length !== 1 || which[0] === 'all')) {
    console.error(`--tag names one image: give exactly one image name, got ${which.join(' ')}\n${usage}`);
    return 2;
  }
  for (const image of await buildImages(which, { outDir: parsed.values.out, tags })) {
    console.log(JSON.stringify(image));
  }
  return 0;
}

function parse() {
  return parseArgs({
    allowPositionals: true,
    options: { out: { type: 'string' }, tag: { type: 'string', multiple: true } },
  });
}

process.exitCode = await main();
