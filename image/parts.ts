// The layers images share beyond the Debian base: Node.js from the npm registry, our production dependencies,
// our compiled code, etcd's tools, the pause program, busybox, Prometheus, kube-state-metrics.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile, cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative } from 'node:path';
import { promisify } from 'node:util';
import { DATA_MOUNT_PATH, ETCD_BINARY } from '../constructs/conventions/images.js';
import { defaultToolsDir } from '../controller/restore/cli-args.js';
import { restoreToolPath } from '../controller/restore/etcd-version.js';
import {
  etcdBinary,
  etcdToolFor,
  etcdVersions,
  kubeStateMetricsBinary,
  prometheusBinary,
  repoRoot,
} from '../test/env/binaries.js';
import { KUBE_STATE_METRICS_BINARY, PROMETHEUS_BINARY } from '../test/env/prometheus/image.js';
import { blobDir, buildDir, cachedLayer, hashOf } from './cache.js';
import { debianPackages } from './debian-base.js';
import { type Layer, packLayer } from './layer.js';
import { nodeRuntime } from './node-runtime.js';
import { ociArchitecture } from './oci-archive.js';
import { shippedCli, shippedCodeDir } from './shipped-code.js';

const run = promisify(execFile);

/** A layer built in a fresh directory by `fill(root)`, cached under `key`. */
function layerFrom(key: string, description: string, fill: (root: string) => Promise<void>): Promise<Layer> {
  return cachedLayer(key, async () => {
    await mkdir(buildDir, { recursive: true });
    const root = await mkdtemp(join(buildDir, 'rootfs-'));
    try {
      await fill(root);
      return await packLayer(root, blobDir, description);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
}

/** Node.js 22 LTS as the npm registry's `node-linux-<arch>` package ships it: `/nodejs/bin/node`, as distroless. */
export async function nodeLayer(architecture = ociArchitecture()): Promise<Layer> {
  const runtime = await nodeRuntime(undefined, architecture);
  return layerFrom(`node-${runtime.pkg}`, `Node.js ${runtime.version} (npm ${runtime.pkg})`, async (root) => {
    await mkdir(join(root, 'nodejs/bin'), { recursive: true });
    await copyFile(runtime.node, join(root, 'nodejs/bin/node'));
    await copyFile(runtime.license, join(root, 'nodejs/LICENSE'));
    await run('chmod', ['0755', join(root, 'nodejs/bin/node')]);
  });
}

/** The workspace packages whose manifests the lockfile names, and the one whose dependencies the image carries. */
const CONTROLLER_MANIFEST = 'controller/package.json';
const WORKSPACE_MANIFESTS = ['package.json', 'constructs/package.json', CONTROLLER_MANIFEST];

/**
 * `/app/package.json` (the controller package's manifest: `"type": "module"` for our code) and `/app/node_modules`:
 * the controller's production dependencies at the lockfile's versions. The construct library and its cdk8s peers
 * are not installed: the controller compiles the shared conventions in (build/constructs) and loads no cdk8s.
 */
export async function dependenciesLayer(): Promise<Layer> {
  const manifests = await Promise.all(
    WORKSPACE_MANIFESTS.map((file) => readFile(join(repoRoot, file), 'utf8')),
  );
  const lock = await readFile(join(repoRoot, 'package-lock.json'), 'utf8');
  return layerFrom(
    `deps-${hashOf(...manifests, lock)}`,
    'controller production dependencies (npm workspace controller, package-lock.json)',
    async (root) => {
      const staging = await mkdtemp(join(buildDir, 'npm-'));
      try {
        for (const [i, file] of WORKSPACE_MANIFESTS.entries()) {
          await mkdir(dirname(join(staging, file)), { recursive: true });
          await writeFile(join(staging, file), manifests[i] ?? '');
        }
        await writeFile(join(staging, 'package-lock.json'), lock);
        await run(
          'npm',
          [
            'ci',
            `--workspace=${dirname(CONTROLLER_MANIFEST)}`,
            '--omit=dev',
            '--ignore-scripts',
            '--no-audit',
            '--no-fund',
            '--loglevel=error',
          ],
          { cwd: staging, maxBuffer: 1 << 26 },
        );
        const app = join(root, 'app');
        await mkdir(app, { recursive: true });
        await cp(join(staging, 'node_modules'), join(app, 'node_modules'), {
          recursive: true,
          verbatimSymlinks: true,
          // The workspace links (node_modules/@etcd-gitops/controller -> ../../controller) point outside the image.
          filter: (source) => !relative(join(staging, 'node_modules'), source).startsWith('@etcd-gitops'),
        });
        await copyFile(join(staging, CONTROLLER_MANIFEST), join(app, 'package.json'));
        // Every platform of the product image shares this layer: it must hold no compiled addon (one architecture's).
        const addons = (await readdir(join(app, 'node_modules'), { recursive: true })).filter((f) =>
          f.endsWith('.node'),
        );
        if (addons.length > 0)
          throw new Error(
            `the controller's dependencies hold native addons, one architecture's only: ${addons.join(', ')}`,
          );
      } finally {
        await rm(staging, { recursive: true, force: true });
      }
    },
  );
}

/** Every file under `dir` (relative, sorted) and a hash of their contents. */
async function treeHash(dir: string): Promise<string> {
  const files = (await readdir(dir, { recursive: true, withFileTypes: true }))
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
  const hash = createHash('sha256');
  for (const file of files) hash.update(file).update(await readFile(join(dir, file)));
  return hash.digest('hex');
}

/**
 * Our controller, backup and restore commands as `npm run build` bundled them (image/bundle.ts, into
 * image/shipped-code.ts's directory, which the tests run too) at `/app/controller`, and the `/app/bin/etcd-gitops`
 * launcher.
 */
export async function codeLayer(entrypoint: string): Promise<Layer> {
  if (!existsSync(shippedCli)) throw new Error(`${shippedCli} is missing: run 'npm run build' first`);
  const key = `code-${hashOf(await treeHash(shippedCodeDir), entrypoint)}`;
  return layerFrom(
    key,
    'etcd-gitops (build/app/controller: build/controller bundled by esbuild)',
    async (root) => {
      await cp(shippedCodeDir, join(root, 'app', 'controller'), { recursive: true });
      const launcher = join(root, entrypoint);
      await mkdir(join(launcher, '..'), { recursive: true });
      // No shell in the image: the kernel runs Node.js from the first line.
      await writeFile(launcher, "#!/nodejs/bin/node\nimport('/app/controller/cli.js');\n", { mode: 0o755 });
    },
  );
}

/** The restore tool of every supported etcd minor where `restore fetch` looks for it by default
 *  (`/app/etcd/v<minor>/etcdutl`; 3.4: `etcdctl`). */
export async function restoreToolsLayer(architecture = ociArchitecture()): Promise<Layer> {
  const tools = await Promise.all(
    Object.values(etcdVersions).map(async (version) => {
      const path = restoreToolPath(defaultToolsDir, version);
      return { version, path, source: await restoreTool(version, basename(path), architecture) };
    }),
  );
  // This machine's architecture keeps its key of before.
  const key = architecture === ociArchitecture() ? [] : [architecture];
  return layerFrom(
    `etcd-tools-${hashOf(...tools.map((t) => `${t.path}=${t.version}`), ...key)}`,
    `etcd restore tools ${tools.map((t) => t.version).join(' ')}${key.map((k) => ` (${k})`).join('')}`,
    async (root) => {
      for (const t of tools) {
        const target = join(root, t.path);
        await mkdir(dirname(target), { recursive: true });
        await copyFile(t.source, target);
      }
    },
  );
}

/**
 * Where the restore tool `name` of etcd `version` for `architecture` is: this machine's from the test binaries;
 * another architecture's from build.sh's cross build (3.5 and later) or, for 3.4, from Debian's `etcd-client`
 * package of that architecture, unpacked into the build directory.
 */
async function restoreTool(version: string, name: string, architecture: string): Promise<string> {
  const tool = name as 'etcdctl' | 'etcdutl';
  if (architecture === ociArchitecture()) return etcdBinary(version, tool);
  if (!version.startsWith('3.4.')) return etcdToolFor(version, tool, architecture);
  const { pinned, debs } = await debianPackages(['etcd-client'], architecture);
  if (!pinned[0]?.startsWith(`etcd-client=${version}-`))
    throw new Error(`Debian's ${architecture} etcd-client is ${pinned[0]}, not etcd ${version}`);
  const dir = join(buildDir, `${pinned[0].replace(/[=:+~]/g, '_')}-${architecture}`);
  const binary = join(dir, 'usr/bin/etcdctl');
  if (!existsSync(binary)) await run('dpkg-deb', ['-x', debs[0] as string, dir]);
  return binary;
}

/** `/usr/local/bin/etcd`, `etcdctl` and (from 3.5) `etcdutl` of one etcd version, as etcd's released images. */
export function etcdLayer(version: string): Promise<Layer> {
  const names = version.startsWith('3.4.')
    ? (['etcd', 'etcdctl'] as const)
    : (['etcd', 'etcdctl', 'etcdutl'] as const);
  const bin = dirname(ETCD_BINARY);
  return layerFrom(`etcd-${version}-v1`, `etcd ${version}`, async (root) => {
    await mkdir(join(root, bin), { recursive: true });
    await mkdir(join(root, DATA_MOUNT_PATH), { recursive: true });
    for (const name of names) await copyFile(etcdBinary(version, name), join(root, bin, name));
  });
}

/** `/pause`, compiled static from image/pause.c. */
export async function pauseLayer(): Promise<Layer> {
  const source = join(repoRoot, 'image', 'pause.c');
  return layerFrom(
    `pause-${hashOf(await readFile(source, 'utf8'))}`,
    'pause (image/pause.c)',
    async (root) => {
      await run('gcc', ['-static', '-O2', '-s', '-o', join(root, 'pause'), source]);
    },
  );
}

/** Debian's static busybox with its applets linked in /bin: the test environment's shell image. */
export async function busyboxLayer(): Promise<Layer> {
  const { stdout: version } = await run('dpkg-query', ['-W', `-f=\${Version}`, 'busybox-static']).catch(
    () => {
      throw new Error(
        "busybox-static is not installed: run 'npm run binaries' (apt-get install busybox-static)",
      );
    },
  );
  return layerFrom(`busybox-${hashOf(version)}`, `busybox-static ${version}`, async (root) => {
    await mkdir(join(root, 'bin'), { recursive: true });
    await copyFile('/bin/busybox', join(root, 'bin/busybox'));
    const { stdout } = await run('/bin/busybox', ['--list']);
    for (const applet of stdout.split('\n').filter((a) => a && a !== 'busybox')) {
      await symlink('busybox', join(root, 'bin', applet));
    }
    for (const dir of ['tmp', 'etc']) await mkdir(join(root, dir), { recursive: true });
    await run('chmod', ['1777', join(root, 'tmp')]);
    await writeFile(
      join(root, 'etc/passwd'),
      'root:x:0:0:root:/:/bin/sh\nnonroot:x:65532:65532::/tmp:/bin/sh\n',
    );
  });
}

/** One static Go binary at `target`, keyed by its contents. */
async function binaryLayer(name: string, source: string, target: string): Promise<Layer> {
  const key = `${name}-${createHash('sha256')
    .update(await readFile(source))
    .digest('hex')
    .slice(0, 16)}`;
  return layerFrom(key, `${name} (${source})`, async (root) => {
    await mkdir(join(root, dirname(target)), { recursive: true });
    await copyFile(source, join(root, target));
  });
}

/** The Prometheus server at `/bin/prometheus` (its data directory is the Pod's volume). */
export function prometheusLayer(): Promise<Layer> {
  return binaryLayer('prometheus', prometheusBinary(), PROMETHEUS_BINARY);
}

/** kube-state-metrics at `/bin/kube-state-metrics`. */
export function kubeStateMetricsLayer(): Promise<Layer> {
  return binaryLayer('kube-state-metrics', kubeStateMetricsBinary(), KUBE_STATE_METRICS_BINARY);
}
