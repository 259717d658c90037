// Last-resort cleanup for everything the test environment starts: runs on normal exit, on
// SIGINT/SIGTERM/SIGHUP, and (through a detached reaper) even when this process is SIGKILLed.
import { execFileSync, spawn } from 'node:child_process';
import { appendFileSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { ManagedProcess } from './process-group.js';

export interface Cleanup {
  /** Best-effort synchronous teardown (SIGKILL process groups, remove directories); runs on 'exit'. */
  sync(): void;
  /** Graceful teardown, awaited (bounded) when a signal arrives. */
  graceful?(): Promise<void>;
}

const registry = new Set<Cleanup>();
let installed = false;
const signalExitCodes: Record<string, number> = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 };
const gracefulDeadlineMs = 20_000;

/** The exit code after cleaning up on `signal` (default 128 + signal number); a CLI may make Ctrl-C exit 0. */
export function setSignalExitCode(signal: 'SIGINT' | 'SIGTERM' | 'SIGHUP', code: number): void {
  signalExitCodes[signal] = code;
}

/** Signals the caller handles itself: on them, nothing is torn down and the process does not exit from here. */
const callerHandled = new Set<string>();

/** Leaves `signal` to the caller: it stops at its own pace and exits, and the cleanups still run on that exit (the
 *  soak finishes its step and writes its summary on SIGINT). Without it, the first SIGINT tore the environment down
 *  and exited 130 under the soak, with no summary. A second such signal then ends the process at once (the reaper
 *  cleans up after it). */
export function leaveSignalToCaller(signal: 'SIGINT' | 'SIGTERM' | 'SIGHUP'): void {
  callerHandled.add(signal);
}

/** Registers a cleanup that runs if this process exits before `unregister()` is called. */
export function onProcessExit(cleanup: Cleanup): () => void {
  install();
  registry.add(cleanup);
  return () => registry.delete(cleanup);
}

function runSync(): void {
  for (const cleanup of registry) {
    try {
      cleanup.sync();
    } catch {
      // Exit path: keep cleaning the rest.
    }
  }
  registry.clear();
}

function install(): void {
  if (installed) return;
  installed = true;
  process.on('exit', runSync);
  for (const signal of Object.keys(signalExitCodes)) {
    process.once(signal, () => {
      if (callerHandled.has(signal)) return;
      const code = signalExitCodes[signal];
      const graceful = [...registry].map((cleanup) => cleanup.graceful?.().catch(() => undefined));
      const deadline = new Promise((resolve) => setTimeout(resolve, gracefulDeadlineMs).unref());
      void Promise.race([Promise.all(graceful), deadline]).finally(() => process.exit(code));
    });
  }
}

/** Kills a whole process group, ignoring "no such process". */
export function killGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/** Live (non-zombie) processes whose process group is `pgid`, read from /proc. */
export function groupMembers(pgid: number): number[] {
  const members: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    // "pid (comm) state ppid pgrp ...": comm may contain spaces and parentheses.
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(pgrp) === pgid && state !== 'Z' && state !== 'X') members.push(Number(entry));
  }
  return members;
}

/** Whether any live process of group `pgid` remains (zombies do not count). */
export function groupAlive(pgid: number): boolean {
  return groupMembers(pgid).length > 0;
}

