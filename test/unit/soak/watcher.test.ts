// The soak's watcher (test/soak/watcher.ts) against a scripted client: which of its reads and watches may speak.
// Against real etcd it is proven in test/integration/soak-etcd.test.ts; the interleaving here (a resync still
// reading when a resume begins) is one real etcd rarely produces on demand.
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { ClientRuntimeError, type Etcd3 } from 'etcd3';
import { waitFor } from '../../env/wait.js';
import { watchViolations } from '../../soak/watch.js';
import { startWatcher } from '../../soak/watcher.js';

class ScriptedWatch extends EventEmitter {
  cancelled = false;
  constructor(readonly from: string) {
    super();
  }
  async cancel() {
    this.cancelled = true;
  }
  put(key: string, revision: number) {
    this.emit('put', { key: Buffer.from(key), mod_revision: String(revision) });
  }
}

/** A client whose reads answer when the test says, at the revision it says, and whose watches it can drive. */
function scriptedClient() {
  const reads: ((revision: number) => void)[] = [];
  const watches: ScriptedWatch[] = [];
  const client = {
    // etcd3's own answer to an answer it cannot place: a throw (stray-answers.ts turns it into a resync).
    watchManager: {
      handleResponse() {
        throw new ClientRuntimeError('Failed to find watcher for IWatchResponse');
      },
      handleCreatedResponse() {},
    },
    getAll: () => ({
      prefix: () => ({
        exec: () =>
          new Promise((resolve) =>
            reads.push((revision) => resolve({ header: { revision: String(revision) } })),
          ),
      }),
    }),
    watch: () => ({
      prefix: () => ({
        startRevision: (from: string) => ({
          create: async () => {
            const watch = new ScriptedWatch(from);
            watches.push(watch);
            return watch;
          },
        }),
      }),
    }),
  };
  return { client: client as unknown as Etcd3, reads, watches };
}

const until = (what: string, ok: () => boolean) => waitFor(ok, { what, timeoutMs: 2_000, intervalMs: 20 });

/** A watcher on a scripted client whose first read answers at revision 10 (so it watches from 11). */
async function startedAt10() {
  const a = scriptedClient();
  const starting = startWatcher(a.client, 'soak/');
  await until('the first read', () => a.reads.length === 1);
  a.reads[0]?.(10);
  return { a, watcher: await starting };
}

describe('startWatcher', () => {
  it('a resync still reading when a resume begins neither logs its older read nor takes over the watch', async () => {
    const { a, watcher } = await startedAt10();
    const first = a.watches[0];
    assert.equal(first?.from, '11');
    first?.put('soak/1/1', 11);
    first?.emit('error', new Error('Watcher canceled: the member went away'));
    await until('the resync’s read', () => a.reads.length === 2);

    // The writer's next generation starts: the watcher resumes through a new client while that read is out.
    const b = scriptedClient();
    await watcher.resume(b.client);
    const resumed = b.watches[0];
    assert.equal(resumed?.from, '12');
    resumed?.put('soak/2/1', 12);
    a.reads[1]?.(11); // the old read answers, from before revision 12
    await sleep(50);

    assert.deepEqual(watcher.log, [
      { kind: 'resync', revision: 10n },
      { kind: 'event', revision: 11n, key: 'soak/1/1' },
      { kind: 'error', message: 'Watcher canceled: the member went away' },
      { kind: 'event', revision: 12n, key: 'soak/2/1' },
    ]);
    assert.equal(a.watches.length, 1, 'no watch from the stale read');
    const acked = [
      { key: 'soak/1/1', revision: 11n },
      { key: 'soak/2/1', revision: 12n },
    ];
    assert.deepEqual(watchViolations(watcher.log, acked), []);
    resumed?.put('soak/2/2', 13);
    assert.equal(watcher.log.at(-1)?.kind, 'event', 'the resumed watch still speaks');
    await watcher.stop();
    assert.equal(resumed?.cancelled, true);
  });

  it('of two resyncs reading at once, only the newer logs and watches', async () => {
    const { a, watcher } = await startedAt10();
    a.watches[0]?.emit('error', new Error('Watcher canceled: first'));
    await until('the first resync’s read', () => a.reads.length === 2);
    // An answer etcd3 cannot place (stray-answers.ts) asks for another resync while the first still reads.
    (
      a.client as unknown as { watchManager: { handleResponse(r: unknown): void } }
    ).watchManager.handleResponse({});
    await until('the second resync’s read', () => a.reads.length === 3);
    a.reads[2]?.(20);
    await until('the second resync’s watch', () => a.watches.length === 2);
    a.watches[1]?.put('soak/1/1', 21);
    a.reads[1]?.(15); // the first read answers last, from before revision 20
    await sleep(50);

    assert.deepEqual(
      watcher.log.map((e) => e.kind + ('revision' in e ? ` ${e.revision}` : '')),
      ['resync 10', 'error', 'error', 'resync 20', 'event 21'],
    );
    assert.equal(a.watches.length, 2, 'none from the stale read');
    assert.deepEqual(watchViolations(watcher.log, [{ key: 'soak/1/1', revision: 21n }]), []);
    await watcher.stop();
  });
});
