// Builds images into archives: each image's layers (cached by their inputs), then its archive, rewritten only
// when the image changed. The programmatic API of `node build/image/cli.js`.
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { archiveIsCurrent, blobDir, imagesDir, recordArchive } from './cache.js';
import { images, resolveImageNames } from './images.js';
import { writeImageArchive } from './oci-archive.js';
import { imageDocuments } from './oci-documents.js';

export interface BuildImagesOptions {
  /** Image or group names: `product`, `etcd-3.4`, `etcd-3.5`, `etcd-3.6`, `pause`, `busybox`, `etcd`, `all`. */
  which: string | string[];
  /** Where the archives go. @default `$ETCD_GITOPS_CACHE/images` (`~/.cache/etcd-gitops/images`) */
  outDir?: string;
  /** References to tag the image with instead of its default; `which` must then name exactly one image.
   *  @default - the image's own names (e.g. `ghcr.io/etcd-gitops/etcd-gitops:<version>`) */
  tags?: string[];
}

export interface BuiltImage {
  /** The image's name in `images` (`product`, `etcd-3.6`, ...). */
  name: string;
  /** The references the archive carries. */
  tags: string[];
  /** Path of the archive: an OCI image layout and a `docker save` archive in one tar. */
  archive: string;
  /** `sha256:<hex>` of the image manifest. */
  digest: string;
  /** Size of the archive. */
  bytes: number;
  /** Wall time this image took, cached parts included. */
  ms: number;
  /** Whether the archive on disk was already this image (nothing written). */
  unchanged: boolean;
}

/** Builds the images `which` names into `outDir`; an unchanged rebuild reads its inputs and writes nothing. */
export async function buildImages(options: BuildImagesOptions): Promise<BuiltImage[]> {
  const names = resolveImageNames(typeof options.which === 'string' ? [options.which] : options.which);
  const tags = options.tags ?? [];
  if (tags.length > 0 && names.length !== 1) {
    throw new Error(`tags name one image: build exactly one image with them, got ${names.join(', ')}`);
  }
  const outDir = options.outDir ?? imagesDir;
  const built: BuiltImage[] = [];
  for (const name of names) {
    const started = Date.now();
    const definition = images[name];
    const spec = {
      tags: tags.length > 0 ? tags : definition.tags,
      layers: await definition.layers(),
      config: definition.config,
    };
    const archive = join(outDir, definition.file);
    const digest = imageDocuments(spec).manifest.descriptor.digest;
    const unchanged = await archiveIsCurrent(archive, digest);
    if (!unchanged) {
      await writeImageArchive(spec, blobDir, archive);
      await recordArchive(archive, digest);
    }
    const { size } = await stat(archive);
    built.push({ name, tags: spec.tags, archive, digest, bytes: size, ms: Date.now() - started, unchanged });
  }
  return built;
}
