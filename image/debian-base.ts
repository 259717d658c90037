// The base layer, distroless-style, from Debian bookworm's packages: libc, libgcc, libstdc++ (what Node.js 22's
// binary links: libc, libm, libdl, libpthread, libstdc++, libgcc_s; Debian's etcd 3.4 links libc only), CA
// certificates, time zones, /etc/services; users root (0) and nonroot (65532); /tmp (1777). No shell, no package
// manager, no dpkg database: each package is only unpacked (`dpkg-deb -x`) and no maintainer script runs, so the
// CA bundle is assembled here as update-ca-certificates would. Cached by the package versions.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { blobDir, buildDir, cachedLayer, hashOf } from './cache.js';
import { candidateVersions, downloadDebs } from './debian-packages.js';
import { type Layer, packLayer } from './layer.js';

const run = promisify(execFile);

/** The packages of the base layer. */
export const basePackages = ['libc6', 'libgcc-s1', 'libstdc++6', 'ca-certificates', 'tzdata', 'netbase'];

/** The non-root user every image runs as unless it says otherwise (distroless' `nonroot`). */
export const NONROOT = { uid: 65532, gid: 65532, home: '/home/nonroot' } as const;

export const passwd = `root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:${NONROOT.uid}:${NONROOT.gid}:nonroot:${NONROOT.home}:/sbin/nologin\n`;
export const group = `root:x:0:\nnonroot:x:${NONROOT.gid}:\n`;

/** What no image may carry (a package bringing one is removed from it) and what is of no use in one. */
const removed = [
  'bin/sh',
  'bin/bash',
  'bin/dash',
  'usr/bin/sh',
  'usr/bin/bash',
  'usr/bin/dash',
  'usr/bin/dpkg',
  'usr/bin/apt',
  'usr/bin/apt-get',
  // A shell script: nothing can run it here, and the bundle it would write is written below.
  'usr/sbin/update-ca-certificates',
  'usr/share/doc',
  'usr/share/man',
  'usr/share/info',
  'usr/share/lintian',
  'usr/share/gdb',
  'usr/share/gcc',
];

/**
 * Every certificate under `dir` (`<root>/usr/share/ca-certificates`), in path order, each ending in a newline:
 * the `/etc/ssl/certs/ca-certificates.crt` update-ca-certificates writes on a new system, where the package's
 * configuration enables every certificate it ships.
 */
export async function caBundle(dir: string): Promise<string> {
  const files = (await readdir(dir, { recursive: true })).filter((f) => f.endsWith('.crt')).sort();
  if (files.length === 0) throw new Error(`the ca-certificates package left no certificate under ${dir}`);
  const certificates = await Promise.all(files.map((file) => readFile(join(dir, file), 'utf8')));
  return certificates.map((c) => (c.endsWith('\n') ? c : `${c}\n`)).join('');
}

async function fillRoot(root: string, debs: string[]): Promise<void> {
  for (const deb of debs) await run('dpkg-deb', ['-x', deb, root]);
  for (const path of removed) await rm(join(root, path), { recursive: true, force: true });
  await mkdir(join(root, 'etc/ssl/certs'), { recursive: true });
  await writeFile(
    join(root, 'etc/ssl/certs/ca-certificates.crt'),
    await caBundle(join(root, 'usr/share/ca-certificates')),
  );
  await writeFile(join(root, 'etc/passwd'), passwd);
  await writeFile(join(root, 'etc/group'), group);
  await writeFile(join(root, 'etc/nsswitch.conf'), 'hosts: files dns\n');
}

/** The base layer of every image but pause; built once per set of package versions. */
export async function debianBaseLayer(): Promise<Layer> {
  const packages = await candidateVersions(basePackages);
  const pinned = packages.map((p) => `${p.name}=${p.version}`);
  return cachedLayer(`debian-base-${hashOf(...pinned, passwd, group, ...removed)}`, async () => {
    const debs = await downloadDebs(packages, join(buildDir, 'debs'));
    await mkdir(buildDir, { recursive: true });
    const root = await mkdtemp(join(buildDir, 'rootfs-base-'));
    try {
      await fillRoot(root, debs);
      return await packLayer(root, blobDir, `debian bookworm: ${pinned.join(' ')}`, {
        directories: [
          { path: 'tmp', mode: 0o1777 },
          { path: 'root', mode: 0o700 },
          { path: NONROOT.home, mode: 0o755, uid: NONROOT.uid, gid: NONROOT.gid },
        ],
      });
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
}