// Removes everything a directory's environment made, in order: its process groups; with real nodes also the
// processes in its cgroup roots (listed in .cgroups), the containerd shims serving its sockets, every mount under
// it (deepest first), the cgroups themselves, the kubelets' /var/log/containers links into it, and the machine-wide
// sysctls when it was the last environment with nodes (see nodes/host-sysctls.ts). Then the directory.
const reapDirSteps = `
if [ -f "$dir/.pgids" ]; then
  while read -r g; do kill -KILL -- "-$g" 2>/dev/null; done < "$dir/.pgids"
fi
cg_dirs() { for h in /sys/fs/cgroup/*/ /sys/fs/cgroup/; do [ -d "$h$1" ] && echo "$h$1"; done; }
if [ -f "$dir/.cgroups" ]; then
  for i in 1 2 3 4 5 6 7 8 9 10; do
    left=0
    while read -r root; do
      for d in $(cg_dirs "\${root#/}"); do
        for p in $(find "$d" -name cgroup.procs -exec cat {} + 2>/dev/null); do kill -KILL "$p" 2>/dev/null; left=1; done
      done
    done < "$dir/.cgroups"
    [ "$left" = 0 ] && break
    sleep 0.2
  done
fi
for p in $(grep -l -s -F -- "$dir/" /proc/[0-9]*/cmdline | cut -d/ -f3); do
  [ "$p" != "$$" ] && tr '\\0' ' ' < "/proc/$p/cmdline" 2>/dev/null | grep -q containerd-shim && kill -KILL "$p" 2>/dev/null
done
awk -v d="$dir/" 'index($5, d) == 1 { print length($5) " " $5 }' /proc/self/mountinfo | sort -rn | cut -d' ' -f2- |
  while read -r m; do umount -l "$m" 2>/dev/null; done
if [ -f "$dir/.cgroups" ]; then
  while read -r root; do
    for d in $(cg_dirs "\${root#/}"); do find "$d" -depth -type d -exec rmdir {} \\; 2>/dev/null; done
  done < "$dir/.cgroups"
fi
for l in /var/log/containers/*.log; do
  case "$(readlink "$l" 2>/dev/null)" in "$dir"/*) rm -f "$l" ;; esac
done
if [ -f "$dir/.host-sysctls" ] && [ -d /run/etcd-gitops-nodes/users ]; then
  rm -f "/run/etcd-gitops-nodes/users/$(cat "$dir/.host-sysctls")"
  live=0
  for u in /run/etcd-gitops-nodes/users/*; do [ -e "$u" ] && kill -0 "\${u##*/}" 2>/dev/null && live=1; done
  if [ "$live" = 0 ] && [ -f /run/etcd-gitops-nodes/sysctl-originals ]; then
    while read -r k v; do echo "$v" > "/proc/sys/$k"; done < /run/etcd-gitops-nodes/sysctl-originals
    rm -rf /run/etcd-gitops-nodes
  fi
fi
rm -rf -- "$dir"
`;

const reaperScript = `
parent=$1; dir=$2
while kill -0 "$parent" 2>/dev/null; do sleep 1; done
${reapDirSteps}
`;

/** The reaper's cleanup of `dir`, run now and synchronously (exit paths of environments with real nodes). */
export function reapDirSync(dir: string): void {
  try {
    execFileSync('bash', ['-c', `dir=$1\n${reapDirSteps}`, 'etcd-gitops-reap', dir], { stdio: 'ignore' });
  } catch {
    // Exit path: keep going.
  }
}

/**
 * A detached shell that waits for this process to die (even by SIGKILL), then kills every process
 * group recorded with `record()` and removes `dir`. `stop()` dismisses it after a normal teardown.
 */
export interface Reaper {
  record(pgid: number): void;
  stop(): void;
}

export function startReaper(dir: string): Reaper {
  const child = spawn('bash', ['-c', reaperScript, 'etcd-gitops-reaper', String(process.pid), dir], {
    detached: true,
    stdio: 'ignore',
  });
  child.unref();
  const pgid = child.pid;
  return {
    record(group) {
      appendFileSync(`${dir}/.pgids`, `${group}\n`);
    },
    stop() {
      if (pgid) killGroup(pgid, 'SIGKILL');
    },
  };
}

/** Removes a directory tree, ignoring errors (used on exit paths). */
export function removeDir(dir: string): void {
  try {
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  } catch {
    // Exit path.
  }
}

/**
 * The teardown of a test fixture that owns processes and a directory: stops the processes (each given `graceMs`),
 * dismisses the reaper and removes the directory, once however often it is called; if this process exits first,
 * kills the processes at once and removes the directory synchronously.
 */
export function fixtureTeardown(options: {
  readonly dir: string;
  readonly reaper: Reaper;
  readonly processes: () => readonly ManagedProcess[];
  readonly graceMs?: number;
}): () => Promise<void> {
  const { dir, reaper, processes, graceMs } = options;
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      await Promise.all(processes().map((process) => process.stop(graceMs)));
      reaper.stop();
      await rm(dir, { recursive: true, force: true, maxRetries: 3 });
      unregister();
    })();
    return stopping;
  };
  const unregister = onProcessExit({
    sync: () => {
      for (const process of processes()) process.killNow();
      reaper.stop();
      removeDir(dir);
    },
    graceful: stop,
  });
  return stop;
}
