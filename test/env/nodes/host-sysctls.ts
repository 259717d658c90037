// Machine-wide settings: those a kubelet changes without an opt-out (kernel.panic, kernel.panic_on_oops,
// vm.overcommit_memory), and the inotify limits, which nodes raise (every kubelet, its cAdvisor and every containerd
// take inotify instances; at Debian's default of 128 per user the fifth or so kubelet on the machine exits with
// "inotify_init: too many open files"). The first environment with nodes on the machine records their values; each
// records its pid as a user; the last user to leave puts the values back (so does the reaper, see cleanup.ts).
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const hostSysctls = [
  'kernel/panic',
  'kernel/panic_on_oops',
  'vm/overcommit_memory',
  'fs/inotify/max_user_instances',
  'fs/inotify/max_user_watches',
] as const;

/** The least each inotify limit must be while nodes run (raised if lower, never lowered). */
export const inotifyMinimums: Readonly<Record<string, number>> = {
  'fs/inotify/max_user_instances': 8192,
  'fs/inotify/max_user_watches': 524288,
};
/** Machine-wide, shared by every environment on this machine. */
export const hostStateDir = '/run/etcd-gitops-nodes';
const originalsFile = join(hostStateDir, 'sysctl-originals');
const usersDir = join(hostStateDir, 'users');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Records the original values (if no live environment did) and this process as a user. */
export function enterHostSysctls(): void {
  mkdirSync(usersDir, { recursive: true });
  const live = readdirSync(usersDir).filter((pid) => alive(Number(pid)));
  if (live.length === 0 || !existsSync(originalsFile)) {
    const lines = hostSysctls.map((key) => `${key} ${readFileSync(`/proc/sys/${key}`, 'utf8').trim()}`);
    writeFileSync(originalsFile, `${lines.join('\n')}\n`);
  }
  writeFileSync(join(usersDir, String(process.pid)), '');
  for (const [key, minimum] of Object.entries(inotifyMinimums)) {
    if (Number(readFileSync(`/proc/sys/${key}`, 'utf8')) < minimum)
      writeFileSync(`/proc/sys/${key}`, String(minimum));
  }
}

/** Drops this process as a user; the last live user restores the recorded values. */
export function leaveHostSysctls(): void {
  rmSync(join(usersDir, String(process.pid)), { force: true });
  if (!existsSync(usersDir)) return;
  const live = readdirSync(usersDir).filter((pid) => alive(Number(pid)));
  if (live.length > 0 || !existsSync(originalsFile)) return;
  for (const line of readFileSync(originalsFile, 'utf8').split('\n')) {
    const [key, value] = line.split(' ');
    if (key && value !== undefined) writeFileSync(`/proc/sys/${key}`, value);
  }
  rmSync(hostStateDir, { recursive: true, force: true });
}
