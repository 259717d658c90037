// `etcd-gitops defrag` as the CronJob runs it (the compiled command, a child process) against real 3-member
// etcd 3.4, 3.5 and 3.6 clusters with a 16 MiB quota, filled until etcd refuses writes with NOSPACE. The tests of a
// version run in order on one cluster: defrag without compaction (alarm kept), after compaction with a member
// answering late (asked again, disarmed), then with 2 of 3 members down (asked again, nothing touched).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { noop } from 'cockatiel';
import { Etcd3 } from 'etcd3';
import { type DefragResult, STATUS_ASKED_AGAIN } from '../../controller/defrag/execute.js';
import { ExitCode } from '../../controller/defrag/exit-codes.js';
import { DISARM_HEADROOM_BYTES } from '../../controller/defrag/plan.js';
import { memberProbes } from '../../controller/etcdcluster/member-pod.js';
import { etcdVersions } from '../env/binaries.js';
import { httpGet } from '../env/http-get.js';
import { waitFor } from '../env/wait.js';
import { type CliResult, runCli } from './helpers/backup-cli.js';
import { createTestCluster, type TestCluster } from './helpers/membership-etcd.js';

const QUOTA = 16 * 2 ** 20;
const VALUE_BYTES = 100 * 1024;
const NOSPACE_MESSAGE = /etcdserver: mvcc: database space exceeded/;
const names = ['m0', 'm1', 'm2'];

/** No retries and no circuit breaker: a NOSPACE error must not block the next calls. */
const connect = (url: string) =>
  new Etcd3({ hosts: [url], dialTimeout: 5_000, faultHandling: { host: () => noop, global: noop } });

async function withClient<T>(url: string, call: (client: Etcd3) => Promise<T>): Promise<T> {
  const client = connect(url);
  try {
    return await call(client);
  } finally {
    client.close();
  }
}

interface CliRun extends CliResult {
  result: DefragResult | undefined;
}

async function runDefragCli(args: string[]): Promise<CliRun> {
  const run = await runCli('defrag', args);
  return { ...run, result: run.stdout ? (JSON.parse(run.stdout) as DefragResult) : undefined };
}

