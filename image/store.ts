// The test environments' registry store (test/env/registry.ts): a writable registry on this machine's loopback over
// `<cache>/registry-store` for as long as the built images are pushed into it, then stopped. Pushing an unchanged
// image again uploads nothing (its blobs are there).
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePorts } from '../test/env/ports.js';
import { registryConfig, registryStoreDir, startRegistryProcess } from '../test/env/registry.js';
import type { BuiltImage } from './images.js';
import { pushImage } from './push.js';

/** Pushes `images` into the store; returns what was pushed (`<loopback registry>/<path>@<digest>`). */
export async function publishToStore(images: readonly BuiltImage[]): Promise<string[]> {
  await mkdir(registryStoreDir, { recursive: true });
  const dir = await mkdtemp(join(tmpdir(), 'etcd-gitops-registry-store-'));
  const [port] = (await freePorts(1)) as [number];
  const registry = await startRegistryProcess({
    dir,
    config: registryConfig({ root: registryStoreDir, addr: `127.0.0.1:${port}`, readOnly: false }),
    probe: `http://127.0.0.1:${port}`,
  });
  try {
    const pushed: string[] = [];
    for (const image of images)
      pushed.push(...(await pushImage(image, { registry: `127.0.0.1:${port}`, insecure: true })));
    return pushed;
  } finally {
    await registry.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
