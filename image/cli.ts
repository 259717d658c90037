#!/usr/bin/env node
// Builds images without a container engine (see docs/adr/0001-images-without-a-container-engine.md):
//   node build/image/cli.js <product|etcd-3.4|...|all>... [--out DIR] [--tag REF]... [--push REGISTRY [--insecure]] [--store]
// Prints one JSON line per image: name, tags, archive, manifest digest, bytes, milliseconds, and where it was pushed.
//   --push REGISTRY  pushes every name of each image to REGISTRY (`host[:port][/prefix]`) with skopeo, keeping its
//                    digest and every platform of its index; --insecure for plain HTTP; --authfile FILE for skopeo.
//   --store          pushes them into the test environments' registry store (test/env/registry.ts).
import { parseArgs } from 'node:util';
import { buildImages, images } from './images.js';
import { pushImage } from './push.js';
import { publishToStore } from './store.js';

const usage = `usage: cli.js <${[...Object.keys(images), 'all'].join('|')}>... [--out DIR] [--tag REF]... [--push REGISTRY [--insecure] [--authfile FILE]] [--store]`;

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
  const { tag: tags, push, insecure, authfile, store } = parsed.values;
  if (tags && tags.length > 0 && (which.length !== 1 || which[0] === 'all')) {
    console.error(`--tag names one image: give exactly one image name, got ${which.join(' ')}\n${usage}`);
    return 2;
  }
  const built = await buildImages(which, { outDir: parsed.values.out, tags });
  for (const image of built) {
    const pushed = push
      ? await pushImage(image, { registry: push, insecure: insecure ?? false, authFile: authfile })
      : undefined;
    console.log(JSON.stringify(pushed ? { ...image, pushed } : image));
  }
  if (store) await publishToStore(built);
  return 0;
}

function parse() {
  return parseArgs({
    allowPositionals: true,
    options: {
      out: { type: 'string' },
      tag: { type: 'string', multiple: true },
      push: { type: 'string' },
      insecure: { type: 'boolean' },
      authfile: { type: 'string' },
      store: { type: 'boolean' },
    },
  });
}

process.exitCode = await main();
