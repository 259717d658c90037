// The soak's writer, watcher and invariants (test/soak/) against real etcd: on an honest etcd they report nothing,
// a watcher told of a compaction resyncs without a violation, a restore as the product does it (step 4 of the
// restore command, with its revision bump) tells a resuming watcher, and a restore without the bump (the snapshot
// restored into a new etcd, the watcher resuming from its last revision) is reported as the silent gap it is.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import type { Etcd3 } from 'etcd3';
import { pino } from 'pino';
import { RESTORE_REVISION_BUMP } from '../../controller/restore/etcd-version.js';
import { beginRestore, restoreInto } from '../../controller/restore/stage.js';
import { freePorts } from '../env/ports.js';
import { waitFor } from '../env/wait.js';
import { watchViolations } from '../soak/watch.js';
import { type SoakWatcher, startWatcher } from '../soak/watcher.js';
import { startWriter } from '../soak/writer.js';
import { type BackupPoint, WriteRecord } from '../soak/writes.js';
import { type StandaloneEtcd, startEtcd } from './helpers/etcd.js';
import { startEtcdOnDataDir } from './helpers/restore.js';

const run = promisify(execFile);
const prefix = 'soak/w/';

async function content(client: Etcd3): Promise<Map<string, string>> {
  return new Map(Object.entries(await client.getAll().prefix(prefix).strings()));
}

async function revisionOf(client: Etcd3): Promise<bigint> {
  return BigInt((await client.get('none').exec()).header.revision);
}

