// One tar that is both an OCI image layout and a `docker save` archive, so `docker load`, `podman load`,
// `ctr images import` and `skopeo copy oci-archive:` all accept it. Layers are gzip-compressed tars already in the
// blob directory (layer.ts); this writes the config, the manifest, the index and docker's manifest.json, then
// packs everything with GNU tar in a fixed order with fixed times, so the same inputs give the same bytes.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import type { Layer } from './layer.js';

const run = promisify(execFile);

export interface ImageConfig {
  /** `uid:gid` */
  user?: string;
  entrypoint?: string[];
  cmd?: string[];
  env?: string[];
  workingDir?: string;
  exposedPorts?: string[];
  labels?: Record<string, string>;
}

/** One platform's image of a multi-architecture image. */
export interface PlatformImage {
  /** OCI architecture: `amd64`, `arm64`. */
  architecture: string;
  layers: Layer[];
}

export interface ImageSpec {
  /** Full references, e.g. `ghcr.io/etcd-gitops/etcd-gitops:0.1.0`. */
  tags: string[];
  config: ImageConfig;
  /** A single-platform image for `imageDocuments`' architecture (this machine's by default). */
  layers?: Layer[];
  /**
   * A multi-architecture image instead of `layers`: one manifest per platform and an OCI image index of them, which
   * the tags name. `docker load` (manifest.json) gets the platform of this machine.
   */
  platforms?: PlatformImage[];
}

export interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
}

export const mediaTypes = {
  layer: 'application/vnd.oci.image.layer.v1.tar+gzip',
  config: 'application/vnd.oci.image.config.v1+json',
  manifest: 'application/vnd.oci.image.manifest.v1+json',
  index: 'application/vnd.oci.image.index.v1+json',
} as const;

/** The Go architecture name of this machine (OCI's). */
export function ociArchitecture(arch: string = process.arch): string {
  const known: Record<string, string> = { x64: 'amd64', arm64: 'arm64' };
  const value = known[arch];
  if (!value)
    throw new Error(`cannot build images on architecture ${arch}: only x64 and arm64 are supported`);
  return value;
}

function blob(content: string, mediaType: string): { descriptor: Descriptor; content: string } {
  const digest = `sha256:${createHash('sha256').update(content).digest('hex')}`;
  return { descriptor: { mediaType, digest, size: Buffer.byteLength(content) }, content };
}

interface Blob {
  descriptor: Descriptor;
  content: string;
}

function configAndManifest(c: ImageConfig, architecture: string, layers: Layer[]) {
  const config = blob(
    JSON.stringify({
      architecture,
      os: 'linux',
      created: '1970-01-01T00:00:00Z',
      config: {
        User: c.user,
        Entrypoint: c.entrypoint,
        Cmd: c.cmd,
        Env: c.env,
        WorkingDir: c.workingDir,
        ExposedPorts: c.exposedPorts && Object.fromEntries(c.exposedPorts.map((p) => [p, {}])),
        Labels: c.labels,
      },
      rootfs: { type: 'layers', diff_ids: layers.map((l) => l.diffId) },
      history: layers.map((l) => ({ created: '1970-01-01T00:00:00Z', created_by: l.description })),
    }),
    mediaTypes.config,
  );
  const manifest = blob(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: mediaTypes.manifest,
      config: config.descriptor,
      layers: layers.map((l) => ({ mediaType: mediaTypes.layer, digest: l.digest, size: l.size })),
    }),
    mediaTypes.manifest,
  );
  return { config, manifest, architecture, layers };
}

/**
 * The documents of `spec` as the JSON texts that go in the archive: per platform a config and a manifest (and, for
 * a multi-architecture image, the image index of them: `target`), the archive's index.json naming `target` with
 * every tag, and docker's manifest.json for the platform `architecture` (this machine's by default).
 */
