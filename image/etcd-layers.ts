// etcd's binaries in images: the restore tools of every supported minor in our product image, and
// `/usr/local/bin/etcd`, `etcdctl`, `etcdutl` in etcd's own images. 3.5 and 3.6 are Go-built from the module
// proxy (static), 3.4 is Debian's etcd-server/etcd-client (links libc, which the Debian base layer has); all are
// found where test/env/bin-build/build.sh puts them. Layers are keyed by the binaries' contents.
import { copyFile, mkdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { DATA_MOUNT_PATH, ETCD_BINARY } from '../constructs/conventions/images.js';
import { defaultToolsDir } from '../controller/restore/cli-args.js';
import { restoreToolPath } from '../controller/restore/etcd-version.js';
import { etcdBinary, etcdVersions } from '../test/env/binaries.js';
import { contentKey, layerFrom } from './build-layer.js';
import type { Layer } from './layer.js';

type EtcdTool = 'etcd' | 'etcdctl' | 'etcdutl';

/** The binaries etcd's image of `version` ships (3.4 has no etcdutl). */
export function etcdImageBinaries(version: string): EtcdTool[] {
  return version.startsWith('3.4.') ? ['etcd', 'etcdctl'] : ['etcd', 'etcdctl', 'etcdutl'];
}

/** What `restore fetch` runs for each supported etcd version: `/app/etcd/v<minor>/etcdutl` (3.4: `etcdctl`). */
export function restoreTools(): { version: string; path: string; tool: EtcdTool }[] {
  return Object.values(etcdVersions).map((version) => {
    const path = restoreToolPath(defaultToolsDir, version);
    return { version, path, tool: basename(path) as EtcdTool };
  });
}

/** The restore tool of every supported etcd minor, where `restore fetch` looks for it by default. */
export async function restoreToolsLayer(): Promise<Layer> {
  const tools = restoreTools().map((t) => ({ ...t, source: etcdBinary(t.version, t.tool) }));
  const key = `etcd-tools-${await contentKey(tools.map((t) => t.source))}`;
  const description = `etcd restore tools ${tools.map((t) => `${t.path} (${t.version})`).join(' ')}`;
  return layerFrom(key, description, async (root) => {
    for (const t of tools) {
      await mkdir(join(root, dirname(t.path)), { recursive: true });
      await copyFile(t.source, join(root, t.path));
    }
  });
}

/** `/usr/local/bin/etcd`, `etcdctl` and (from 3.5) `etcdutl` of one etcd version, and the working directories
 *  of etcd's released images (`/var/etcd`, `/var/lib/etcd`). */
export async function etcdLayer(version: string): Promise<Layer> {
  const binaries = etcdImageBinaries(version).map((name) => ({ name, source: etcdBinary(version, name) }));
  const bin = dirname(ETCD_BINARY);
  const key = `etcd-${version}-${await contentKey(binaries.map((b) => b.source))}`;
  return layerFrom(
    key,
    `etcd ${version}: ${binaries.map((b) => join(bin, b.name)).join(' ')}`,
    async (root) => {
      await mkdir(join(root, bin), { recursive: true });
      for (const dir of ['var/etcd', DATA_MOUNT_PATH]) await mkdir(join(root, dir), { recursive: true });
      for (const b of binaries) await copyFile(b.source, join(root, bin, b.name));
    },
  );
}
