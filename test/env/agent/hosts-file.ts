// The agent's DNS: one marked block per agent in /etc/hosts, which getaddrinfo (and so dns.lookup,
// etcd, curl) reads before any DNS server. The block names its agent's node and pid, so blocks left by
// an agent that died without cleaning up are recognised and removed by the next one.
import { readFileSync, writeFileSync } from 'node:fs';

export interface HostsEntry {
  ip: string;
  names: string[];
}

const markerPrefix = '# BEGIN etcd-gitops-agent ';
const blockPattern = /^# BEGIN etcd-gitops-agent (\S+) (\d+)\n[\s\S]*?^# END etcd-gitops-agent \1 \2\n?/gm;

/** `content` without the block of (`nodeName`, `pid`), with a fresh one appended when `entries` is given. */
export function replaceBlock(content: string, nodeName: string, pid: number, entries?: HostsEntry[]): string {
  let rest = content.replace(blockPattern, (block, node: string, owner: string) =>
    node === nodeName && Number(owner) === pid ? '' : block,
  );
  if (!entries) return rest;
  if (rest.length > 0 && !rest.endsWith('\n')) rest += '\n';
  const lines = entries.map((entry) => `${entry.ip} ${entry.names.join(' ')}\n`).join('');
  return `${rest}${markerPrefix}${nodeName} ${pid}\n${lines}# END etcd-gitops-agent ${nodeName} ${pid}\n`;
}

/** `content` without the blocks whose agent process is no longer alive. */
export function removeDeadBlocks(content: string, alive: (pid: number) => boolean): string {
  return content.replace(blockPattern, (block, _node: string, owner: string) =>
    alive(Number(owner)) ? block : '',
  );
}

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The block of one agent in one hosts file. Writes in place (the file may be a mount point). */
export class HostsBlock {
  private last: string | undefined;

  constructor(
    private readonly path: string,
    private readonly nodeName: string,
    private readonly pid: number = process.pid,
  ) {}

  /** Removes blocks of dead agents and this agent's own leftover block. */
  removeStale(): void {
    this.rewrite((content) => replaceBlock(removeDeadBlocks(content, processAlive), this.nodeName, this.pid));
  }

  /** Writes `entries` as this agent's block (skipped when unchanged). */
  write(entries: HostsEntry[]): void {
    const rendered = JSON.stringify(entries);
    if (rendered === this.last) return;
    this.last = rendered;
    this.rewrite((content) => replaceBlock(content, this.nodeName, this.pid, entries));
  }

  /** Removes this agent's block. Synchronous: also used on process exit. */
  remove(): void {
    this.last = undefined;
    this.rewrite((content) => replaceBlock(content, this.nodeName, this.pid));
  }

  private rewrite(change: (content: string) => string): void {
    const content = readFileSync(this.path, 'utf8');
    const next = change(content);
    if (next !== content) writeFileSync(this.path, next);
  }
}
