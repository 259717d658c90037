// kubelet v1.34 serves its device-plugin registration at a fixed path, whatever `--root-dir` says
// (`pluginapi.KubeletSocket`, /var/lib/kubelet/device-plugins/kubelet.sock). When it starts it empties that directory
// and then binds the socket. Two kubelets of this machine starting at once (nodes of one environment, or of
// environments of test files running side by side) can interleave so that the second bind fails with "address
// already in use" and that kubelet exits (a CI run lost a whole e2e file to it). So kubelet starts are serialized
// machine-wide: a `flock` on a file beside that directory, held from the kubelet's spawn until it has bound its
// socket (a new file at the path) or exited. Once bound, a later kubelet unlinking the socket harms nothing: no
// device plugin ever registers in these environments.
import { spawn } from 'node:child_process';
import { type BigIntStats, lstatSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

export const deviceRegistrationSocket = '/var/lib/kubelet/device-plugins/kubelet.sock';
export const kubeletStartLockPath = '/var/lib/kubelet/device-plugins.start.lock';

export interface FileLock {
  /** Releases the lock; resolves once the holder process has exited. */
  release(): Promise<void>;
}

/**
 * Takes an exclusive `flock` on `path` (created if missing), waiting for other holders. The lock is held by a
 * `flock … cat` child reading our pipe: it ends when we release or when this process dies, so a crashed test
 * never leaves it taken.
 */
export async function acquireFileLock(path: string): Promise<FileLock> {
  mkdirSync(dirname(path), { recursive: true });
  const holder = spawn('flock', ['--exclusive', path, 'sh', '-c', 'echo held; exec cat >/dev/null'], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => holder.once('close', () => resolve()));
  let stderr = '';
  holder.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  await new Promise<void>((resolve, reject) => {
    holder.stdout.once('data', () => resolve());
    holder.once('error', (error) => reject(new Error(`flock on ${path} could not start: ${error.message}`)));
    holder.once('close', (code) =>
      reject(new Error(`flock on ${path} ended with ${code}: ${stderr.trim()}`)),
    );
  });
  return {
    async release() {
      holder.stdin.end();
      await exited;
    },
  };
}

export function statOrUndefined(path: string): BigIntStats | undefined {
  try {
    return lstatSync(path, { bigint: true });
  } catch {
    return undefined;
  }
}

/** True once a socket stands at the path that is not the file `before` saw (a new inode or a new change time). */
export function socketReplaced(before: BigIntStats | undefined, now: BigIntStats | undefined): boolean {
  if (now === undefined || !now.isSocket()) return false;
  return before === undefined || now.ino !== before.ino || now.ctimeNs !== before.ctimeNs;
}
