// Pod addresses: each Pod gets its own 127.<net>.<b>.<c>, so members listening on $(POD_IP) never collide.
// An address goes back to the pool only when its Pod is gone, and is handed out again as late as possible.
// Agents in other processes (parallel test files) share 127/8: each address is also claimed machine-wide.
import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/** Machine-wide claims on addresses, so two agents never hand out the same one. */
export interface AddressClaims {
  /** True when `address` is now ours (it was free, or its owner process is gone). */
  claim(address: string): boolean;
  release(address: string): void;
}

/** Claims as files `<dir>/<address>` holding the owner's pid, created exclusively. */
export function fileClaims(dir: string, alive: (pid: number) => boolean): AddressClaims {
  mkdirSync(dir, { recursive: true });
  const path = (address: string) => join(dir, address);
  const open = (address: string) => {
    try {
      return openSync(path(address), 'wx');
    } catch (error) {
      // Another process's cleanup may have removed the directory since: make it again.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      mkdirSync(dir, { recursive: true });
      return openSync(path(address), 'wx');
    }
  };
  const create = (address: string) => {
    const fd = open(address);
    writeSync(fd, String(process.pid));
    closeSync(fd);
  };
  return {
    claim(address) {
      try {
        create(address);
        return true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      let owner = 0;
      try {
        owner = Number(readFileSync(path(address), 'utf8'));
      } catch {
        return false;
      }
      if (owner === process.pid || (owner > 0 && alive(owner))) return false;
      try {
        unlinkSync(path(address));
        create(address);
        return true;
      } catch {
        return false;
      }
    },
    release(address) {
      try {
        if (Number(readFileSync(path(address), 'utf8')) === process.pid) unlinkSync(path(address));
      } catch {
        // Already gone.
      }
    },
  };
}

/** Claims that only this pool knows about (unit tests). */
export const processLocalClaims: AddressClaims = { claim: () => true, release: () => undefined };

/** Second octet for a node's pod addresses: `node-<n>` gets n (1..254), any other name a stable hash. */
export function nodeNetworkOctet(nodeName: string): number {
  const numbered = /-(\d+)$/.exec(nodeName);
  if (numbered) {
    const n = Number(numbered[1]);
    if (n >= 1 && n <= 254) return n;
  }
  let hash = 0;
  for (const char of nodeName) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return 1 + (hash % 254);
}

export class AddressPool {
  private readonly inUse = new Map<string, string>();
  private cursor = 0;
  private readonly size = 254 * 254;

  /**
   * @param octet second octet of every address: 127.<octet>.<b>.<c>, b and c in 1..254
   * @param claims machine-wide claims (default: none beyond this pool)
   */
  constructor(
    private readonly octet: number,
    private readonly claims: AddressClaims = processLocalClaims,
  ) {
    if (!Number.isInteger(octet) || octet < 1 || octet > 254) {
      throw new Error(`pod network octet must be an integer in 1..254, got ${octet}`);
    }
  }

  /** The address of `owner` (a Pod uid), allocating the next free one on first call. */
  allocate(owner: string): string {
    for (const [address, holder] of this.inUse) if (holder === owner) return address;
    for (let tried = 0; tried < this.size; tried++) {
      const index = this.cursor;
      this.cursor = (this.cursor + 1) % this.size;
      const address = `127.${this.octet}.${1 + Math.floor(index / 254)}.${1 + (index % 254)}`;
      if (!this.inUse.has(address) && this.claims.claim(address)) {
        this.inUse.set(address, owner);
        return address;
      }
    }
    throw new Error(`all ${this.size} pod addresses of 127.${this.octet}.0.0/16 are in use`);
  }

  /** Returns `owner`'s address to the pool. */
  release(owner: string): void {
    for (const [address, holder] of this.inUse) {
      if (holder !== owner) continue;
      this.inUse.delete(address);
      this.claims.release(address);
    }
  }

  /** Releases every address (agent stop). */
  releaseAll(): void {
    for (const address of this.inUse.keys()) this.claims.release(address);
    this.inUse.clear();
  }
}
