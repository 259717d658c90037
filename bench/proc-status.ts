// A process's memory as the kernel counts it, from /proc/<pid>/status: the one parser the benches share.
import { readFileSync } from 'node:fs';

/** VmRSS: resident set now; VmHWM: its peak over the process's life; RssFile: the part of VmRSS mapped from files
 *  (the node binary's code and read-only data, shared libraries), which the kernel can drop and read again. */
export type MemoryField = 'VmRSS' | 'VmHWM' | 'RssFile';

/** The field of `status` (the text of /proc/<pid>/status) in MiB, or undefined when it has none. */
export function statusMiB(status: string, field: MemoryField): number | undefined {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status);
  return match ? Number(match[1]) / 1024 : undefined;
}

/** The field of process `pid` (`'self'`: this one) in MiB; throws when the process or the field is gone. */
export function processMiB(pid: number | 'self', field: MemoryField): number {
  const value = statusMiB(readFileSync(`/proc/${pid}/status`, 'utf8'), field);
  if (value === undefined) throw new Error(`no ${field} in /proc/${pid}/status`);
  return value;
}
