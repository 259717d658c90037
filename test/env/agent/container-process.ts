// One container instance as a local process: its own process group (so the agent signals everything
// it forked), its own mount namespace (see mounts.ts), stdout and stderr appended to the container log,
// and the parent-death signal set so it does not outlive an agent that is killed outright.
import { spawn } from 'node:child_process';
import { closeSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { constants } from 'node:os';
import { launchScript, type Mount } from './mounts.js';

export interface ContainerLaunch {
  /** Host argv: the resolved executable, then the container's expanded arguments. */
  argv: string[];
  /** The complete environment; nothing is inherited from the agent. */
  env: Record<string, string>;
  mounts: Mount[];
  workingDir: string;
  /** The agent's state directory, holding the host side of every volume (see `launchScript`). */
  sourceDir?: string;
  logPath: string;
}

export interface ContainerExit {
  exitCode: number;
  signal?: NodeJS.Signals;
}

export interface ContainerProcess {
  /** Process id, also the process group id. */
  pid: number;
  startedAt: Date;
  exited: Promise<ContainerExit>;
}

export function launchContainer(launch: ContainerLaunch): ContainerProcess {
  const script = launchScript(launch.mounts, launch.workingDir, launch.sourceDir);
  const fd = openSync(launch.logPath, 'a');
  try {
    const child = spawn(
      '/usr/bin/setpriv',
      [
        '--pdeathsig=SIGKILL',
        '--',
        '/usr/bin/unshare',
        '--mount',
        '--propagation=private',
        '--',
        '/bin/sh',
        '-c',
        script,
        'container',
        ...launch.argv,
      ],
      { env: launch.env, detached: true, stdio: ['ignore', fd, fd] },
    );
    const exited = new Promise<ContainerExit>((resolve) => {
      child.once('error', () => resolve({ exitCode: 128 }));
      child.once('exit', (code, signal) => {
        if (signal) resolve({ exitCode: 128 + (constants.signals[signal] ?? 0), signal });
        else resolve({ exitCode: code ?? 128 });
      });
    });
    return { pid: child.pid ?? -1, startedAt: new Date(), exited };
  } finally {
    closeSync(fd);
  }
}

/** Signals a whole process group; false when it is already gone. */
export function signalGroup(pid: number, signal: NodeJS.Signals | 0): boolean {
  if (pid <= 0) return false;
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

/** Whether a live (non-zombie) process of group `pgid` remains, read from /proc. */
export function groupAlive(pgid: number): boolean {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    // "pid (comm) state ppid pgrp ...": comm may contain spaces and parentheses.
    const [state, , group] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(group) === pgid && state !== 'Z' && state !== 'X') return true;
  }
  return false;
}
