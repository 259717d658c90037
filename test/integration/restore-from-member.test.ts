// `restore from-member` against real etcd 3.4, 3.5 and 3.6 clusters that lost quorum (docs/design/restore.md,
// "Recovery from a surviving member"): two of three members SIGKILLed, the survivor still serves Maintenance.Snapshot
// alone; the command copies it (every write the survivor had applied, including writes after the last "backup")
// into a new one-member data dir under a new name; etcd started on it holds every acknowledged key. The survivor's
// data is only read; a URL answering as another member is refused before anything is written.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { etcdBinary, etcdVersions } from '../env/binaries.js';
import { freePorts } from '../env/ports.js';
import { failureReason } from './helpers/backup-cli.js';
import { etcdClient } from './helpers/etcd.js';
import { createTestCluster, type EtcdMinor, type TestCluster } from './helpers/membership-etcd.js';
import { runRestoreCli, startEtcdOnDataDir } from './helpers/restore.js';

const MEMBERS = ['m-0', 'm-1', 'm-2'];

/** The member's id and revision as its own Status says (served without quorum). */
async function memberStatus(clientURL: string): Promise<{ memberId: string; revision: string }> {
  const client = etcdClient(clientURL);
  try {
    const status = await client.maintenance.status();
    return { memberId: String(status.header.member_id), revision: String(status.header.revision) };
  } finally {
    client.close();
  }
}

