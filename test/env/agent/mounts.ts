// How a container sees its volumes: the agent starts every container in a private mount namespace
// (`unshare --mount --propagation private`) whose first act is to bind each volume's host directory
// at its mountPath, so Pod paths such as /var/lib/etcd work unchanged and nothing leaks to the host.
import { randomUUID } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  rmdirSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, normalize, resolve } from 'node:path';
import type { V1Container } from '@kubernetes/client-node';
import type { HostVolume } from './volumes.js';

export interface Mount {
  /** Host path (directory, or file for a file subPath). */
  source: string;
  /** Absolute path inside the container. */
  target: string;
  readOnly: boolean;
}

export const serviceAccountPath = '/var/run/secrets/kubernetes.io/serviceaccount';

/** The container's bind mounts, parents before children. Throws for a mount of an undeclared volume. */
export function containerMounts(container: V1Container, volumes: Map<string, HostVolume>): Mount[] {
  const mounts = (container.volumeMounts ?? []).map((mount): Mount => {
    const volume = volumes.get(mount.name);
    if (!volume)
      throw new Error(
        `container "${container.name}" mounts volume "${mount.name}", which the Pod does not declare`,
      );
    const subPath = mount.subPath ? normalize(mount.subPath) : '';
    if (subPath.startsWith('..') || subPath.startsWith('/')) {
      throw new Error(`volumeMounts subPath '${mount.subPath}' must be relative and stay inside the volume`);
    }
    return {
      source: subPath ? join(volume.hostPath, subPath) : volume.hostPath,
      target: normalize(mount.mountPath),
      readOnly: mount.readOnly === true || volume.readOnly,
    };
  });
  return mounts.sort((a, b) => a.target.split('/').length - b.target.split('/').length);
}

export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", "'\\''")}'`;
}

/**
 * The shell script run inside the new mount namespace: bind every mount (read-only ones remounted
 * read-only), change to the working directory (as a runtime does, `/` when it does not exist), exec argv.
 *
 * A mount can hide the host directories of the mounts after it: an emptyDir at `/tmp` hides every
 * volume directory of an agent whose `stateDir` lies under `/tmp`. So the script first changes to
 * `sourceDir` (the agent's state directory) and names the sources inside it relative to it, without
 * canonicalization: a relative lookup starts at the working directory, which a later mount does not
 * replace, so every source stays reachable whatever the targets are.
 */
export function launchScript(mounts: Mount[], workingDir: string, sourceDir?: string): string {
  const lines = ['set -e'];
  const base = sourceDir ? resolve(sourceDir) : undefined;
  if (base) lines.push(`cd ${shellQuote(base)}`);
  for (const mount of mounts) {
    const inside = base !== undefined && mount.source.startsWith(`${base}/`);
    const source = inside ? `./${mount.source.slice(base.length + 1)}` : mount.source;
    const flags = inside ? '--no-canonicalize --bind' : '--bind';
    lines.push(`/usr/bin/mount ${flags} ${shellQuote(source)} ${shellQuote(mount.target)}`);
    if (mount.readOnly) lines.push(`/usr/bin/mount -o remount,bind,ro ${shellQuote(mount.target)}`);
  }
  lines.push(`cd ${shellQuote(workingDir)} 2>/dev/null || cd /`, 'exec "$@"');
  return lines.join('\n');
}

/**
 * Mount points that the host lacks are created on the host (a bind needs one); the agent records the
 * topmost directory or file it created and removes them, when empty, on stop.
 *
 * Agents of environments running side by side share these host paths (`/app/etcd-gitops`, the service account
 * token directory, ...), and removing a directory that is a mount point in another mount namespace detaches that
 * mount there (Linux ≥ 3.18): a running container of another agent would see its volume vanish mid-run (a Job of
 * our image failed with "Cannot find module" under /app/etcd-gitops). So with a `registry` directory, each agent
 * registers there, records what it created and which mount points it uses; a stopping agent removes a created
 * path only when no other live agent uses a mount point inside it, and leaves the rest to the agent that does.
 */
export class MountPoints {
  private readonly created = new Set<string>();
  private readonly self: string | undefined;

  constructor(
    private readonly registry?: string,
    private readonly alive: (pid: number) => boolean = () => true,
  ) {
    if (!registry) return;
    this.self = `${process.pid}-${randomUUID()}`;
    mkdirSync(join(registry, 'used', this.self), { recursive: true });
  }

  ensure(mount: Mount): void {
    if (this.registry && this.self) {
      const used = join(this.registry, 'used', this.self);
      mkdirSync(used, { recursive: true });
      writeFileSync(join(used, encodeURIComponent(mount.target)), '');
    }
    if (!existsSync(mount.source)) mkdirSync(mount.source, { recursive: true });
    if (existsSync(mount.target)) return;
    let top = mount.target;
    while (!existsSync(dirname(top))) top = dirname(top);
    if (statSync(mount.source).isDirectory()) {
      mkdirSync(mount.target, { recursive: true });
    } else {
      mkdirSync(dirname(mount.target), { recursive: true });
      writeFileSync(mount.target, '');
    }
    this.created.add(top);
    if (this.registry) {
      mkdirSync(join(this.registry, 'created'), { recursive: true });
      writeFileSync(join(this.registry, 'created', encodeURIComponent(top)), '');
    }
  }

  /**
   * Removes what `ensure` created (and what agents that stopped before created), where no other live agent uses a
   * mount point inside it and nothing but empty directories remain; returns the paths left because they were
   * not empty.
   */
  removeCreated(): string[] {
    const paths = new Set(this.created);
    this.created.clear();
    if (!this.registry || !this.self) return [...paths].filter((path) => !removeEmptyTree(path));
    const usedDir = join(this.registry, 'used');
    rmSync(join(usedDir, this.self), { recursive: true, force: true });
    const inUse: string[] = [];
    for (const agent of entries(usedDir)) {
      if (this.alive(Number(agent.split('-')[0]))) {
        inUse.push(...entries(join(usedDir, agent)).map((entry) => decodeURIComponent(entry)));
      } else {
        rmSync(join(usedDir, agent), { recursive: true, force: true }); // an agent that died without stopping
      }
    }
    const createdDir = join(this.registry, 'created');
    for (const entry of entries(createdDir)) paths.add(decodeURIComponent(entry));
    const left: string[] = [];
    for (const path of paths) {
      if (inUse.some((target) => target === path || target.startsWith(`${path}/`))) continue; // its user removes it
      if (!removeEmptyTree(path)) left.push(path);
      rmSync(join(createdDir, encodeURIComponent(path)), { force: true });
    }
    for (const dir of [createdDir, usedDir, this.registry]) {
      try {
        rmdirSync(dir);
      } catch {
        // not empty: another agent is registered, and it cleans up after itself
      }
    }
    return left;
  }
}

function entries(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function removeEmptyTree(path: string): boolean {
  try {
    const stat = statSync(path);
    if (!stat.isDirectory()) {
      if (stat.size > 0) return false;
      unlinkSync(path);
      return true;
    }
    let empty = true;
    for (const entry of readdirSync(path)) if (!removeEmptyTree(join(path, entry))) empty = false;
    if (empty) rmdirSync(path);
    return empty;
  } catch {
    return !existsSync(path);
  }
}
