// The JSON documents of one image, pure: the OCI image config, the OCI manifest, the OCI index (one entry per
// tag, named for containerd and for `oci-archive:<file>:<tag>`) and docker's `manifest.json` (`docker load`,
// `podman load`). Times are fixed and keys come in a fixed order, so the same spec gives the same digests.
import { createHash } from 'node:crypto';
import type { Layer } from './layer.js';

export interface ImageConfig {
  /** `uid:gid` @default - root */
  user?: string;
  /** @default - none */
  entrypoint?: string[];
  /** @default - none */
  cmd?: string[];
  /** `NAME=value` entries. @default - none */
  env?: string[];
  /** @default - `/` */
  workingDir?: string;
  /** `<port>/tcp` entries. @default - none */
  exposedPorts?: string[];
  /** @default - none */
  labels?: Record<string, string>;
}

export interface ImageSpec {
  /** Full references with a tag, e.g. `ghcr.io/etcd-gitops/etcd-gitops:0.1.0`; at least one. */
  tags: string[];
  /** Bottom layer first. */
  layers: Layer[];
  config: ImageConfig;
}

export interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
}

/** A JSON document and its descriptor (digest and size of exactly these bytes). */
export interface Document {
  descriptor: Descriptor;
  content: string;
}

export interface ImageDocuments {
  config: Document;
  manifest: Document;
  /** `index.json` */
  index: string;
  /** docker's `manifest.json` */
  dockerManifest: string;
}

export const mediaTypes = {
  layer: 'application/vnd.oci.image.layer.v1.tar+gzip',
  config: 'application/vnd.oci.image.config.v1+json',
  manifest: 'application/vnd.oci.image.manifest.v1+json',
  index: 'application/vnd.oci.image.index.v1+json',
} as const;

/** Creation time of every image and layer: the epoch, so that digests depend on contents only. */
const EPOCH = '1970-01-01T00:00:00Z';

/** The OCI (Go) architecture name of a Node.js `process.arch`. */
export function ociArchitecture(arch: string = process.arch): string {
  const known: Record<string, string> = { x64: 'amd64', arm64: 'arm64' };
  const value = known[arch];
  if (!value) {
    throw new Error(
      `cannot build images on architecture '${arch}': only x64 (amd64) and arm64 are supported`,
    );
  }
  return value;
}

/** `repository:tag` split at the tag's colon (a registry port is not a tag). */
export function parseReference(reference: string): { repository: string; tag: string } {
  const slash = reference.lastIndexOf('/');
  const colon = reference.lastIndexOf(':');
  const tag = colon > slash ? reference.slice(colon + 1) : '';
  const repository = colon > slash ? reference.slice(0, colon) : reference;
  if (!/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/.test(tag) || !/^[a-z0-9][a-z0-9._/:-]*$/.test(repository)) {
    throw new Error(
      `image reference '${reference}' must be <repository>:<tag> (lower-case repository, tag of letters, digits, '_', '.', '-'), e.g. registry.example.com/etcd-gitops:0.1.0`,
    );
  }
  return { repository, tag };
}

/** `blobs/sha256/<hex>`: where a digest's blob lives in the archive. */
export function blobPath(digest: string): string {
  if (!/^sha256:[0-9a-f]{64}$/.test(digest)) throw new Error(`'${digest}' is not a sha256 digest`);
  return `blobs/sha256/${digest.slice('sha256:'.length)}`;
}

function document(value: unknown, mediaType: string): Document {
  const content = JSON.stringify(value);
  const digest = `sha256:${createHash('sha256').update(content).digest('hex')}`;
  return { descriptor: { mediaType, digest, size: Buffer.byteLength(content) }, content };
}

function configDocument(spec: ImageSpec, architecture: string): Document {
  const c = spec.config;
  return document(
    {
      architecture,
      os: 'linux',
      created: EPOCH,
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
      history: spec.layers.map((l) => ({ created: EPOCH, created_by: l.description })),
    },
    mediaTypes.config,
  );
}

/** The documents of `spec` as the exact texts that go in the archive. */
export function imageDocuments(spec: ImageSpec, architecture = ociArchitecture()): ImageDocuments {
  if (spec.tags.length === 0) throw new Error('an image needs at least one tag, got none');
  if (spec.layers.length === 0) throw new Error(`image ${spec.tags[0]} needs at least one layer, got none`);
  const references = spec.tags.map(parseReference);
  const config = configDocument(spec, architecture);
  const manifest = document(
    {
      schemaVersion: 2,
      mediaType: mediaTypes.manifest,
      config: config.descriptor,
      layers: spec.layers.map((l) => ({ mediaType: mediaTypes.layer, digest: l.digest, size: l.size })),
    },
    mediaTypes.manifest,
  );
  const index = JSON.stringify({
    schemaVersion: 2,
    mediaType: mediaTypes.index,
    manifests: spec.tags.map((tag, i) => ({
      ...manifest.descriptor,
      annotations: {
        'io.containerd.image.name': tag,
        'org.opencontainers.image.ref.name': references[i]?.tag,
      },
    })),
  });
  const dockerManifest = JSON.stringify([
    {
      Config: blobPath(config.descriptor.digest),
      RepoTags: spec.tags,
      Layers: spec.layers.map((l) => blobPath(l.digest)),
    },
  ]);
  return { config, manifest, index, dockerManifest };
}
