// Pushing built image archives to a registry with skopeo (Debian's package; no container engine): every name of an
// image goes to `<registry>/<its repository path>:<tag>`, its manifest or index copied byte for byte
// (`--preserve-digests`), every platform of an index with it (`--all`), so the digest users pin is the one built
// here. `--store` (image/store.ts) pushes into the test environments' registry store the same way.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { pathInRegistry } from '../test/env/registry.js';
import type { BuiltImage } from './images.js';

const run = promisify(execFile);

export interface PushOptions {
  /** `host[:port][/prefix]`, e.g. `registry.example.com/platform` or `127.0.0.1:5000`. */
  readonly registry: string;
  /** Plain HTTP or an unverified certificate (a local registry). @default false */
  readonly insecure?: boolean;
  /** skopeo's `--dest-authfile` (e.g. `~/.docker/config.json`). @default - skopeo's own lookup */
  readonly authFile?: string;
}

/** Where `reference` (a built image's name) goes in `registry`. */
export function destinationOf(reference: string, registry: string): string {
  return `${registry.replace(/\/+$/, '')}/${pathInRegistry(reference)}`;
}

/** Pushes every name of `image`; returns the destinations, each with the digest it now serves. */
export async function pushImage(image: BuiltImage, options: PushOptions): Promise<string[]> {
  const pushed: string[] = [];
  for (const tag of image.tags) {
    const destination = destinationOf(tag, options.registry);
    const ref = tag.slice(tag.lastIndexOf(':') + 1);
    await run(
      'skopeo',
      [
        // The archive is ours, just built: no signature policy applies to it.
        '--insecure-policy',
        'copy',
        '--quiet',
        '--all',
        '--preserve-digests',
        ...(options.insecure ? ['--dest-tls-verify=false'] : []),
        ...(options.authFile ? ['--dest-authfile', options.authFile] : []),
        `oci-archive:${image.archive}:${ref}`,
        `docker://${destination}`,
      ],
      { maxBuffer: 1 << 24 },
    ).catch((error: Error & { stderr?: string }) => {
      throw new Error(
        `skopeo could not push ${tag} to ${destination}: ${error.stderr?.trim() || error.message}`,
      );
    });
    pushed.push(`${destination}@${image.digest}`);
  }
  return pushed;
}
