// The etcd facts the rolling update stands on (docs/design/rolling-update.md, "The decision" and "The version
// path"), on real 3-member etcd 3.4, 3.5 and 3.6 clusters on loopback: `isCaughtUp` answers true only once a member
// applied what the leader had committed (a follower frozen, then resumed; a follower stopped, then restarted,
// each after 20 000 writes went to the others), never for a learner; `moveLeader` hands leadership to exactly the
// chosen member; a 3.5 cluster whose members are replaced one at a time by 3.6 on their data dirs stays at cluster
// version 3.5 until the last one, after which a 3.5 binary refuses a member's data dir.
import assert from 'node:assert/strict';
import { readdir, readFile, stat } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Etcd3 } from 'etcd3';
import { withClient } from '../../controller/etcd/client.js';
import {
  addLearner,
  isCaughtUp,
  memberStatus,
  moveLeader,
  promoteMember,
} from '../../controller/etcd/members.js';
import { etcdVersions } from '../env/binaries.js';
import { waitFor } from '../env/wait.js';
import { etcdClient } from './helpers/etcd.js';
import { memberVersions, raftProgress } from './helpers/etcd-http.js';
import { compareEtcd, fillEtcd, putKeys } from './helpers/fill.js';
import { createTestCluster, type TestCluster, type TestMember } from './helpers/membership-etcd.js';
import { startWriter } from './helpers/membership-writer.js';

const names = ['m0', 'm1', 'm2'];
/** Writes the lagging member misses: one put of 1 KiB each, so one raft entry each. */
const WRITES = 20_000;
const VALUE_BYTES = 1024;
/** Deadline of each `isCaughtUp` while polling a catching-up member (the controller uses 5 s, which would wait). */
const POLL_DEADLINE_MS = 50;
/** Deadline of `isCaughtUp` on a member that cannot answer. */
const DOWN_DEADLINE_MS = 1_000;
/** Deadline of the reads sent to a frozen member before it resumes (a 3.5 member took 3.6 s in a trial). */
const RESUMED_DEADLINE_MS = 15_000;
/**
 * How long a started learner may take to serve clients before the test writes once to unstick it. etcd 3.6.16 was
 * seen to wedge here: the learner caught up by a snapshot that covered the leader's whole log (its metrics: applied =
 * committed), then refused its own publish tens of thousands of times ("failed to publish local member to cluster
 * through raft ... etcdserver: too many requests": `processInternalRaftRequestOnce` compares the commit index with
 * `s.appliedIndex`, which `applySnapshot` does not move), so it never served clients while the cluster was idle;
 * the next write, applied as an entry, unsticks it at once. Longer than etcd's first publish attempt (7 s here, the
 * request timeout), after which the refusals begin.
 */
const STUCK_MS = 10_000;
/** The Range `isCaughtUp` sends: from the first key, keys only, one. */
const FIRST_KEY = { key: Buffer.from([0]), range_end: Buffer.from([0]), limit: 1, keys_only: true };

const hex = (id: string) => BigInt(id).toString(16);
const status = (url: string) => withClient(url, (client) => client.maintenance.status());

/** Writes `WRITES` keys of `VALUE_BYTES` through `url`, 64 in flight, each its own raft entry. */
async function writeGap(url: string, prefix: string): Promise<number> {
  const client = etcdClient(url);
  const started = Date.now();
  try {
    await fillEtcd(client, WRITES * VALUE_BYTES, {
      prefix,
      valueBytes: VALUE_BYTES,
      batch: 1,
      concurrency: 64,
    });
    return Date.now() - started;
  } finally {
    client.close();
  }
}