describe('restore from-member (real etcd that lost quorum)', () => {
  let work: string;
  let volumes = 0;
  const cleanups: (() => Promise<void>)[] = [];

  before(async () => {
    work = await mkdtemp(join(tmpdir(), 'etcd-gitops-from-member-'));
  });
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    if (work) await rm(work, { recursive: true, force: true });
  });

  async function volume(): Promise<string> {
    const dir = join(work, `volume-${++volumes}`);
    await mkdir(dir);
    return dir;
  }

  /** A 3-member cluster with `keys` keys, then two members SIGKILLed: the survivor has applied every write. */
  async function lostQuorum(minor: EtcdMinor, keys: number): Promise<{ cluster: TestCluster; id: string }> {
    const cluster = await createTestCluster(minor);
    cleanups.push(() => cluster.stop());
    for (const name of MEMBERS) await cluster.reserve(name);
    for (const name of MEMBERS) cluster.start(name, 'new', MEMBERS, `token-${minor}`);
    await cluster.waitForLeader(MEMBERS);
    const survivor = cluster.members.get('m-0')?.clientURL as string;
    const client = etcdClient(survivor);
    try {
      // Acknowledged by a majority, so applied by every member once the next write is acknowledged.
      for (let i = 0; i < keys; i += 1) await client.put(`k/${String(i).padStart(5, '0')}`).value(`v${i}`);
      await client.put('k/last').value('barrier');
      // The survivor has applied the last write before the others die (a linearizable read through it).
      assert.equal(await client.get('k/last').string(), 'barrier');
    } finally {
      client.close();
    }
    await cluster.kill('m-1');
    await cluster.kill('m-2');
    const status = await memberStatus(survivor);
    return { cluster, id: status.memberId };
  }

  function args(
    minor: EtcdMinor,
    memberUrl: string,
    memberId: string,
    mount: string,
    seed: { name: string; peerPort: number },
  ): string[] {
    const version = etcdVersions[minor];
    const tool = minor === '3.4' ? etcdBinary(version, 'etcdctl') : etcdBinary(version, 'etcdutl');
    return [
      'from-member',
      `--member-url=${memberUrl}`,
      `--member-id=${memberId}`,
      `--etcd-version=${version}`,
      `--data-dir=${join(mount, 'data')}`,
      `--name=${seed.name}`,
      `--initial-advertise-peer-urls=http://127.0.0.1:${seed.peerPort}`,
      `--initial-cluster-token=survivor-${seed.peerPort}`,
      `--etcdutl=${tool}`,
    ];
  }

  for (const minor of ['3.4', '3.5', '3.6'] as const) {
    it(`${minor}: copies the survivor of a cluster without quorum into a new one-member cluster with every key`, async () => {
      const keys = 300;
      const { cluster, id } = await lostQuorum(minor, keys);
      const survivor = cluster.members.get('m-0')?.clientURL as string;
      const before = await memberStatus(survivor);
      const mount = await volume();
      const [peerPort] = (await freePorts(1)) as [number];
      const seed = { name: 'm-3', peerPort };

      const result = await runRestoreCli(args(minor, survivor, id, mount, seed), {});

      assert.equal(result.code, 0, failureReason(result));
      const output = JSON.parse(result.stdout) as { outcome: string; revision: string; memberId: string };
      assert.equal(output.outcome, 'restored');
      assert.equal(output.memberId, id);
      assert.deepEqual(readdirSync(mount), ['data'], 'only the data dir is left on the volume');
      // The survivor was only read: it still answers as itself at the same revision, still without quorum.
      const afterwards = await memberStatus(survivor);
      assert.equal(afterwards.memberId, id);
      assert.equal(afterwards.revision, before.revision);
      assert.equal(output.revision, before.revision, 'the revision recovered is the survivor’s');
      const restored = await startEtcdOnDataDir(
        etcdVersions[minor],
        join(mount, 'data'),
        'm-3',
        peerPort,
        mount,
      );
      cleanups.push(() => restored.stop());
      const client = restored.client();
      try {
        const members = await client.cluster.memberList({});
        assert.deepEqual(
          members.members.map((member) => member.name),
          ['m-3'],
          'one member, the seed, under its new name',
        );
        const all = await client.getAll().prefix('k/').strings();
        assert.equal(Object.keys(all).length, keys + 1);
        assert.equal(all['k/last'], 'barrier');
        assert.equal(all['k/00299'], 'v299');
        await client.put('k/after').value('writes work');
      } finally {
        client.close();
        await restored.stop();
      }
    });
  }

  it('refuses a URL that answers as another member, and a data dir that already holds a member is left alone', async () => {
    const { cluster, id } = await lostQuorum('3.6', 5);
    const survivor = cluster.members.get('m-0')?.clientURL as string;
    const mount = await volume();
    const [peerPort] = (await freePorts(1)) as [number];
    const wrongId = id === '1' ? '2' : '1';

    const refused = await runRestoreCli(args('3.6', survivor, wrongId, mount, { name: 'm-3', peerPort }), {});
    assert.equal(refused.code, 7, failureReason(refused));
    assert.match(refused.stderr, /"code":"WrongMember"/);
    assert.match(refused.stderr, new RegExp(`answers as member ${id}, not the chosen survivor ${wrongId}`));
    assert.deepEqual(readdirSync(mount), [], 'nothing written');

    const first = await runRestoreCli(args('3.6', survivor, id, mount, { name: 'm-3', peerPort }), {});
    assert.equal(first.code, 0, failureReason(first));
    const again = await runRestoreCli(args('3.6', survivor, id, mount, { name: 'm-3', peerPort }), {});
    assert.equal(again.code, 0, failureReason(again));
    assert.equal((JSON.parse(again.stdout) as { outcome: string }).outcome, 'skipped');
  });

  it('reports MemberUnavailable (exit 3) when the chosen member does not answer; nothing written', async () => {
    const mount = await volume();
    const [deadPort, peerPort] = (await freePorts(2)) as [number, number];
    const result = await runRestoreCli(
      args('3.6', `http://127.0.0.1:${deadPort}`, '12345', mount, { name: 'm-3', peerPort }),
      {},
    );
    assert.equal(result.code, 3, failureReason(result));
    assert.match(result.stderr, /"code":"MemberUnavailable"/);
    assert.deepEqual(readdirSync(mount), []);
  });
});