for (const version of ['3.4', '3.5', '3.6'] as const) {
  describe(`defrag against etcd ${version} (3 members, ${QUOTA} bytes quota)`, () => {
    let cluster: TestCluster;
    const url = (name: string) => cluster.members.get(name)?.clientURL as string;
    const alarms = () =>
      withClient(url('m0'), async (client) =>
        (await client.maintenance.alarm({ action: 'Get', alarm: 'None', memberID: 0 })).alarms.map(
          (alarm) => alarm.alarm,
        ),
      );
    const sizes = () =>
      Promise.all(
        names.map((name) =>
          withClient(url(name), async (client) => {
            const status = await client.maintenance.status();
            return { name, dbSize: Number(status.dbSize), dbSizeInUse: Number(status.dbSizeInUse) };
          }),
        ),
      );
    const put = (key: string) =>
      withClient(url('m0'), async (client) => {
        await client.put(key).value(randomBytes(VALUE_BYTES));
      });
    const defrag = (endpoint = url('m1'), extra: string[] = []) =>
      runDefragCli([
        `--endpoints=${endpoint}`,
        '--namespace=test',
        `--cluster=etcd-${version}`,
        `--quota-backend-bytes=${QUOTA}`,
        ...extra,
      ]);

    /** Overwrites four keys (every old value stays in the history) until etcd refuses with NOSPACE. */
    const fillUntilNospace = async () => {
      for (let writes = 0; writes < 1000; writes++) {
        const refused = await put(`key-${writes % 4}`).then(
          () => undefined,
          (error: Error) => error,
        );
        if (refused) return assert.match(refused.message, NOSPACE_MESSAGE);
      }
      assert.fail('no write refused after 1000 writes');
    };
    const disarmAll = () =>
      withClient(url('m0'), async (client) => {
        const active = await client.maintenance.alarm({ action: 'Get', alarm: 'None', memberID: 0 });
        for (const alarm of active.alarms) {
          await client.maintenance.alarm({
            action: 'Deactivate',
            memberID: alarm.memberID,
            alarm: alarm.alarm,
          });
        }
      });

    before(async () => {
      cluster = await createTestCluster(version, [`--quota-backend-bytes=${QUOTA}`]);
      for (const name of names) await cluster.reserve(name);
      for (const name of names) cluster.start(name, 'new', names, `defrag-${version}`);
      await cluster.waitForLeader(names);
    });
    after(async () => {
      await cluster?.stop();
    });

    test('GIVEN writes until NOSPACE and no compaction WHEN defrag runs THEN every member is defragmented, the alarm is kept and the exit code is NOSPACE_KEPT', async (t) => {
      // etcd refuses a write when the file's size plus the write reaches the quota, while free pages inside the
      // file may still be enough below it: a defragmentation alone can free enough. So: fill, defragment and
      // disarm by hand until a defragmented member stays within the headroom of the quota.
      let rounds = 0;
      for (;;) {
        rounds += 1;
        await fillUntilNospace();
        assert.ok((await alarms()).includes('Nospace'), 'a NOSPACE alarm is active');
        for (const name of names) await withClient(url(name), (client) => client.maintenance.defragment());
        if ((await sizes()).some((size) => size.dbSize >= QUOTA - DISARM_HEADROOM_BYTES)) break;
        assert.ok(rounds < 10, `after ${rounds} rounds a defragmentation still frees enough`);
        await disarmAll();
      }
      t.diagnostic(`filled to NOSPACE ${rounds} time(s) before a defragmentation freed too little`);

      const run = await defrag();

      assert.equal(run.code, ExitCode.NOSPACE_KEPT, run.stderr);
      assert.deepEqual(run.result?.members.map((member) => [member.name, member.outcome]).sort(), [
        ['m0', 'defragmented'],
        ['m1', 'defragmented'],
        ['m2', 'defragmented'],
      ]);
      assert.equal(run.result?.alarms.disarmed.length, 0);
      assert.ok(run.result?.alarms.kept.length, 'the NOSPACE alarms are reported as kept');
      for (const kept of run.result?.alarms.kept ?? []) {
        assert.equal(kept.alarm, 'Nospace');
        assert.match(
          kept.reason,
          /compaction freed too little: .* raise spec.quotaBackendBytes or delete data$/,
        );
      }
      const full = run.result?.members.filter(
        (member) => (member.after?.dbSize ?? 0) >= QUOTA - DISARM_HEADROOM_BYTES,
      );
      assert.ok(full?.length, 'the result shows a member within the headroom of the quota');
      assert.ok((await alarms()).includes('Nospace'), 'the NOSPACE alarm is still active');
      await assert.rejects(put('key-0'), NOSPACE_MESSAGE);
    });

    test('GIVEN the NOSPACE alarm THEN every member answers the readiness path its Pod is probed on (it still serves reads and deletes) while a plain /health says unhealthy', async () => {
      assert.ok((await alarms()).includes('Nospace'), 'the NOSPACE alarm is still active');
      const path = memberProbes(etcdVersions[version]).readiness.httpGet?.path as string;
      for (const name of names) {
        const ready = await httpGet(`${url(name)}${path}`);
        assert.equal(ready.status, 200, `${name} ${path}: ${ready.body}`);
        const plain = await httpGet(`${url(name)}/health`);
        assert.equal(plain.status, 503, `${name} /health: ${plain.body}`);
        assert.match(plain.body, /NOSPACE|"health":"false"/);
      }
    });

    test('GIVEN the history compacted to the latest revision and a member that answers only after the job started WHEN defrag runs THEN it asks that member again; exit OK, every DB shrank, the alarm is gone and a write succeeds', async () => {
      await withClient(url('m0'), async (client) => {
        const { header } = await client.maintenance.status();
        await client.kv.compact({ revision: header.revision, physical: true });
      });
      // `physical` waits for the member asked only, and a member counts freed pages in use until its next write
      // commits: a delete (NOSPACE still allows them) per try makes every member commit.
      let deletes = 0;
      await waitFor(
        async () => {
          await withClient(url('m0'), (client) =>
            client
              .delete()
              .key(`key-${deletes++ % 4}`)
              .exec(),
          );
          return (await sizes()).every((size) => size.dbSizeInUse < QUOTA / 4);
        },
        { what: 'every member to count the compacted pages as free', timeoutMs: 30_000, intervalMs: 200 },
      );
      const active = (await alarms()).length;
      assert.ok(active > 0, 'the NOSPACE alarm is still active before defrag');
      // A follower refuses connections when the job starts, as a member whose node has not yet admitted the Job's
      // Pod does (the test environment's enforcer REJECTs), and answers 3 s later. Not the leader: the order
      // below (the leader last) is judged against a leader that stayed.
      const leader = await cluster.waitForLeader(names);
      const late = names.find((name) => name !== leader.name && name !== 'm1') as string;
      await cluster.kill(late);

      const running = defrag();
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      cluster.start(late, 'existing', names, `defrag-${version}`);
      const run = await running;

      assert.ok(
        run.logs.some((line) => line.msg === STATUS_ASKED_AGAIN),
        run.stderr,
      );

      assert.equal(run.code, ExitCode.OK, run.stderr);
      const members = run.result?.members ?? [];
      assert.equal(members.length, 3);
      for (const member of members) {
        assert.equal(member.outcome, 'defragmented', member.name);
        assert.ok(
          (member.after?.dbSize ?? Number.POSITIVE_INFINITY) < (member.before?.dbSize ?? 0),
          `${member.name} shrank: ${JSON.stringify(member)}`,
        );
      }
      // The leader last: its own status names it.
      const leaderId = await withClient(
        url('m0'),
        async (client) => (await client.maintenance.status()).leader,
      );
      assert.equal(members.at(-1)?.id, leaderId);
      assert.equal(run.result?.alarms.disarmed.length, active);
      assert.deepEqual(run.result?.alarms.kept, []);
      for (const size of await sizes()) assert.ok(size.dbSize < QUOTA / 4, JSON.stringify(size));
      assert.deepEqual(await alarms(), []);
      await put('key-after-defrag');
    });

    test('GIVEN 2 of 3 members down WHEN defrag runs THEN it stops with ETCD_UNAVAILABLE and touches nothing', async () => {
      await cluster.kill('m1');
      await cluster.kill('m2');

      const run = await defrag(url('m0'), ['--member-wait=3s']);

      assert.equal(run.code, ExitCode.ETCD_UNAVAILABLE, run.stderr);
      // It asked the two again within --member-wait, then gave up.
      assert.ok(
        run.logs.some((line) => line.msg === STATUS_ASKED_AGAIN),
        run.stderr,
      );
      assert.equal(run.result, undefined);
      const failure = run.logs.find((line) => line.code === 'ETCD_UNAVAILABLE');
      assert.match(
        String(failure?.reason),
        /^1 of 3 voting members answered Status; a quorum of 2 must answer before any member is defragmented/,
      );
      assert.equal(
        run.logs.some((line) => String(line.msg).startsWith('Defragmenting')),
        false,
      );
    });
  });
}
