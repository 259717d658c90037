// The node agent's image table: which local executables stand in for a container image.
// There is no container runtime here, so an image is a promise about files: the etcd images hold
// the etcd build of their version, ours holds the compiled controller, busybox is the host's shell.
import { existsSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { etcdBinary, repoRoot } from '../binaries.js';
import type { Mount } from './mounts.js';

/** What the agent runs for one image. */
export interface LocalImage {
  /** The image's ENTRYPOINT; the container's `command` replaces it. */
  entrypoint: string[];
  /** The image's CMD; the container's `args` replace it, its `command` drops it. */
  cmd: string[];
  /** Executables inside the image by absolute path; each maps to the host argv prefix that runs it. */
  executables: Record<string, string[]>;
  /** Whether commands that are not in `executables` run from the host as written (a plain shell image). */
  hostCommands: boolean;
  /** The image's WORKDIR. @default '/' */
  workingDir?: string;
  /**
   * The executables are Node programs (`node <script>`): the agent loads `pod-network-preload.ts` into
   * them, so a listen on every interface binds the Pod IP, as in the Pod's own network namespace.
   * @default false
   */
  nodePodNetwork?: boolean;
  /**
   * Host directories bound into every container of this image, ahead of the Pod's own volumes, as the
   * files of a real image would be there: a Pod volume at `/tmp` then never hides them, wherever the
   * checkout or the cache lives on the host. @default - none
   */
  mounts?: Mount[];
}

/** Where containers of our image see this repository (read-only), as the real image has its files in /app. */
export const IMAGE_REPO_PATH = '/app/etcd-gitops';

/** One entry of the table: returns the image for a reference it knows, `undefined` otherwise; throws when it
 *  knows the reference but cannot provide it (e.g. that etcd version is not built). */
export type ImageRule = (reference: string) => LocalImage | undefined;

export type ImageResolution = { image: LocalImage } | { error: string };

const etcdTools = ['etcd', 'etcdctl', 'etcdutl'] as const;

/** gcr.io/etcd-development/etcd:vX.Y.Z, quay.io/coreos/etcd:vX.Y.Z, registry.k8s.io/etcd:X.Y.Z-N. */
export const etcdImages: ImageRule = (reference) => {
  const match =
    /^(?:gcr\.io\/etcd-development\/etcd|quay\.io\/coreos\/etcd):v(\d+\.\d+\.\d+)$/.exec(reference) ??
    /^registry\.k8s\.io\/etcd:(\d+\.\d+\.\d+)-\d+$/.exec(reference);
  if (!match?.[1]) return undefined;
  const version = match[1];
  const executables: Record<string, string[]> = {};
  for (const tool of etcdTools) {
    const path = join(etcdBinary(version, 'etcd'), '..', tool);
    if (existsSync(path)) executables[`/usr/local/bin/${tool}`] = [path];
  }
  // As the released image: distroless, CMD ["/usr/local/bin/etcd"], WORKDIR /var/lib/etcd.
  return {
    entrypoint: [],
    cmd: ['/usr/local/bin/etcd'],
    executables,
    hostCommands: false,
    workingDir: '/var/lib/etcd',
  };
};

/** ghcr.io/etcd-gitops/etcd-gitops:<any tag>: ENTRYPOINT /app/bin/etcd-gitops = node build/controller/cli.js. */
export const etcdGitopsImage: ImageRule = (reference) => {
  if (!/^ghcr\.io\/etcd-gitops\/etcd-gitops(?::[\w.-]+)?$/.test(reference)) return undefined;
  const cli = [process.execPath, `${IMAGE_REPO_PATH}/build/controller/cli.js`];
  return {
    entrypoint: ['/app/bin/etcd-gitops'],
    cmd: [],
    executables: { '/app/bin/etcd-gitops': cli },
    hostCommands: false,
    nodePodNetwork: true,
    mounts: [{ source: repoRoot, target: IMAGE_REPO_PATH, readOnly: true }],
  };
};

/** busybox, busybox:<tag>, docker.io/library/busybox:<tag>: the host's /bin/sh and tools. */
export const busyboxImage: ImageRule = (reference) => {
  if (
    !/^(?:(?:docker\.io\/)?library\/)?busybox(?::[\w.-]+)?$|^docker\.io\/busybox(?::[\w.-]+)?$/.test(
      reference,
    )
  ) {
    return undefined;
  }
  return { entrypoint: [], cmd: ['sh'], executables: {}, hostCommands: true };
};

export const defaultImageRules: readonly ImageRule[] = [etcdImages, etcdGitopsImage, busyboxImage];

/** Looks `reference` up in `extra` rules first, then the default table. A digest (`@sha256:...`) is ignored. */
export function resolveImage(reference: string, extra: readonly ImageRule[] = []): ImageResolution {
  const name = reference.replace(/@sha256:[0-9a-f]+$/, '');
  for (const rule of [...extra, ...defaultImageRules]) {
    try {
      const image = rule(name);
      if (image) return { image };
    } catch (error) {
      return { error: `image "${reference}" is known but not available: ${(error as Error).message}` };
    }
  }
  return {
    error: `image "${reference}" is not in the node agent's image table (test/env/agent/images.ts); known: etcd images, ghcr.io/etcd-gitops/etcd-gitops, busybox`,
  };
}

/** The host argv for `command` inside `image`: by exact in-image path, by bare name, or from the host. */
export function resolveExecutable(image: LocalImage, command: string): string[] | undefined {
  const exact = image.executables[command];
  if (exact) return exact;
  if (!command.includes('/')) {
    for (const [path, argv] of Object.entries(image.executables)) if (basename(path) === command) return argv;
  }
  return image.hostCommands ? [command] : undefined;
}

/** The container's full argv before `$(VAR)` expansion, as a container runtime combines image and spec. */
export function containerArgv(
  image: LocalImage,
  command: string[] | undefined,
  args: string[] | undefined,
): string[] {
  if (command && command.length > 0) return [...command, ...(args ?? [])];
  return [...image.entrypoint, ...(args && args.length > 0 ? args : image.cmd)];
}

const preloadHostPath = join(dirname(fileURLToPath(import.meta.url)), 'pod-network-preload.js');

/** The preload as the container sees it: through the image's bind of the repository when it has one. */
function podNetworkPreload(image: LocalImage): URL {
  const repo = image.mounts?.find((mount) => mount.source === repoRoot);
  const inside = repo ? join(repo.target, relative(repoRoot, preloadHostPath)) : preloadHostPath;
  return pathToFileURL(inside);
}

/** The host argv that runs `executable` (an image's entry) for a Pod at `podIP`. */
export function podExecutable(image: LocalImage, executable: string[], podIP: string): string[] {
  const [node, ...rest] = executable;
  if (!image.nodePodNetwork || !node || !podIP) return executable;
  const preload = podNetworkPreload(image);
  preload.searchParams.set('podIP', podIP);
  return [node, `--import=${preload.href}`, ...rest];
}
