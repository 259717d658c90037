// The soak's watcher (docs/design/soak.md, "The invariants"): reads the keys under a prefix at a revision and
// watches from the next (a resync); after an error (e.g. the revision it resumes from was compacted) it resyncs.
// Its log is what watchViolations (watch.ts) judges. The etcd3 client resumes a watch by itself after a lost
// connection, from the last revision it delivered, as any client would.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Etcd3, Watcher } from 'etcd3';
import type { WatchEntry } from './watch.js';

export interface SoakWatcher {
  readonly log: readonly WatchEntry[];
  /** Watches on through `client` from the revision after the last one delivered, without a resync: as the
   *  client library does when its connection comes back (here to another endpoint). */
  resume(client: Etcd3): Promise<void>;
  stop(): Promise<void>;
}

export async function startWatcher(client: Etcd3, prefix: string): Promise<SoakWatcher> {
  const log: WatchEntry[] = [];
  let watcher: Watcher | undefined;
  let stopped = false;
  let last = 0n;

  const told = (from: Etcd3, error: Error) => {
    // etcd ended the watch: nothing left to cancel (etcd3's cancel() of it would wait for an answer forever).
    watcher = undefined;
    log.push({ kind: 'error', message: error.message });
    if (!stopped) void sleep(200).then(() => (stopped ? undefined : resync(from)));
  };
  const watchFrom = async (from: Etcd3, revision: bigint) => {
    let created: Watcher;
    try {
      created = await from.watch().prefix(prefix).startRevision(String(revision)).create();
    } catch (error) {
      // etcd may refuse in the creation's own response (e.g. below its compaction): told all the same.
      told(from, error as Error);
      return;
    }
    watcher = created;
    created.on('put', (kv) => {
      last = BigInt(kv.mod_revision);
      log.push({ kind: 'event', revision: last, key: kv.key.toString() });
    });
    created.on('error', (error) => told(from, error));
  };
  const resync = async (from: Etcd3) => {
    await watcher?.cancel().catch(() => undefined);
    const read = await from.getAll().prefix(prefix).exec();
    last = BigInt(read.header.revision);
    log.push({ kind: 'resync', revision: last });
    await watchFrom(from, last + 1n);
  };

  await resync(client);
  return {
    log,
    async resume(next) {
      await watcher?.cancel().catch(() => undefined);
      stopped = false;
      await watchFrom(next, last + 1n);
    },
    async stop() {
      stopped = true;
      await watcher?.cancel().catch(() => undefined);
    },
  };
}