export function imageDocuments(spec: ImageSpec, architecture = ociArchitecture()) {
  if (spec.tags.length === 0) throw new Error('an image needs at least one tag');
  if ((spec.layers === undefined) === (spec.platforms === undefined))
    throw new Error('an image has either layers (one platform) or platforms');
  const platforms = (spec.platforms ?? [{ architecture, layers: spec.layers as Layer[] }]).map((p) =>
    configAndManifest(spec.config, p.architecture, p.layers),
  );
  const local = platforms.find((p) => p.architecture === architecture);
  if (!local) throw new Error(`the image has no ${architecture} platform for manifest.json`);
  const platformIndex: Blob | undefined = spec.platforms
    ? blob(
        JSON.stringify({
          schemaVersion: 2,
          mediaType: mediaTypes.index,
          manifests: platforms.map((p) => ({
            ...p.manifest.descriptor,
            platform: { architecture: p.architecture, os: 'linux' },
          })),
        }),
        mediaTypes.index,
      )
    : undefined;
  const target = platformIndex ?? local.manifest;
  const index = JSON.stringify({
    schemaVersion: 2,
    mediaType: mediaTypes.index,
    manifests: spec.tags.map((tag) => ({
      ...target.descriptor,
      annotations: {
        'io.containerd.image.name': tag,
        'org.opencontainers.image.ref.name': tag.slice(tag.lastIndexOf(':') + 1),
      },
    })),
  });
  const blobPath = (digest: string) => `blobs/sha256/${digest.slice('sha256:'.length)}`;
  const dockerManifest = JSON.stringify([
    {
      Config: blobPath(local.config.descriptor.digest),
      RepoTags: spec.tags,
      Layers: local.layers.map((l) => blobPath(l.digest)),
    },
  ]);
  return {
    platforms,
    target,
    /** Every document blob: configs, manifests and the platform index. */
    documents: [
      ...platforms.flatMap((p) => [p.config, p.manifest]),
      ...(platformIndex ? [platformIndex] : []),
    ],
    /** Every layer of every platform, once. */
    layers: [...new Map(platforms.flatMap((p) => p.layers).map((l) => [l.digest, l])).values()],
    index,
    dockerManifest,
    blobPath,
  };
}

/** Writes the archive to `out` (atomically) from layers whose blobs are in `blobDir`; returns the digest the tags
 *  name (the manifest, or the image index of a multi-architecture image). */
export async function writeImageArchive(spec: ImageSpec, blobDir: string, out: string): Promise<string> {
  const docs = imageDocuments(spec);
  await mkdir(dirname(out), { recursive: true });
  const stage = await mkdtemp(join(dirname(out), '.stage-'));
  try {
    await mkdir(join(stage, 'blobs', 'sha256'), { recursive: true });
    for (const layer of docs.layers) {
      await run('ln', [
        '-f',
        join(blobDir, layer.digest.slice('sha256:'.length)),
        join(stage, docs.blobPath(layer.digest)),
      ]).catch(() =>
        run('cp', [
          join(blobDir, layer.digest.slice('sha256:'.length)),
          join(stage, docs.blobPath(layer.digest)),
        ]),
      );
    }
    for (const document of docs.documents) {
      await writeFile(join(stage, docs.blobPath(document.descriptor.digest)), document.content);
    }
    await writeFile(join(stage, 'oci-layout'), JSON.stringify({ imageLayoutVersion: '1.0.0' }));
    await writeFile(join(stage, 'index.json'), docs.index);
    await writeFile(join(stage, 'manifest.json'), docs.dockerManifest);
    const part = `${out}.part`;
    await run('tar', [
      ...deterministicTar,
      '-cf',
      part,
      '-C',
      stage,
      'oci-layout',
      'index.json',
      'manifest.json',
      'blobs',
    ]);
    await rename(part, out);
    return docs.target.descriptor.digest;
  } finally {
    await rm(stage, { recursive: true, force: true });
  }
}

/** GNU tar flags for reproducible archives: sorted names, fixed times, numeric root ownership. */
export const deterministicTar = [
  '--sort=name',
  '--mtime=@0',
  '--owner=0',
  '--group=0',
  '--numeric-owner',
  '--format=posix',
  '--pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime',
];
