// Network namespaces kept as files: `unshare --net=<file>` bind-mounts a new namespace onto a file of ours, so
// nothing is created under /run/netns (which `ip netns add` bind-mounts over itself, making namespaces made
// before it unremovable), and `nsenter --net=<file>` runs a process inside. `ip` takes the file path wherever it
// takes a namespace name.
import { execFile, execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Creates a network namespace bound to `path` (a new empty file) with its loopback up. */
export async function createNetns(path: string): Promise<void> {
  await writeFile(path, '', { flag: 'wx' });
  await run('unshare', [`--net=${path}`, 'true']);
  await ip(path, ['link', 'set', 'lo', 'up']);
}

/** Unmounts the namespace file (the namespace goes once no process is left in it) and removes the file. */
export function removeNetnsSync(path: string): void {
  try {
    execFileSync('umount', ['--lazy', path], { stdio: 'ignore' });
  } catch {
    // not mounted
  }
  try {
    execFileSync('rm', ['-f', path], { stdio: 'ignore' });
  } catch {
    // exit path
  }
}

/** The argv prefix that runs a command inside the namespace at `path`. */
export function inNetns(path: string, command: string, args: string[]): { command: string; args: string[] } {
  return { command: 'nsenter', args: [`--net=${path}`, '--', command, ...args] };
}

/** Runs `ip <args>` inside the namespace at `path`; rejects with ip's message on failure. */
export async function ip(path: string, args: string[]): Promise<string> {
  return nsExec(path, 'ip', args);
}

/** Runs a command to completion inside the namespace at `path` and returns its stdout. */
export async function nsExec(path: string, command: string, args: string[]): Promise<string> {
  const wrapped = inNetns(path, command, args);
  try {
    const { stdout } = await run(wrapped.command, wrapped.args);
    return stdout;
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr?.trim();
    throw new Error(`${command} ${args.join(' ')} in ${path} failed: ${stderr || (error as Error).message}`);
  }
}

/** Sets a per-namespace sysctl (`net.*`) inside the namespace at `path`. */
export async function nsSysctl(path: string, key: string, value: string): Promise<void> {
  await nsExec(path, 'sysctl', ['-q', '-w', `${key}=${value}`]);
}
