// Finds live processes by what their command line mentions (tests use it to prove nothing is left).
import { readdirSync, readFileSync } from 'node:fs';

/** Live (non-zombie) processes whose command line contains `text`, as `pid: command line`. */
export function processesMentioning(text: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ');
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
      if (cmdline.includes(text) && state !== 'Z') found.push(`${entry}: ${cmdline.trim()}`);
    } catch {
      // exited meanwhile
    }
  }
  return found;
}

/** Whether process `pid` exists and is not a zombie. */
export function processAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !['Z', 'X'].includes(stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3));
  } catch {
    return false;
  }
}
