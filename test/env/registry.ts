// A real OCI registry (distribution's `registry`, built by bin-build/build.sh) serving the images built here, so the
// nodes' kubelets pull every image by the name dist/ carries, as users' nodes pull from their registry or mirror.
//
// The images live in one store on disk, `<cache>/registry-store`, which `node build/image/cli.js ... --store` fills
// (image/store.ts: a writable registry on loopback and `skopeo copy`). Each environment serves that store
// read-only from its own registry process inside its network namespace; the nodes' containerd sends every pull
// there (a `_default` mirror in hosts.toml, nodes/containerd.ts). Nothing is imported into a node any more.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { cacheDir, registryBinary } from './binaries.js';
import { fixtureTeardown, startReaper } from './cleanup.js';
import { httpGet } from './http-get.js';
import { defaultLogger, type Logger } from './log.js';
import { forwardPort } from './nodes/forward.js';
import { freePorts } from './ports.js';
import { type ManagedProcess, startProcess } from './process-group.js';
import { waitFor } from './wait.js';

const run = promisify(execFile);

/** The registry's storage, shared by every environment (read-only there) and filled by the image builder. */
export const registryStoreDir = join(cacheDir, 'registry-store');

/** `registry serve`'s configuration: the filesystem driver at `root`, listening on `addr`. */
export function registryConfig(options: { root: string; addr: string; readOnly: boolean }): string {
  return `version: 0.1
log:
  level: warn
  accesslog:
    disabled: true
storage:
  filesystem:
    rootdirectory: ${options.root}
  delete:
    enabled: false
  maintenance:
    uploadpurging:
      enabled: false
    readonly:
      enabled: ${options.readOnly}
http:
  addr: ${options.addr}
`;
}

/** Starts `registry serve` with `config` (written to `dir`), in `netns` if given; resolves once `/v2/` answers at `probe`. */
export async function startRegistryProcess(options: {
  dir: string;
  config: string;
  probe: string;
  netns?: string;
}): Promise<ManagedProcess> {
  const configPath = join(options.dir, 'config.yml');
  await writeFile(configPath, options.config);
  const process = startProcess({
    name: 'registry',
    command: registryBinary(),
    args: ['serve', configPath],
    logPath: join(options.dir, 'registry.log'),
    netns: options.netns,
    // distribution reads REGISTRY_* variables as configuration overrides: none from our environment.
    env: { OTEL_TRACES_EXPORTER: 'none' },
  });
  try {
    await waitFor(async () => (await httpGet(`${options.probe}/v2/`)).status === 200, {
      what: `the registry at ${options.probe}/v2/`,
      timeoutMs: 30_000,
      intervalMs: 100,
      abortIf: process.exitStatus,
    });
  } catch (error) {
    await process.stop();
    throw new Error(`${(error as Error).message}\n--- registry log:\n${process.logTail(20)}`, {
      cause: error,
    });
  }
  return process;
}

/** A repository path and tag (or digest) in a registry: `ghcr.io/etcd-gitops/etcd-gitops:0.1.0` → `etcd-gitops/etcd-gitops:0.1.0`. */
export function pathInRegistry(reference: string): string {
  const [first, ...rest] = reference.split('/');
  const isHost = rest.length > 0 && first !== undefined && (/[.:]/.test(first) || first === 'localhost');
  return isHost ? rest.join('/') : reference.includes('/') ? reference : `library/${reference}`;
}

export interface Registry {
  /** `http://127.0.0.1:<port>`, forwarded into the environment namespace: for tests and skopeo. */
  readonly endpoint: string;
  /** `http://<environment address>:<port>`: where the nodes' containerd pulls from. */
  readonly mirror: string;
  /** The manifest digest the registry serves for `reference` (a full image name with its tag). */
  digestOf(reference: string): Promise<string>;
  stop(): Promise<void>;
}

/**
 * Serves the store read-only inside the environment's network namespace, on every address there. Fails at once,
 * naming what to run, when the store lacks an image of `imagesDir` or holds another digest for it.
 */
export async function startRegistry(options: {
  netns: { path: string; address: string };
  imagesDir: string;
  log?: Logger;
}): Promise<Registry> {
  const log = options.log ?? defaultLogger();
  if (!existsSync(join(registryStoreDir, 'docker'))) {
    throw new Error(
      `the registry store ${registryStoreDir} is empty: run 'npm run images' (npm test fills it)`,
    );
  }
  const dir = await mkdtemp(join(tmpdir(), 'etcd-gitops-registry-'));
  const reaper = startReaper(dir);
  const [port] = (await freePorts(1)) as [number];
  const processes: ManagedProcess[] = [];
  const track = (p: ManagedProcess) => {
    processes.push(p);
    reaper.record(p.pid);
    return p;
  };
  const stop = fixtureTeardown({ dir, reaper, processes: () => processes });
  const endpoint = `http://127.0.0.1:${port}`;
  const digestOf = async (reference: string) => {
    const path = pathInRegistry(reference);
    const at = path.lastIndexOf(':');
    const response = await fetch(`${endpoint}/v2/${path.slice(0, at)}/manifests/${path.slice(at + 1)}`, {
      method: 'HEAD',
      headers: {
        accept: [
          'application/vnd.oci.image.index.v1+json',
          'application/vnd.oci.image.manifest.v1+json',
          'application/vnd.docker.distribution.manifest.v2+json',
        ].join(', '),
      },
    });
    const digest = response.headers.get('docker-content-digest');
    if (!response.ok || !digest)
      throw new Error(`the registry has no ${reference} (HTTP ${response.status})`);
    return digest;
  };
  try {
    forwardPort(options.netns.path, dir, { name: 'registry', localPort: port }, track);
    track(
      await startRegistryProcess({
        dir,
        config: registryConfig({ root: registryStoreDir, addr: `0.0.0.0:${port}`, readOnly: true }),
        probe: endpoint,
        netns: options.netns.path,
      }),
    );
    await checkStore(options.imagesDir, digestOf);
    log.debug({ endpoint }, 'Started the registry');
  } catch (error) {
    await stop();
    throw error;
  }
  return { endpoint, mirror: `http://${options.netns.address}:${port}`, digestOf, stop };
}

/** Every image archive of `imagesDir` is in the store under each of its names, with the archive's own digest. */
async function checkStore(
  imagesDir: string,
  digestOf: (reference: string) => Promise<string>,
): Promise<void> {
  const archives = (await readdir(imagesDir)).filter((name) => name.endsWith('.tar'));
  for (const archive of archives) {
    const { stdout } = await run('tar', ['-xOf', join(imagesDir, archive), 'index.json']);
    const index = JSON.parse(stdout) as {
      manifests: Array<{ digest: string; annotations?: Record<string, string> }>;
    };
    for (const manifest of index.manifests) {
      const reference = manifest.annotations?.['io.containerd.image.name'];
      if (!reference) continue;
      const served = await digestOf(reference).catch((error: Error) => error.message);
      if (served !== manifest.digest) {
        throw new Error(
          `the registry store is stale: ${reference} is ${manifest.digest} in ${archive} but the store serves ${served}; run 'npm run images'`,
        );
      }
    }
  }
}
