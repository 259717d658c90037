// The test environment's shell image: Debian's static busybox with every applet linked in /bin.
import { execFile } from 'node:child_process';
import { copyFile, mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { layerFrom } from './build-layer.js';
import { hashOf } from './cache.js';
import type { Layer } from './layer.js';

const run = promisify(execFile);

async function installedVersion(): Promise<string> {
  try {
    return (await run('dpkg-query', ['-W', `-f=\${Version}`, 'busybox-static'])).stdout;
  } catch {
    throw new Error(
      "busybox-static is not installed: run 'npm run binaries' (apt-get install busybox-static)",
    );
  }
}

export async function busyboxLayer(): Promise<Layer> {
  const version = await installedVersion();
  const passwd = 'root:x:0:0:root:/:/bin/sh\nnonroot:x:65532:65532::/tmp:/bin/sh\n';
  const layer = async (root: string) => {
    await mkdir(join(root, 'bin'), { recursive: true });
    await copyFile('/bin/busybox', join(root, 'bin/busybox'));
    const { stdout } = await run('/bin/busybox', ['--list']);
    for (const applet of stdout.split('\n').filter((a) => a && a !== 'busybox')) {
      await symlink('busybox', join(root, 'bin', applet));
    }
    await mkdir(join(root, 'etc'), { recursive: true });
    await writeFile(join(root, 'etc/passwd'), passwd);
  };
  return layerFrom(`busybox-${hashOf(version, passwd)}`, `busybox-static ${version}`, layer, {
    directories: [{ path: 'tmp', mode: 0o1777 }],
  });
}
