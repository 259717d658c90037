// The soak's watcher (docs/design/soak.md, "The invariants"): reads the keys under a prefix at a revision and
// watches from the next (a resync); after an error (e.g. the revision it resumes from was compacted) it resyncs.
// Its log is what watchViolations (watch.ts) judges. The etcd3 client resumes a watch by itself after a lost
// connection, from the last revision it delivered, as any client would.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Etcd3, Watcher } from 'etcd3';
import { dropStrayWatchAnswers } from './stray-answers.js';
import type { WatchEntry } from './watch.js';

/** How long a cancel or a creation may take before the watcher gives up on it (a connection to a dead member). */
const CANCEL_WAIT_MS = 2_000;
const CREATE_WAIT_MS = 10_000;

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
  /**
   * Bumped by every resync and resume as it begins: only the newest may log and watch. One still reading when a
   * resume (or another resync) began would otherwise log its older read after the newer watch's events (seed 3
   * reported `resynced at revision …787, below revision …788 seen before` right after a resume so).
   */
  let generation = 0;
  /** The client the watcher watches through now (the one given to the last resume). */
  let current = client;
  let resyncScheduled = false;

  /** Cancels the current watch, waiting at most a moment: a watch on a connection that died never answers. */
  const cancelCurrent = async () => {
    const cancelling = watcher;
    watcher = undefined;
    if (cancelling) await Promise.race([cancelling.cancel().catch(() => undefined), sleep(CANCEL_WAIT_MS)]);
  };
  /** A resync soon, unless one is already due or something newer (re)starts the watch first. */
  const scheduleResync = (from: Etcd3) => {
    if (stopped || resyncScheduled) return;
    resyncScheduled = true;
    const at = generation;
    void sleep(200).then(() => {
      resyncScheduled = false;
      return stopped || at !== generation ? undefined : resync(from);
    });
  };
  const told = (from: Etcd3, error: Error) => {
    // etcd ended the watch: nothing left to cancel (etcd3's cancel() of it would wait for an answer forever).
    watcher = undefined;
    log.push({ kind: 'error', message: error.message });
    scheduleResync(from);
  };
  /** An answer etcd3 could not place was dropped (stray-answers.ts): the watcher no longer vouches for its watch. */
  const stray = (message: string) => {
    log.push({ kind: 'error', message });
    scheduleResync(current);
  };
  const watchFrom = async (from: Etcd3, revision: bigint, at: number) => {
    dropStrayWatchAnswers(from, stray);
    const creating = from.watch().prefix(prefix).startRevision(String(revision)).create();
    let created: Watcher;
    try {
      created = await Promise.race([
        creating,
        sleep(CREATE_WAIT_MS).then(() => {
          throw new Error(`the watch was not created within ${CREATE_WAIT_MS} ms`);
        }),
      ]);
    } catch (error) {
      // A watch created after all is cancelled unheard, so no event is ever delivered twice.
      creating.then((late) => late.cancel()).catch(() => undefined);
      // etcd may refuse in the creation's own response (e.g. below its compaction): told all the same.
      if (at === generation) told(from, error as Error);
      return;
    }
    if (stopped || at !== generation) {
      // Something newer started the watch again meanwhile: this one is not asked for (its cancel may never answer).
      created.cancel().catch(() => undefined);
      return;
    }
    watcher = created;
    // Only the current watch speaks for the watcher. One given up on (its cancel unanswered on a dead connection)
    // lives on inside etcd3, which resumes it from its own last revision once the connection comes back: what it
    // then delivers again was never asked for (a healed network cut re-delivered thousands of events).
    created.on('put', (kv) => {
      if (watcher !== created) return;
      last = BigInt(kv.mod_revision);
      log.push({ kind: 'event', revision: last, key: kv.key.toString() });
    });
    created.on('error', (error) => {
      if (watcher === created) told(from, error);
    });
  };
  /** Reads the keys at a revision and watches from the next; a failed read is told and retried. */
  const resync = async (from: Etcd3): Promise<void> => {
    generation += 1;
    const at = generation;
    await cancelCurrent();
    let read: Awaited<ReturnType<ReturnType<Etcd3['getAll']>['exec']>>;
    try {
      read = await from.getAll().prefix(prefix).exec();
    } catch (error) {
      if (at === generation) told(from, new Error(`resync: ${(error as Error).message}`));
      return;
    }
    if (stopped || at !== generation) return;
    last = BigInt(read.header.revision);
    log.push({ kind: 'resync', revision: last });
    await watchFrom(from, last + 1n, at);
  };

  await resync(client);
  return {
    log,
    async resume(next) {
      generation += 1;
      const at = generation;
      resyncScheduled = false;
      current = next;
      await cancelCurrent();
      stopped = false;
      await watchFrom(next, last + 1n, at);
    },
    async stop() {
      stopped = true;
      generation += 1;
      await cancelCurrent();
    },
  };
}
