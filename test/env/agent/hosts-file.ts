// The agent's DNS: one marked block per agent in /etc/hosts, which getaddrinfo (and so dns.lookup,
// etcd, curl) reads before any DNS server. The block names its agent's node and pid, so blocks left by
// an agent that died without cleaning up are recognised and removed by the next one.
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';

export interface HostsEntry {
  ip: string;
  names: string[];
}

const markerPrefix = '# BEGIN etcd-gitops-agent ';
const blockPattern = /^# BEGIN etcd-gitops-agent (\S+) (\d+)\n[\s\S]*?^# END etcd-gitops-agent \1 \2\n?/gm;

export function renderBlock(nodeName: string, pid: number, entries: HostsEntry[]): string {
  const lines = entries.map((entry) => `${entry.ip} ${entry.names.join(' ')}\n`).join('');
  return `${markerPrefix}${nodeName} ${pid}\n${lines}# END etcd-gitops-agent ${nodeName} ${pid}\n`;
}

/** `content` without the block of (`nodeName`, `pid`), with a fresh one appended when `entries` is given. */
export function replaceBlock(content: string, nodeName: string, pid: number, entries?: HostsEntry[]): string {
  let rest = content.replace(blockPattern, (block, node: string, owner: string) =>
    node === nodeName && Number(owner) === pid ? '' : block,
  );
  if (!entries) return rest;
  if (rest.length > 0 && !rest.endsWith('\n')) rest += '\n';
  return `${rest}${renderBlock(nodeName, pid, entries)}`;
}

/**
 * The names of `entries` that another agent's block in `content` already publishes, each with that block's owner
 * (`<node> <pid>`). getaddrinfo answers with the first match in the file, so such a name would reach the other
 * environment's Pod: two environments on one machine must not run Pods under the same `<name>.<ns>`.
 */
export function namesTakenElsewhere(
  content: string,
  nodeName: string,
  pid: number,
  entries: HostsEntry[],
): Map<string, string> {
  const wanted = new Set(entries.flatMap((entry) => entry.names));
  const taken = new Map<string, string>();
  for (const match of content.matchAll(blockPattern)) {
    const [block, node, owner] = match;
    if (node === nodeName && Number(owner) === pid) continue;
    for (const line of block.split('\n')) {
      if (line.startsWith('#')) continue;
      for (const name of line.split(/\s+/).slice(1))
        if (wanted.has(name)) taken.set(name, `${node} ${owner}`);
    }
  }
  return taken;
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

const lockWaitMs = 3_000;
const staleLockMs = 10_000;
const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * Runs `change` holding `<path>.lock` (an atomically created directory naming its owner's pid), so agents
 * in several processes do not lose each other's blocks. A lock whose owner died, or that is older than
 * 10 s, is broken; after 3 s of waiting the change is made anyway (and healed by `verify()`).
 */
function withLock(path: string, change: () => void): void {
  const lock = `${path}.lock`;
  const deadline = Date.now() + lockWaitMs;
  let locked = false;
  while (!locked && Date.now() < deadline) {
    try {
      mkdirSync(lock);
      writeFileSync(`${lock}/owner`, String(process.pid));
      locked = true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (lockIsStale(lock)) rmSync(lock, { recursive: true, force: true });
      else Atomics.wait(pause, 0, 0, 5);
    }
  }
  try {
    change();
  } finally {
    if (locked) rmSync(lock, { recursive: true, force: true });
  }
}

function lockIsStale(lock: string): boolean {
  try {
    const owner = Number(readFileSync(`${lock}/owner`, 'utf8'));
    if (owner > 0 && !processAlive(owner)) return true;
    return Date.now() - statSync(lock).mtimeMs > staleLockMs;
  } catch {
    // The owner file is not written yet, or the lock went away meanwhile.
    return false;
  }
}

/** The block of one agent in one hosts file. Writes in place (the file may be a mount point). */
export class HostsBlock {
  private last: string | undefined;
  private entries: HostsEntry[] | undefined;

  constructor(
    private readonly path: string,
    private readonly nodeName: string,
    private readonly pid: number = process.pid,
  ) {}

  /** Removes blocks of dead agents and this agent's own leftover block. */
  removeStale(): void {
    this.rewrite((content) => replaceBlock(removeDeadBlocks(content, processAlive), this.nodeName, this.pid));
  }

  /**
   * Writes `entries` as this agent's block (skipped when unchanged). Returns the names another live agent already
   * publishes (see `namesTakenElsewhere`); they are written anyway, and the caller reports them.
   */
  write(entries: HostsEntry[]): Map<string, string> {
    const rendered = JSON.stringify(entries);
    if (rendered === this.last) return new Map();
    this.last = rendered;
    this.entries = entries;
    let taken = new Map<string, string>();
    this.rewrite((content) => {
      taken = namesTakenElsewhere(content, this.nodeName, this.pid, entries);
      return replaceBlock(content, this.nodeName, this.pid, entries);
    });
    return taken;
  }

  /** Rewrites the block when the file does not hold it as last written (another writer lost it). */
  verify(): boolean {
    const entries = this.entries;
    if (!entries) return true;
    if (readFileSync(this.path, 'utf8').includes(renderBlock(this.nodeName, this.pid, entries))) return true;
    this.rewrite((current) => replaceBlock(current, this.nodeName, this.pid, entries));
    return false;
  }

  /** Removes this agent's block. Synchronous: also used on process exit. */
  remove(): void {
    this.last = undefined;
    this.entries = undefined;
    this.rewrite((content) => replaceBlock(content, this.nodeName, this.pid));
  }

  private rewrite(change: (content: string) => string): void {
    withLock(this.path, () => {
      const content = readFileSync(this.path, 'utf8');
      const next = change(content);
      if (next !== content) writeFileSync(this.path, next);
    });
  }
}
