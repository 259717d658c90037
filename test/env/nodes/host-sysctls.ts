// The machine-wide settings a kubelet changes without an opt-out (kernel.panic, kernel.panic_on_oops,
// vm.overcommit_memory). The first environment with nodes on the machine records their values; each records its
// pid as a user; the last user to leave puts the values back (so does the reaper, see reap.ts).
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const hostSysctls = ['kernel/panic', 'kernel/panic_on_oops', 'vm/overcommit_memory'] as const;
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