interface Poll {
  /** Milliseconds since the member was resumed or restarted. */
  atMs: number;
  /** The leader's commit index (its Status `raftIndex`) just before the call. */
  leaderCommit: number;
  /** The leader's KV revision (its Status header) just before the call. */
  leaderRevision: number;
  /** The member's applied index (its metrics) just before the call; `undefined` while it serves no metrics. */
  appliedBefore: number | undefined;
  /** A Status (answered locally, no ReadIndex) sent beside the call answered within the same deadline. */
  statusAnswered: boolean;
  caughtUp: boolean;
  /** Right after a `true`, the member's own figures. */
  after?: {
    /** `etcd_server_proposals_applied_total`, the index etcd's read loop waits for. */
    applied: number;
    /** Status `raftAppliedIndex`: etcd 3.5.35 and 3.6.16 do not move it when they apply a snapshot
     *  (`applySnapshot` sets the apply loop's index, not `s.appliedIndex`), so it lags until the next entry. */
    statusApplied: number;
    /** Status header `revision`: the member's KV store. */
    revision: number;
  };
}

/** Polls `isCaughtUp(member)` with a short deadline until it says true; every poll with what was true around it. */
async function pollUntilCaughtUp(member: TestMember, leaderURL: string, since: number): Promise<Poll[]> {
  const polls: Poll[] = [];
  const deadline = Date.now() + 60_000;
  for (;;) {
    const leader = await status(leaderURL);
    const leaderCommit = Number(leader.raftIndex);
    const leaderRevision = Number(leader.header.revision);
    const appliedBefore = await raftProgress(member.metricsURL, 200).then(
      (progress) => progress.applied,
      () => undefined,
    );
    const atMs = Date.now() - since;
    const [caughtUp, statusAnswered] = await Promise.all([
      isCaughtUp(member.clientURL, POLL_DEADLINE_MS),
      withClient(member.clientURL, (client) => client.maintenance.status(), POLL_DEADLINE_MS).then(
        () => true,
        () => false,
      ),
    ]);
    const own = caughtUp ? await status(member.clientURL) : undefined;
    const after = own && {
      applied: (await raftProgress(member.metricsURL)).applied,
      statusApplied: Number(own.raftAppliedIndex),
      revision: Number(own.header.revision),
    };
    polls.push({ atMs, leaderCommit, leaderRevision, appliedBefore, statusAnswered, caughtUp, after });
    if (caughtUp) return polls;
    if (Date.now() > deadline)
      throw new Error(`${member.name} not caught up: ${JSON.stringify(polls.slice(-5))}`);
  }
}

/** Polls that said "not caught up" while the member ran (served metrics) and had applied less than the leader's commit. */
const behindPolls = (polls: readonly Poll[]) =>
  polls.filter(
    (poll) => !poll.caughtUp && poll.appliedBefore !== undefined && poll.appliedBefore < poll.leaderCommit,
  );

function describePolls(polls: readonly Poll[]): string {
  const behind = behindPolls(polls);
  const gap = Math.max(0, ...behind.map((poll) => poll.leaderCommit - (poll.appliedBefore ?? 0)));
  const last = polls.at(-1);
  const notYet = polls.filter((poll) => !poll.caughtUp);
  const silent = notYet.filter((poll) => poll.appliedBefore === undefined).length;
  const slow = notYet.length - behind.length - silent;
  return (
    `${polls.length} polls; ${behind.length} not caught up while running and behind (largest gap ${gap} entries, ` +
    `Status answered in ${behind.filter((poll) => poll.statusAnswered).length} of them), ${silent} while no ` +
    `metrics answered, ${slow} past the ${POLL_DEADLINE_MS} ms deadline though applied; caught up at ` +
    `${last?.atMs} ms: applied ${last?.after?.applied} (Status raftAppliedIndex ${last?.after?.statusApplied}), ` +
    `leader commit ${last?.leaderCommit}; revision ${last?.after?.revision}, leader's ${last?.leaderRevision}`
  );
}

