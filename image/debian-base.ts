// The base layer, distroless-style, from Debian bookworm's packages: libc, libgcc, libstdc++, CA certificates,
// time zones, /etc/services; users root (0) and nonroot (65532); /tmp (1777). No shell, no package manager: each
// package is only unpacked (`dpkg-deb -x`), no maintainer script runs, so the CA bundle is assembled here as
// update-ca-certificates would.
import { execFile } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { blobDir, buildDir, cachedLayer, hashOf } from './cache.js';
import { type Layer, packLayer } from './layer.js';
import { ociArchitecture } from './oci-archive.js';

const run = promisify(execFile);

export const basePackages = ['libc6', 'libgcc-s1', 'libstdc++6', 'ca-certificates', 'tzdata', 'netbase'];

/**
 * apt's options for `architecture`: none for this machine's; for another, apt's own state for that architecture under
 * the build directory (its package lists, its downloads, no installed packages), so nothing of this machine's apt
 * configuration changes. Its lists are fetched on first use and then daily (`apt-get update`, some 14 MB).
 */
async function aptOptions(architecture: string): Promise<string[]> {
  if (architecture === ociArchitecture()) return [];
  const dir = join(buildDir, `apt-${architecture}`);
  const options = [
    '-o',
    `APT::Architecture=${architecture}`,
    '-o',
    `APT::Architectures::=${architecture}`,
    '-o',
    `Dir::State::Lists=${join(dir, 'lists')}`,
    '-o',
    `Dir::Cache=${join(dir, 'cache')}`,
    '-o',
    'Dir::State::status=/dev/null',
    '-o',
    'Debug::NoLocking=1',
  ];
  // Refreshed daily, as Debian's mirrors drop superseded versions: a stale list could name one that is gone.
  const marker = join(dir, 'lists', 'updated');
  if (!existsSync(marker) || Date.now() - statSync(marker).mtimeMs > 24 * 3600_000) {
    for (const sub of ['lists/partial', 'cache/archives/partial'])
      await mkdir(join(dir, sub), { recursive: true });
    await run('apt-get', ['-q', ...options, 'update'], { maxBuffer: 1 << 24 });
    await writeFile(marker, '');
  }
  return options;
}

/** `name=version` of each package as apt would install it now, for `architecture`. */
async function candidates(packages: string[], architecture: string): Promise<string[]> {
  const { stdout } = await run('apt-cache', [...(await aptOptions(architecture)), 'policy', ...packages]);
  const versions = [...stdout.matchAll(/^(\S+):\n(?:.*\n)*?\s+Candidate: (\S+)/gm)].map(
    (m) => `${m[1]}=${m[2]}`,
  );
  if (versions.length !== packages.length || versions.some((v) => v.endsWith('=(none)'))) {
    throw new Error(
      `apt-cache has no ${architecture} candidate for every package (${packages.join(', ')}); got ${versions.join(', ') || 'none'}: run 'apt-get update'`,
    );
  }
  return versions;
}

async function download(pinned: string[], architecture: string): Promise<string[]> {
  // One directory per architecture: a package's file names differ only in their architecture suffix.
  const dir = join(buildDir, architecture === ociArchitecture() ? 'debs' : `debs-${architecture}`);
  await mkdir(dir, { recursive: true });
  const missing = pinned.filter(
    (p) => !existsSync(join(dir, `${p.replace('=', '_').replace(/:/g, '%3a')}_.deb`)),
  );
  if (missing.length > 0)
    await run('apt-get', ['download', '-q', ...(await aptOptions(architecture)), ...pinned], { cwd: dir });
  const files = await readdir(dir);
  return pinned.map((p) => {
    const [name, version] = p.split('=') as [string, string];
    const file = files.find(
      (f) => f.startsWith(`${name}_${version.replace(/:/g, '%3a')}_`) && f.endsWith('.deb'),
    );
    if (!file) throw new Error(`apt-get download left no .deb for ${p} in ${dir}`);
    return join(dir, file);
  });
}

/** The Debian `packages` apt would install now for `architecture`, downloaded (cached): their pinned names and files. */
export async function debianPackages(
  packages: string[],
  architecture = ociArchitecture(),
): Promise<{ pinned: string[]; debs: string[] }> {
  const pinned = await candidates(packages, architecture);
  return { pinned, debs: await download(pinned, architecture) };
}

/** Every certificate the package ships, in name order: what update-ca-certificates enables on a new system. */
async function caBundle(root: string): Promise<string> {
  const dir = join(root, 'usr/share/ca-certificates');
  const files = (await readdir(dir, { recursive: true })).filter((f) => f.endsWith('.crt')).sort();
  if (files.length === 0) throw new Error(`the ca-certificates package left no certificate under ${dir}`);
  const parts = await Promise.all(files.map((file) => readFile(join(dir, file), 'utf8')));
  return parts.map((p) => (p.endsWith('\n') ? p : `${p}\n`)).join('');
}

export async function debianBaseLayer(architecture = ociArchitecture()): Promise<Layer> {
  const pinned = await candidates(basePackages, architecture);
  // This machine's architecture keeps its key of before (its packages are named without one).
  const key = architecture === ociArchitecture() ? [] : [architecture];
  return cachedLayer(`debian-base-${hashOf(...pinned, ...key, 'v1')}`, async () => {
    const debs = await download(pinned, architecture);
    const root = await mkdtemp(join(buildDir, 'rootfs-base-'));
    try {
      for (const deb of debs) await run('dpkg-deb', ['-x', deb, root]);
      // The bundle update-ca-certificates would write; without a shell no other tool can.
      await mkdir(join(root, 'etc/ssl/certs'), { recursive: true });
      await writeFile(join(root, 'etc/ssl/certs/ca-certificates.crt'), await caBundle(root));
      await writeFile(
        join(root, 'etc/passwd'),
        'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n',
      );
      await writeFile(join(root, 'etc/group'), 'root:x:0:\nnonroot:x:65532:\n');
      await writeFile(join(root, 'etc/nsswitch.conf'), 'hosts: files dns\n');
      for (const dir of ['tmp', 'home/nonroot', 'root']) await mkdir(join(root, dir), { recursive: true });
      await chmod(join(root, 'tmp'), 0o1777);
      // Documentation is no use in an image.
      await rm(join(root, 'usr/share/doc'), { recursive: true, force: true });
      await rm(join(root, 'usr/share/man'), { recursive: true, force: true });
      return await packLayer(
        root,
        blobDir,
        `debian bookworm${key.map((k) => ` ${k}`).join('')}: ${pinned.join(' ')}`,
      );
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
}