describe('the soak writer, watcher and invariants (real etcd)', () => {
  const started: { stop(): Promise<void> }[] = [];
  const clients: Etcd3[] = [];
  let dir: string;
  let source: StandaloneEtcd;
  let client: Etcd3;
  /** The etcd the writes go to: the source until a restore replaces it. */
  let current: { client: Etcd3; url: string };
  /** The snapshot the bump test restored, restored again by the floor test. */
  let firstRestore: { snapshot: string; revision: bigint; backup: BackupPoint } | undefined;
  const record = new WriteRecord();
  let watcher: SoakWatcher;

  let writers = 0;
  /** Writes for `ms` through `to` (each writer under its own prefix: every key is put once), then stops. */
  async function writeFor(to: Etcd3, ms: number): Promise<void> {
    writers += 1;
    const writer = startWriter(to, `${prefix}${writers}/`, record, { intervalMs: 5 });
    await new Promise((resolve) => setTimeout(resolve, ms));
    await writer.stop();
    assert.ok(writer.counts().acknowledged > 10, JSON.stringify(writer.counts()));
  }
  /** Waits until the watcher has delivered revision `revision`. */
  const caughtUp = (revision: bigint) =>
    waitFor(
      () => {
        const last = watcher.log.findLast((e) => e.kind !== 'error');
        return last !== undefined && 'revision' in last && last.revision >= revision;
      },
      { what: `the watcher at revision ${revision}`, timeoutMs: 10_000, intervalMs: 50 },
    );

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'soak-etcd-'));
    source = await startEtcd({ version: '3.6' });
    started.push(source);
    client = source.client();
    clients.push(client);
    current = { client, url: source.clientURL };
    watcher = await startWatcher(client, prefix);
  });
  after(async () => {
    await watcher?.stop();
    for (const c of clients) c.close();
    for (const etcd of started) await etcd.stop();
    await rm(dir, { recursive: true, force: true });
  });

  /** Restores `snapshot` (at `revision`) with the restore command into a fresh data dir and starts etcd on it. */
  async function restoreCommand(name: string, snapshot: string, revision: bigint, revisionFloor?: bigint) {
    const work = join(dir, name);
    const dataDir = join(work, 'data');
    const [peerPort] = await freePorts(1);
    const seed = { name, peerURL: `http://127.0.0.1:${peerPort}`, token: name };
    const begun = await beginRestore(dataDir, pino({ level: 'silent' }));
    assert.ok(!('outcome' in begun), 'a fresh data dir');
    const target = {
      dataDir,
      clusterVersion: source.version,
      seed,
      restoreTool: source.binary('etcdutl'),
      ...(revisionFloor === undefined ? {} : { revisionFloor: String(revisionFloor) }),
    };
    const bump = await restoreInto({ ...target, ...begun }, snapshot, String(revision));
    const restored = await startEtcdOnDataDir(source.version, dataDir, seed.name, peerPort as number, work);
    started.push(restored);
    const next = restored.client();
    clients.push(next);
    return { bump, restored, next };
  }

  /** The watcher resumes on `next` from its last revision: it must be told, resync, and see no violation after. */
  async function resumeTold(next: Etcd3): Promise<void> {
    const resumedAt = watcher.log.length;
    await watcher.resume(next);
    await waitFor(() => watcher.log.slice(resumedAt).some((e) => e.kind === 'resync'), {
      what: 'a resync after the resume',
      timeoutMs: 10_000,
      intervalMs: 50,
    });
    const told = watcher.log.slice(resumedAt).find((e) => e.kind === 'error');
    assert.match(
      told && 'message' in told ? told.message : '',
      /Watcher canceled/,
      'told before it resynced',
    );
    await writeFor(next, 300); // revisions above every one the watcher had seen
    await caughtUp(await revisionOf(next));
    assert.deepEqual(watchViolations(watcher.log, record.ackedNow()), []);
    assert.deepEqual(record.check(await content(next)), []);
  }

  test('GIVEN an honest etcd WHEN the writer writes while the watcher watches THEN every acknowledged write is there and the watcher was given each, in order', async () => {
    await writeFor(client, 1_000);
    await caughtUp(await revisionOf(client));
    assert.deepEqual(record.check(await content(client)), []);
    assert.deepEqual(watchViolations(watcher.log, record.ackedNow()), []);
    assert.equal(watcher.log.filter((e) => e.kind === 'event').length, record.ackedNow().length);
  });

  test("GIVEN a watch answer etcd3 cannot place (what killed a soak run) WHEN it reaches the watcher's client THEN it is dropped and told, the watcher resyncs, and no violation is reported", async () => {
    const writing = writeFor(client, 600);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const at = watcher.log.length;
    // What a stream would hand etcd3 for a watch it no longer knows; unguarded, etcd3 throws it out of the stream.
    const manager = (client as unknown as { watchManager: { handleResponse(r: unknown): void } })
      .watchManager;
    manager.handleResponse({ watch_id: '9999', created: false, canceled: false, events: [] });
    await waitFor(() => watcher.log.slice(at).some((e) => e.kind === 'resync'), {
      what: 'a resync after the stray answer',
      timeoutMs: 10_000,
      intervalMs: 50,
    });
    const told = watcher.log.slice(at).find((e) => e.kind === 'error');
    assert.match(told && 'message' in told ? told.message : '', /could not place: Failed to find watcher/);
    await writing;
    await caughtUp(await revisionOf(client));
    assert.deepEqual(watchViolations(watcher.log, record.ackedNow()), []);
    assert.deepEqual(record.check(await content(client)), []);
  });

  test('GIVEN a watcher that resumes below a compaction THEN it is told (an error), resyncs above it, and no violation is reported', async () => {
    await watcher.stop();
    await writeFor(client, 300);
    const compactAt = await revisionOf(client);
    await run(source.binary('etcdctl'), ['--endpoints', source.clientURL, 'compact', String(compactAt)]);
    const resumedAt = watcher.log.length;
    await watcher.resume(client);
    await waitFor(() => watcher.log.some((e) => e.kind === 'resync' && e.revision >= compactAt), {
      what: 'a resync at or above the compaction',
      timeoutMs: 10_000,
      intervalMs: 50,
    });
    const error = watcher.log.slice(resumedAt).find((e) => e.kind === 'error');
    // etcd cancels a watch below its compaction (with compact_revision set; the client reports it as a cancel).
    assert.match(error && 'message' in error ? error.message : '', /Watcher canceled/);
    await writeFor(client, 300);
    await caughtUp(await revisionOf(client));
    assert.deepEqual(watchViolations(watcher.log, record.ackedNow()), []);
    assert.deepEqual(record.check(await content(client)), []);
  });

  test('GIVEN a snapshot and writes after it WHEN the restore command restores it (revision bumped, marked compacted) and the watcher resumes from its last revision THEN it is told, resyncs, and no violation is reported', async () => {
    const snapshot = join(dir, 'bumped.db');
    const revision = await revisionOf(client);
    await run(source.binary('etcdctl'), ['--endpoints', source.clientURL, 'snapshot', 'save', snapshot]);
    const backup = record.backupAt(revision);
    firstRestore = { snapshot, revision, backup };
    await writeFor(client, 300); // acknowledged, then lost by the restore: legitimately gone
    await caughtUp(await revisionOf(client));

    const { bump, restored, next } = await restoreCommand('bumped', snapshot, revision);
    assert.equal(bump, RESTORE_REVISION_BUMP);
    assert.equal(
      await revisionOf(next),
      revision + BigInt(RESTORE_REVISION_BUMP),
      'the snapshot’s plus the bump',
    );
    record.restoredFrom(backup);
    assert.deepEqual(record.check(await content(next)), [], 'exactly the writes up to the snapshot');
    await resumeTold(next);
    // The restored etcd is the cluster from now on.
    current = { client: next, url: restored.clientURL };
  });

  test('GIVEN the cluster restored from a snapshot and written to WHEN the same snapshot is restored again with the revision floor (the highest revision given out) THEN the watcher is told, resyncs, and no violation is reported, where the bump from the snapshot alone would have started below revisions it saw', async () => {
    assert.ok(firstRestore, 'the restore of the previous test');
    const { snapshot, revision, backup } = firstRestore;
    await writeFor(current.client, 300); // given out after the first restore, then lost by the second
    const floor = await revisionOf(current.client);
    await caughtUp(floor);
    // The premise (restore.md, "Known gap"): counted from the snapshot, the second restore would reuse these numbers.
    assert.ok(revision + BigInt(RESTORE_REVISION_BUMP) < floor, 'the snapshot-only base is below the floor');

    const { bump, restored, next } = await restoreCommand('floored', snapshot, revision, floor);
    assert.equal(BigInt(bump), floor + BigInt(RESTORE_REVISION_BUMP) - revision);
    assert.equal(await revisionOf(next), floor + BigInt(RESTORE_REVISION_BUMP), 'the floor plus the bump');
    record.restoredFrom(backup);
    assert.deepEqual(record.check(await content(next)), [], 'exactly the writes up to the snapshot');
    await resumeTold(next);
    current = { client: next, url: restored.clientURL };
  });

  test('GIVEN a snapshot and writes after it WHEN it is restored without a revision bump and the watcher resumes from its last revision THEN the write record holds and the watcher is reported silently behind', async () => {
    const snapshot = join(dir, 'snapshot.db');
    const revision = await revisionOf(current.client);
    await run(source.binary('etcdctl'), ['--endpoints', current.url, 'snapshot', 'save', snapshot]);
    const backup = record.backupAt(revision);
    await writeFor(current.client, 300); // acknowledged, then lost by the restore: legitimately gone
    await caughtUp(await revisionOf(current.client));
    const restored = await startEtcd({ version: '3.6', restoreFrom: snapshot });
    started.push(restored);
    const next = restored.client();
    clients.push(next);
    record.restoredFrom(backup);
    assert.deepEqual(record.check(await content(next)), [], 'exactly the writes up to the snapshot');
    await watcher.resume(next);
    await writeFor(next, 600); // revisions from the snapshot's on: numbers the watcher has seen
    assert.deepEqual(record.check(await content(next)), []);
    const violations = watchViolations(watcher.log, record.ackedNow());
    console.log(violations.slice(0, 3).join('\n'));
    assert.ok(
      violations.some((v) => /never given, though the watcher saw revision/.test(v)),
      `a silent gap is reported: ${violations.slice(0, 3).join('; ')}`,
    );
  });
});
