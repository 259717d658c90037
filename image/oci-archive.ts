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

export interface ImageSpec {
  /** Full references, e.g. `ghcr.io/etcd-gitops/etcd-gitops:0.1.0`. */
  tags: string[];
  layers: Layer[];
  config: ImageConfig;
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

/** The image config, manifest, index and docker manifest of `spec`, as the JSON texts that go in the archive. */
export function imageDocuments(spec: ImageSpec, architecture = ociArchitecture()) {
  if (spec.tags.length === 0) throw new Error('an image needs at least one tag');
  const c = spec.config;
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
      rootfs: { type: 'layers', diff_ids: spec.layers.map((l) => l.diffId) },
      history: spec.layers.map((l) => ({ created: '1970-01-01T00:00:00Z', created_by: l.description })),
    }),
    mediaTypes.config,
  );
  const manifest = blob(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: mediaTypes.manifest,
      config: config.descriptor,
      layers: spec.layers.map((l) => ({ mediaType: mediaTypes.layer, digest: l.digest, size: l.size })),
    }),
    mediaTypes.manifest,
  );
  const index = JSON.stringify({
    schemaVersion: 2,
    mediaType: mediaTypes.index,
    manifests: spec.tags.map((tag) => ({
      ...manifest.descriptor,
      annotations: {
        'io.containerd.image.name': tag,
        'org.opencontainers.image.ref.name': tag.slice(tag.lastIndexOf(':') + 1),
      },
    })),
  });
  const blobPath = (digest: string) => `blobs/sha256/${digest.slice('sha256:'.length)}`;
  const dockerManifest = JSON.stringify([
    {
      Config: blobPath(config.descriptor.digest),
      RepoTags: spec.tags,
      Layers: spec.layers.map((l) => blobPath(l.digest)),
    },
  ]);
  return { config, manifest, index, dockerManifest, blobPath };
}

/** Writes the archive to `out` (atomically) from layers whose blobs are in `blobDir`; returns the manifest digest. */
export async function writeImageArchive(spec: ImageSpec, blobDir: string, out: string): Promise<string> {
  const docs = imageDocuments(spec);
  await mkdir(dirname(out), { recursive: true });
  const stage = await mkdtemp(join(dirname(out), '.stage-'));
  try {
    await mkdir(join(stage, 'blobs', 'sha256'), { recursive: true });
    for (const layer of spec.layers) {
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
    for (const document of [docs.config, docs.manifest]) {
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
    return docs.manifest.descriptor.digest;
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
