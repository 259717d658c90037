// A node's own cgroup root. Kubelets that share one delete each other's Pod cgroups, so each node gets
// `/<prefix>-node-N` in every hierarchy (cgroup v1: one per controller, cpuset seeded from its parent; v2: one
// directory). Removal kills what is left inside and removes the directories deepest first.
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';

const cgroupFs = '/sys/fs/cgroup';

/** The directories that stand for `root` on this machine: one per v1 hierarchy, or one on v2. */
export function cgroupDirs(root: string): string[] {
  if (existsSync(join(cgroupFs, 'cgroup.controllers'))) return [join(cgroupFs, root)];
  return readdirSync(cgroupFs)
    .filter((name) => name !== 'unified' && statSync(join(cgroupFs, name)).isDirectory())
    .filter((name) => existsSync(join(cgroupFs, name, 'cgroup.procs')))
    .map((name) => join(cgroupFs, name, root));
}

/** Creates the cgroup root in every hierarchy. */
export function createCgroupRoot(root: string): void {
  for (const dir of cgroupDirs(root)) {
    mkdirSync(dir, { recursive: true });
    // A new v1 cpuset starts with no CPUs and no memory nodes: nothing could run in it.
    for (const file of ['cpuset.cpus', 'cpuset.mems']) {
      const own = join(dir, file);
      if (existsSync(own) && readFileSync(own, 'utf8').trim() === '') {
        writeFileSync(own, readFileSync(join(dir, '..', file), 'utf8').trim());
      }
    }
  }
}

/** Every process still inside the cgroup root, in any hierarchy. */
export function cgroupProcesses(root: string): number[] {
  const pids = new Set<number>();
  const visit = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const line of readFileSync(join(dir, 'cgroup.procs'), 'utf8').split('\n')) {
      if (line.trim()) pids.add(Number(line));
    }
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) visit(join(dir, entry.name));
    }
  };
  for (const dir of cgroupDirs(root)) visit(dir);
  return [...pids];
}

/** SIGKILLs whatever is left inside, then removes every directory of the root, deepest first. */
export function removeCgroupRoot(root: string): void {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const pids = cgroupProcesses(root);
    if (pids.length === 0) break;
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    execFileSync('sleep', ['0.1']);
  }
  const remove = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) remove(join(dir, entry.name));
    }
    try {
      rmdirSync(dir);
    } catch {
      // busy for a moment after its last process died; the caller checks what is left
    }
  };
  for (const dir of cgroupDirs(root)) remove(dir);
}

/** The directories of the root that still exist (a leak check). */
export function remainingCgroups(root: string): string[] {
  return cgroupDirs(root).filter((dir) => existsSync(dir));
}