/** Every `true` came with an applied index and a revision at least the leader's seen before the call. */
function assertTrueOnlyWhenApplied(polls: readonly Poll[]): void {
  assert.equal(polls.at(-1)?.caughtUp, true);
  for (const poll of polls.filter((each) => each.caughtUp)) {
    assert.ok(
      (poll.after?.applied ?? 0) >= poll.leaderCommit,
      `caught up too early: ${JSON.stringify(poll)}`,
    );
    assert.ok(
      (poll.after?.revision ?? 0) >= poll.leaderRevision,
      `caught up too early: ${JSON.stringify(poll)}`,
    );
  }
}

/** The end of a member's log now, to read only what it writes from there on ({@link logAfter}). */
const logEnd = async (member: TestMember) => (await stat(member.process?.logPath as string)).size;
const logAfter = async (member: TestMember, mark: number) =>
  (await readFile(member.process?.logPath as string)).subarray(mark).toString('utf8');

async function timedCaughtUp(url: string, timeoutMs: number): Promise<{ caughtUp: boolean; ms: number }> {
  const started = Date.now();
  const caughtUp = await isCaughtUp(url, timeoutMs);
  return { caughtUp, ms: Date.now() - started };
}

/** Every thread of `pid` is in state T (stopped), as /proc says. */
async function allThreadsStopped(pid: number): Promise<boolean> {
  const threads = await readdir(`/proc/${pid}/task`);
  const states = await Promise.all(
    threads.map(async (tid) => {
      const line = await readFile(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      return line.slice(line.lastIndexOf(')') + 2, line.lastIndexOf(')') + 3);
    }),
  );
  return states.every((state) => state === 'T');
}

for (const version of ['3.4', '3.5', '3.6'] as const) {
  describe(`etcd ${etcdVersions[version]}: the roll's gates (isCaughtUp, moveLeader)`, () => {
    let cluster: TestCluster;
    const member = (name: string) => cluster.members.get(name) as TestMember;
    const url = (name: string) => member(name).clientURL;
    const idOf = async (name: string) => (await memberStatus(url(name))).memberId;
    const aFollower = async () => {
      const leader = await cluster.waitForLeader(names);
      return { leader, follower: names.find((name) => name !== leader.name) as string };
    };

    before(async () => {
      cluster = await createTestCluster(version);
      for (const name of [...names, 'm3']) await cluster.reserve(name);
      for (const name of names) cluster.start(name, 'new', names, `rolling-${version}`);
      await cluster.waitForLeader(names);
    });
    after(async () => {
      await cluster?.stop();
    });

    test('GIVEN three voters WHEN leadership moves to each follower in turn THEN exactly that member leads, as every member sees it', async () => {
      for (let move = 0; move < 2; move++) {
        const leader = await cluster.waitForLeader(names);
        const target = names.filter((name) => name !== leader.name)[move % 2] as string;
        const targetId = await idOf(target);

        await moveLeader(url(leader.name), targetId);

        const now = await cluster.waitForLeader(names, 5_000);
        assert.deepEqual(now, { name: target, id: targetId });
        for (const name of names) assert.equal((await memberStatus(url(name))).leaderId, targetId, name);
      }
    });

    test('GIVEN a follower frozen (SIGSTOP) while 20 000 writes go to the others WHEN isCaughtUp is asked before it resumes THEN false at a short deadline while frozen, and after resuming true only with its applied index at the leader commit index, where a serializable read sent beside it answered from the old state', async (t) => {
      const { leader, follower } = await aFollower();
      const frozen = member(follower);
      const pid = frozen.process?.pid as number;
      process.kill(pid, 'SIGSTOP');
      // The signal is queued, not awaited: ask only once every thread of the member is stopped (a CI run of
      // 9cfbbaa saw the 3.4 member answer the gate 68 ms after the kill).
      await waitFor(() => allThreadsStopped(pid), {
        what: `${follower} stopped`,
        timeoutMs: 5_000,
        intervalMs: 10,
      });
      let resumedAt = 0;
      let mark = 0;
      let atLeader = { commit: 0, revision: 0 };
      let gate: Promise<{ caughtUp: boolean; at: number; applied: number; revision: number }> | undefined;
      let control: Promise<number> | undefined;
      try {
        const whileFrozen = await timedCaughtUp(frozen.clientURL, DOWN_DEADLINE_MS);
        assert.equal(whileFrozen.caughtUp, false);
        assert.ok(whileFrozen.ms < DOWN_DEADLINE_MS + 2_000, `false after ${whileFrozen.ms} ms`);
        t.diagnostic(`frozen: isCaughtUp false after ${whileFrozen.ms} ms (deadline ${DOWN_DEADLINE_MS} ms)`);
        t.diagnostic(`${WRITES} writes in ${await writeGap(url(leader.name), 'frozen/')} ms`);
        mark = await logEnd(frozen);
        const ofLeader = await status(url(leader.name));
        atLeader = { commit: Number(ofLeader.raftIndex), revision: Number(ofLeader.header.revision) };
        // Both reads wait in the frozen member's socket and are the first thing it serves when it resumes: the
        // gate, and a read that does not wait for anything (what a wrong gate would be), as the control.
        gate = isCaughtUp(frozen.clientURL, RESUMED_DEADLINE_MS).then(async (caughtUp) => ({
          caughtUp,
          at: Date.now(),
          applied: (await raftProgress(frozen.metricsURL)).applied,
          revision: Number((await status(frozen.clientURL)).header.revision),
        }));
        control = withClient(
          frozen.clientURL,
          (client) => client.kv.range({ ...FIRST_KEY, serializable: true }),
          RESUMED_DEADLINE_MS,
        ).then((response) => Number(response.header.revision));
        await sleep(200);
      } finally {
        process.kill(pid, 'SIGCONT');
        resumedAt = Date.now();
      }

      const [answer, controlRevision] = await Promise.all([gate, control]);

      t.diagnostic(
        `resumed: isCaughtUp ${answer?.caughtUp} ${(answer?.at ?? 0) - resumedAt} ms after resuming, then applied ` +
          `${answer?.applied} (leader commit before: ${atLeader.commit}), revision ${answer?.revision} (leader: ` +
          `${atLeader.revision}); the serializable read answered at revision ${controlRevision}`,
      );
      // A ReadIndex request lost while the peer streams reconnect is sent again after 500 ms
      // (`readIndexRetryTime`, `requestCurrentIndex`, server/etcdserver/v3_server.go, 3.5 and 3.6; 3.4.23 logs it too).
      const retries = (await logAfter(frozen, mark)).match(/waiting for ReadIndex response took too long/g);
      t.diagnostic(`ReadIndex retries logged by the member: ${retries?.length ?? 0}`);
      assert.equal(answer?.caughtUp, true);
      assert.ok((answer?.applied ?? 0) >= atLeader.commit, JSON.stringify({ answer, atLeader }));
      assert.ok((answer?.revision ?? 0) >= atLeader.revision, JSON.stringify({ answer, atLeader }));
      assert.ok(
        (controlRevision ?? Number.POSITIVE_INFINITY) < atLeader.revision,
        `the control read answered at revision ${controlRevision}: the member was not behind when it resumed`,
      );
    });

    test('GIVEN a follower stopped WHEN 20 000 writes go to the others and it restarts on its data dir THEN isCaughtUp is false while stopped, false while it replays and receives the gap, and true only once its applied index reaches the leader commit index', async (t) => {
      const { leader, follower } = await aFollower();
      const restarted = member(follower);
      await restarted.process?.stop();
      const whileStopped = await timedCaughtUp(restarted.clientURL, DOWN_DEADLINE_MS);
      assert.equal(whileStopped.caughtUp, false);
      assert.ok(whileStopped.ms < DOWN_DEADLINE_MS + 2_000, `false after ${whileStopped.ms} ms`);
      t.diagnostic(`stopped: isCaughtUp false after ${whileStopped.ms} ms (deadline ${DOWN_DEADLINE_MS} ms)`);
      t.diagnostic(`${WRITES} writes in ${await writeGap(url(leader.name), 'stopped/')} ms`);

      cluster.start(follower, 'new', names, `rolling-${version}`);
      const polls = await pollUntilCaughtUp(restarted, url(leader.name), Date.now());

      t.diagnostic(`restarted: ${describePolls(polls)}`);
      assertTrueOnlyWhenApplied(polls);
      // Here the gate before ReadIndex holds the read: a restarting member serves no client request at all (not even
      // Status) until it applied its own publish entry, proposed after it started (`serve` waits for `ReadyNotify`,
      // closed by `publishV3` once applied: embed/serve.go, etcdserver/server.go, 3.6.16); its metrics show it
      // catching up meanwhile.
      assert.ok(behindPolls(polls).length > 0, `never seen running and behind: ${describePolls(polls)}`);
    });

    test('GIVEN a learner that applied everything WHEN isCaughtUp THEN false at once, because etcd refuses a learner linearizable reads (serializable ones are answered); once promoted, true', async (t) => {
      const leader = await cluster.waitForLeader(names);
      const learner = member('m3');
      await waitFor(async () => (await addLearner(url(leader.name), learner.peerURL)).outcome, {
        what: 'm3 to be added as a learner',
        timeoutMs: 30_000,
        intervalMs: 500,
      });
      cluster.start('m3', 'existing', [...names, 'm3'], `rolling-${version}`);
      const started = Date.now();
      const serving = () =>
        waitFor(
          async () => {
            const [own, ofLeader] = await Promise.all([status(learner.clientURL), status(url(leader.name))]);
            const { applied } = await raftProgress(learner.metricsURL);
            return own.isLearner && applied >= Number(ofLeader.raftIndex);
          },
          { what: 'the learner to serve and apply the leader commit index', timeoutMs: STUCK_MS },
        );
      const stuck = await serving().then(
        () => undefined,
        async (error: Error) => {
          const log = await logAfter(learner, 0);
          const refused = log.match(/failed to publish local member.*too many requests/g)?.length ?? 0;
          return { error: error.message, refused, progress: await raftProgress(learner.metricsURL) };
        },
      );
      if (stuck) {
        t.diagnostic(`learner not serving after ${Date.now() - started} ms: ${JSON.stringify(stuck)}`);
        const client = etcdClient(url(leader.name));
        await client.put('nudge').value('1');
        client.close();
        const written = Date.now();
        await serving();
        t.diagnostic(`learner serving ${Date.now() - written} ms after one write`);
      } else t.diagnostic(`learner serving ${Date.now() - started} ms after start`);

      const asLearner = await timedCaughtUp(learner.clientURL, DOWN_DEADLINE_MS);

      assert.equal(asLearner.caughtUp, false);
      assert.ok(asLearner.ms < DOWN_DEADLINE_MS, `a refusal, not the deadline: ${asLearner.ms} ms`);
      await assert.rejects(
        withClient(learner.clientURL, (client) => client.kv.range(FIRST_KEY)),
        /etcdserver: rpc not supported for learner/,
      );
      await withClient(learner.clientURL, (client) => client.kv.range({ ...FIRST_KEY, serializable: true }));
      t.diagnostic(`learner: isCaughtUp false after ${asLearner.ms} ms`);

      const id = (await status(learner.clientURL)).header.member_id;
      await waitFor(async () => (await promoteMember(url(leader.name), id)) === 'promoted', {
        what: 'm3 to be promoted',
        timeoutMs: 30_000,
        intervalMs: 250,
      });
      await waitFor(() => isCaughtUp(learner.clientURL), { what: 'the promoted member to be caught up' });
      assert.equal((await status(learner.clientURL)).isLearner, false);
    });
  });
}

describe(`etcd ${etcdVersions['3.5']} members replaced one at a time by ${etcdVersions['3.6']} on their data dirs`, () => {
  let cluster: TestCluster;
  let writer: ReturnType<typeof startWriter>;
  let order: string[];
  const member = (name: string) => cluster.members.get(name) as TestMember;
  const url = (name: string) => member(name).clientURL;
  const running = () => names.filter((name) => member(name).process?.exitStatus() === undefined);
  const clusterVersions = async (of: readonly string[]) =>
    Object.fromEntries(
      await Promise.all(of.map(async (name) => [name, (await memberVersions(url(name))).cluster])),
    );
  const allAt = (of: readonly string[], clusterVersion: string) =>
    Object.fromEntries(of.map((name) => [name, clusterVersion]));
  const logMark = (name: string) => logEnd(member(name));
  const logSince = (name: string, mark: number) => logAfter(member(name), mark);
  const restartOn = async (name: string, minor: '3.5' | '3.6') => {
    await member(name).process?.stop();
    cluster.start(name, 'new', names, 'mixed', { version: minor });
  };
  const healthy = (name: string, server: string) =>
    waitFor(async () => (await memberVersions(url(name))).server === server, {
      what: `${name} to serve as ${server}`,
      timeoutMs: 30_000,
    });

  before(async () => {
    cluster = await createTestCluster('3.5');
    for (const name of names) await cluster.reserve(name);
    for (const name of names) cluster.start(name, 'new', names, 'mixed');
    const leader = await cluster.waitForLeader(names);
    await waitFor(async () => (await memberVersions(url(leader.name))).cluster === '3.5.0', {
      what: 'the cluster version 3.5.0',
      timeoutMs: 30_000,
    });
    // Followers first, the leader last (the roll's order).
    order = [...names.filter((name) => name !== leader.name), leader.name];
    const client = etcdClient(url(leader.name));
    await putKeys(client, 100, 'before/');
    client.close();
    writer = startWriter(url(leader.name), 'during/');
  });
  after(async () => {
    await writer?.stop();
    await cluster?.stop();
  });

  test('GIVEN a 3.5 leader WHEN both followers run 3.6.16 THEN the cluster version stays 3.5.0, also after the leader saw both new members', async (t) => {
    const [first, second, leader] = order as [string, string, string];
    for (const follower of [first, second]) {
      await restartOn(follower, '3.6');
      await healthy(follower, etcdVersions['3.6']);
      await cluster.waitForLeader(names);
      assert.deepEqual(await clusterVersions(names), allAt(names, '3.5.0'), `after ${follower}`);
    }
    // The 3.5 leader's version monitor (every 4 s) logs each member newer than itself: once it named the second
    // follower, it decided the cluster version from all three and kept 3.5.0.
    const mark = await logMark(leader);
    const secondId = hex((await memberStatus(url(second))).memberId);
    const started = Date.now();
    await waitFor(
      async () => {
        const log = await logSince(leader, mark);
        return log.includes('leader found higher-versioned member') && log.includes(secondId);
      },
      { what: 'the 3.5 leader to see the second 3.6 member', timeoutMs: 15_000, intervalMs: 250 },
    );
    const seen = (await logSince(leader, mark)).split('\n').find((line) => line.includes(secondId));
    t.diagnostic(`the 3.5 leader logged the second 3.6 member after ${Date.now() - started} ms: ${seen}`);
    assert.deepEqual(await clusterVersions(names), allAt(names, '3.5.0'));
  });

  test('GIVEN leadership moved to a 3.6.16 member WHEN the last 3.5 member stops THEN the cluster version stays 3.5.0 while its version is unknown', async (t) => {
    const [first, , last] = order as [string, string, string];
    await moveLeader(url(last), await memberStatus(url(first)).then((own) => own.memberId));
    assert.equal((await cluster.waitForLeader(names)).name, first);
    const mark = await logMark(first);

    await member(last).process?.stop();

    // The 3.6 leader's version monitor asks every member for its version (`GET <peer URL>/version`) and logs
    // the one it cannot reach: a pass that found a member's version unknown.
    const started = Date.now();
    const unreachable = `${member(last).peerURL}/version`;
    await waitFor(async () => (await logSince(first, mark)).includes(unreachable), {
      what: 'the 3.6 leader to fail to reach the stopped member',
      timeoutMs: 15_000,
      intervalMs: 250,
    });
    const seen = (await logSince(first, mark)).split('\n').find((line) => line.includes(unreachable));
    t.diagnostic(`the 3.6 leader logged the unreachable member after ${Date.now() - started} ms: ${seen}`);
    assert.deepEqual(await clusterVersions(running()), allAt(running(), '3.5.0'));
  });

  test('WHEN the last member restarts on 3.6.16 THEN the cluster version becomes 3.6.0', async (t) => {
    const last = order.at(-1) as string;
    cluster.start(last, 'new', names, 'mixed', { version: '3.6' });
    await healthy(last, etcdVersions['3.6']);
    const started = Date.now();
    await waitFor(
      async () => JSON.stringify(await clusterVersions(names)) === JSON.stringify(allAt(names, '3.6.0')),
      { what: 'the cluster version 3.6.0 on every member', timeoutMs: 30_000, intervalMs: 250 },
    );
    t.diagnostic(
      `cluster version 3.6.0 on every member ${Date.now() - started} ms after the last one served`,
    );
  });

  test('GIVEN cluster version 3.6.0 WHEN a 3.5.35 binary starts on a member data dir THEN it exits by itself, non-zero, naming the downgrade', async (t) => {
    const target = order[0] as string;
    await restartOn(target, '3.5');
    const started = Date.now();
    const exited = member(target).process?.exited;
    const outcome = await Promise.race([
      exited,
      new Promise<'running'>((resolve) => setTimeout(() => resolve('running'), 30_000).unref()),
    ]);
    assert.notEqual(outcome, 'running', `still running after 30 s:\n${member(target).process?.logTail(10)}`);
    const log = member(target).process?.logTail(1) ?? '';
    t.diagnostic(`exited after ${Date.now() - started} ms: ${JSON.stringify(outcome)}; ${log.slice(0, 300)}`);
    // It replays its WAL and dies applying the 3.6 leader's ClusterVersionSet entry (zap Fatal, exit 1):
    // {"level":"fatal","caller":"membership/downgrade.go:69","msg":"invalid downgrade; server version is lower than
    // determined cluster version","current-server-version":"3.5.35","determined-cluster-version":"3.6",
    // "stacktrace":"...mustDetectDowngrade ...(*RaftCluster).SetVersion ...(*applierV3backend).ClusterVersionSet ..."}
    assert.deepEqual(outcome, { code: 1, signal: null });
    assert.match(log, /"level":"fatal"/);
    assert.match(log, /invalid downgrade; server version is lower than determined cluster version/);
    assert.match(log, /"current-server-version":"3\.5\.35","determined-cluster-version":"3\.6"/);
  });

  test('WHEN that member runs 3.6.16 again THEN every write acknowledged before and during the replacement is on every member', async (t) => {
    const target = order[0] as string;
    cluster.start(target, 'new', names, 'mixed', { version: '3.6' });
    await healthy(target, etcdVersions['3.6']);
    await cluster.waitForLeader(names);
    await writer.stop();
    t.diagnostic(`${writer.acknowledged()} writes acknowledged during the replacement`);
    assert.ok(writer.acknowledged() > 0);
    assert.deepEqual(await writer.lost(), []);
    const clients = names.map((name) => etcdClient(url(name)));
    const [a, b, c] = clients as [Etcd3, Etcd3, Etcd3];
    try {
      assert.equal((await a.getAll().prefix('before/').keys()).length, 100);
      const compared = await compareEtcd(a, b);
      assert.equal(await compareEtcd(a, c), compared);
      t.diagnostic(`${compared} keys identical on the three members`);
    } finally {
      for (const client of clients) client.close();
    }
  });
});
