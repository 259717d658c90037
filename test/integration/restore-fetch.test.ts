// restore fetch against real MinIO and real etcd 3.4-3.6: backups written by `backup save`, restored by
// `restore fetch` the way the seed's init container runs it, etcd started on the result, every key compared.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { RESTORE_REVISION_BUMP } from '../../controller/restore/etcd-version.js';
import { etcdBinary, etcdVersions as versions } from '../env/binaries.js';
import { type Minio, startMinio } from '../env/minio.js';
import { freePorts } from '../env/ports.js';
import {
  awsEnv,
  createBucket,
  failureReason,
  minioClient,
  runBackupCli,
  s3Args,
} from './helpers/backup-cli.js';
import { type StandaloneEtcd, startEtcd } from './helpers/etcd.js';
import { compareEtcd, fillEtcd, putKeys } from './helpers/fill.js';
import { runRestoreCli, startEtcdOnDataDir } from './helpers/restore.js';
import { download, metadataOf } from './helpers/s3-objects.js';

const mib = 1024 * 1024;

describe('restore fetch (real etcd, real MinIO)', () => {
  let minio: Minio;
  let s3: S3Client;
  let work: string;
  let dirs = 0;
  const cleanups: (() => Promise<void>)[] = [];

  before(async () => {
    minio = await startMinio();
    s3 = minioClient(minio);
    work = await mkdtemp(join(tmpdir(), 'etcd-gitops-restore-test-'));
  });

  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    s3?.destroy();
    await minio?.stop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  async function etcd(version: string): Promise<StandaloneEtcd> {
    const started = await startEtcd({ version });
    cleanups.push(() => started.stop());
    return started;
  }

  /** A fresh stand-in for a member's PVC mount (`/var/lib/etcd`). */
  async function volume(): Promise<string> {
    const dir = join(work, `volume-${++dirs}`);
    await mkdir(dir);
    return dir;
  }

  async function backup(source: StandaloneEtcd, bucket: string, extra: string[] = []): Promise<string> {
    const result = await runBackupCli(
      [
        'save',
        `--endpoints=${source.clientURL}`,
        '--namespace=ns',
        '--cluster=main',
        ...s3Args(minio, bucket),
        ...extra,
      ],
      awsEnv(minio),
    );
    assert.equal(result.code, 0, failureReason(result));
    return (JSON.parse(result.stdout) as { key: string }).key;
  }

  interface Seed {
    name: string;
    peerPort: number;
  }

  async function seed(): Promise<Seed> {
    const [peerPort] = await freePorts(1);
    return { name: 'main-3', peerPort: peerPort as number };
  }

  function fetchArgs(
    bucket: string,
    where: string[],
    version: string,
    mount: string,
    member: Seed,
  ): string[] {
    const tool = version.startsWith('3.4.') ? etcdBinary(version, 'etcdctl') : etcdBinary(version, 'etcdutl');
    return [
      'fetch',
      ...s3Args(minio, bucket),
      ...where,
      `--etcd-version=${version}`,
      `--data-dir=${join(mount, 'data')}`,
      `--name=${member.name}`,
      `--initial-advertise-peer-urls=http://127.0.0.1:${member.peerPort}`,
      `--initial-cluster-token=restored-${member.peerPort}`,
      `--etcdutl=${tool}`,
    ];
  }

  /** Starts etcd `version` on the restored mount and compares every key with `source`. */
  async function compareRestored(source: StandaloneEtcd, version: string, mount: string, member: Seed) {
    const restored = await startEtcdOnDataDir(
      version,
      join(mount, 'data'),
      member.name,
      member.peerPort,
      mount,
    );
    cleanups.push(() => restored.stop());
    const [a, b] = [source.client(), restored.client()];
    try {
      const members = await b.cluster.memberList({});
      assert.equal(members.members.length, 1, 'the restored cluster has exactly one member, the seed');
      assert.equal(members.members[0]?.name, member.name);
      return await compareEtcd(a, b);
    } finally {
      a.close();
      b.close();
      await restored.stop();
    }
  }

  it('restores a 3.6 backup by key into a data dir on which etcd 3.6 serves every key', async () => {
    // GIVEN etcd 3.6 with 8 MiB and small keys, backed up by `backup save`
    const source = await etcd('3.6');
    const client = source.client();
    const filled = await fillEtcd(client, 8 * mib);
    await putKeys(client, 30);
    client.close();
    const bucket = await createBucket(s3);
    const key = await backup(source, bucket);
    const mount = await volume();
    const member = await seed();

    // WHEN restore fetch runs with the key
    const result = await runRestoreCli(
      fetchArgs(bucket, [`--key=${key}`], versions['3.6'], mount, member),
      awsEnv(minio),
    );

    // THEN it succeeds, leaves only data/ on the volume, and etcd on it holds exactly the source's keys
    assert.equal(result.code, 0, failureReason(result));
    const output = JSON.parse(result.stdout) as {
      outcome: string;
      key: string;
      revision: string;
      revisionBump: number;
    };
    assert.equal(output.outcome, 'restored');
    assert.equal(output.key, key);
    assert.equal(output.revision, (await metadataOf(s3, bucket, key))['etcd-revision']);
    assert.equal(output.revisionBump, RESTORE_REVISION_BUMP);
    assert.deepEqual(readdirSync(mount), ['data']);
    assert.equal(await compareRestored(source, versions['3.6'], mount, member), filled.keys + 30);
  });

  it('restores a gzip-compressed etcd 3.5 backup into etcd 3.5 and into etcd 3.6', async () => {
    // GIVEN an etcd 3.5 backup, gzip-compressed
    const source = await etcd('3.5');
    const client = source.client();
    await fillEtcd(client, 4 * mib, { valueBytes: 1024 });
    await putKeys(client, 20);
    client.close();
    const bucket = await createBucket(s3);
    const key = await backup(source, bucket, ['--compression=gzip']);

    for (const target of [versions['3.5'], versions['3.6']]) {
      const mount = await volume();
      const member = await seed();
      // WHEN restore fetch restores it for a cluster of `target`
      const result = await runRestoreCli(
        fetchArgs(bucket, [`--key=${key}`], target, mount, member),
        awsEnv(minio),
      );
      // THEN etcd `target` on the result holds every key of the 3.5 source
      assert.equal(result.code, 0, `${target}: ${failureReason(result)}`);
      assert.equal(await compareRestored(source, target, mount, member), 4 * 1024 + 20, target);
    }
  });

  it('restores an etcd 3.4 backup with etcdctl', async () => {
    // GIVEN an etcd 3.4 backup
    const source = await etcd('3.4');
    const client = source.client();
    await putKeys(client, 40);
    client.close();
    const bucket = await createBucket(s3);
    const key = await backup(source, bucket);
    const mount = await volume();
    const member = await seed();

    // WHEN restore fetch runs for a 3.4 cluster (the tool is 3.4's etcdctl)
    const result = await runRestoreCli(
      fetchArgs(bucket, [`--key=${key}`], versions['3.4'], mount, member),
      awsEnv(minio),
    );

    // THEN etcd 3.4 on the result holds every key; the revision was not bumped (3.4's etcdctl cannot)
    assert.equal(result.code, 0, failureReason(result));
    assert.equal((JSON.parse(result.stdout) as { revisionBump: number }).revisionBump, 0);
    assert.equal(await compareRestored(source, versions['3.4'], mount, member), 40);
  });

  it('picks the newest backup under a prefix by recorded time, not by key text', async () => {
    // GIVEN two backups under one prefix: the older at a key that sorts last, the newer at one that sorts first
    const source = await etcd('3.6');
    const client = source.client();
    await putKeys(client, 10, 'first/');
    const bucket = await createBucket(s3);
    const older = await backup(source, bucket, ['--key-template=team/z-{timestamp}-rev{revision}.db']);
    await new Promise((resolve) => setTimeout(resolve, 1100)); // the recorded time has second resolution
    await putKeys(client, 10, 'second/');
    client.close();
    const newer = await backup(source, bucket, ['--key-template=team/a-{timestamp}-rev{revision}.db']);
    assert.ok(newer < older, 'the newer key sorts first');
    const mount = await volume();
    const member = await seed();

    // WHEN restore fetch asks for the latest under the prefix
    const result = await runRestoreCli(
      fetchArgs(bucket, ['--latest-under-prefix=team/'], versions['3.6'], mount, member),
      awsEnv(minio),
    );

    // THEN it restored the newer backup: every key, including the second batch
    assert.equal(result.code, 0, failureReason(result));
    assert.equal((JSON.parse(result.stdout) as { key: string }).key, newer);
    assert.equal(await compareRestored(source, versions['3.6'], mount, member), 20);
  });

  it('leaves a data dir that already holds a member untouched', async () => {
    // GIVEN a volume restored once
    const source = await etcd('3.6');
    const client = source.client();
    await putKeys(client, 5);
    client.close();
    const bucket = await createBucket(s3);
    const key = await backup(source, bucket);
    const mount = await volume();
    const member = await seed();
    const args = fetchArgs(bucket, [`--key=${key}`], versions['3.6'], mount, member);
    assert.equal((await runRestoreCli(args, awsEnv(minio))).code, 0);
    const marker = join(mount, 'data', 'member', 'marker');
    await writeFile(marker, 'written after the restore');
    const before = statSync(join(mount, 'data', 'member')).mtimeMs;

    // WHEN it runs again (the seed Pod restarted), even with wrong credentials
    const result = await runRestoreCli(args, { ...awsEnv(minio), AWS_SECRET_ACCESS_KEY: 'wrong' });

    // THEN it succeeds without contacting S3 and without touching the data
    assert.equal(result.code, 0, failureReason(result));
    assert.equal((JSON.parse(result.stdout) as { outcome: string }).outcome, 'skipped');
    assert.equal(await readFile(marker, 'utf8'), 'written after the restore');
    assert.equal(statSync(join(mount, 'data', 'member')).mtimeMs, before);
  });

  describe('refusals leave no data dir', () => {
    let bucket: string;
    let key: string;
    let source: StandaloneEtcd;

    before(async () => {
      source = await etcd('3.6');
      const client = source.client();
      await putKeys(client, 50);
      client.close();
      bucket = await createBucket(s3);
      key = await backup(source, bucket);
    });

    async function refused(args: string[], env = awsEnv(minio)) {
      const mount = args.find((arg) => arg.startsWith('--data-dir='))?.slice('--data-dir='.length) ?? '';
      const result = await runRestoreCli(args, env);
      const code = result.logs.findLast((log) => log.level === 50)?.code;
      return { result, code, left: readdirSync(join(mount, '..')) };
    }

    it('fails when the object is corrupt, before writing any data dir', async () => {
      // GIVEN a copy of the backup with one byte flipped in the middle, with the original's metadata
      const file = join(work, 'corrupt.db');
      await download(s3, bucket, key, file);
      const bytes = await readFile(file);
      bytes[Math.floor(bytes.length / 2)] ^= 0xff;
      const metadata = await metadataOf(s3, bucket, key);
      const corrupt = `${key}.corrupt`;
      await s3.send(new PutObjectCommand({ Bucket: bucket, Key: corrupt, Body: bytes, Metadata: metadata }));
      const mount = await volume();

      // WHEN restore fetch runs on it
      const { result, code, left } = await refused(
        fetchArgs(bucket, [`--key=${corrupt}`], versions['3.6'], mount, await seed()),
      );

      // THEN it exits CHECKSUM_MISMATCH (5) naming the object, and the volume is empty
      assert.equal(result.code, 5, failureReason(result));
      assert.equal(code, 'ChecksumMismatch');
      assert.match(failureReason(result), new RegExp(corrupt.replaceAll('.', '\\.')));
      assert.deepEqual(left, []);
    });

    it('fails when the object is missing', async () => {
      const mount = await volume();
      // WHEN restore fetch names a key that does not exist
      const { result, code, left } = await refused(
        fetchArgs(bucket, ['--key=ns/main/nothing-here.db'], versions['3.6'], mount, await seed()),
      );
      // THEN it exits S3_ERROR (4) with reason BackupNotFound, and the volume is empty
      assert.equal(result.code, 4, failureReason(result));
      assert.equal(code, 'BackupNotFound');
      assert.match(failureReason(result), /nothing-here\.db/);
      assert.deepEqual(left, []);
    });

    it('fails when no backup exists under the prefix', async () => {
      const mount = await volume();
      const { result, code, left } = await refused(
        fetchArgs(bucket, ['--latest-under-prefix=elsewhere/'], versions['3.6'], mount, await seed()),
      );
      assert.equal(result.code, 4, failureReason(result));
      assert.equal(code, 'BackupNotFound');
      assert.deepEqual(left, []);
    });

    it('fails when the credentials are wrong', async () => {
      const mount = await volume();
      // WHEN restore fetch runs with a wrong secret key
      const { result, code, left } = await refused(
        fetchArgs(bucket, [`--key=${key}`], versions['3.6'], mount, await seed()),
        { ...awsEnv(minio), AWS_SECRET_ACCESS_KEY: 'not-the-secret' },
      );
      // THEN it exits S3_ERROR (4) with reason AccessDenied, and the volume is empty
      assert.equal(result.code, 4, failureReason(result));
      assert.equal(code, 'AccessDenied');
      assert.deepEqual(left, []);
    });

    it('fails when the snapshot comes from a newer etcd than the cluster', async () => {
      const mount = await volume();
      // WHEN a 3.6 snapshot is restored for a 3.5 cluster
      const { result, code, left } = await refused(
        fetchArgs(bucket, [`--key=${key}`], versions['3.5'], mount, await seed()),
      );
      // THEN it exits BACKUP_REFUSED (7) naming both versions, and the volume is empty
      assert.equal(result.code, 7, failureReason(result));
      assert.equal(code, 'SnapshotFromNewerEtcd');
      assert.match(failureReason(result), new RegExp(`${versions['3.6']}.*${versions['3.5']}`));
      assert.deepEqual(left, []);
    });

    it('fails when the object is not an etcd-gitops backup', async () => {
      await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'foreign.db', Body: 'hello' }));
      const mount = await volume();
      const { result, code, left } = await refused(
        fetchArgs(bucket, ['--key=foreign.db'], versions['3.6'], mount, await seed()),
      );
      assert.equal(result.code, 7, failureReason(result));
      assert.equal(code, 'NotABackup');
      assert.deepEqual(left, []);
    });

    it('fails when the data dir holds files but no member, leaving them untouched', async () => {
      const mount = await volume();
      await mkdir(join(mount, 'data'));
      await writeFile(join(mount, 'data', 'stray'), 'x');
      const { result, code, left } = await refused(
        fetchArgs(bucket, [`--key=${key}`], versions['3.6'], mount, await seed()),
      );
      assert.equal(result.code, 8, failureReason(result));
      assert.equal(code, 'DataDirNotEmpty');
      assert.deepEqual(left, ['data']);
      assert.deepEqual(readdirSync(join(mount, 'data')), ['stray']);
    });

    it('fails when the restore tool is missing, leaving no data dir', async () => {
      const mount = await volume();
      const args = fetchArgs(bucket, [`--key=${key}`], versions['3.6'], mount, await seed()).map((arg) =>
        arg.startsWith('--etcdutl=') ? `--etcdutl=${join(work, 'no-such-etcdutl')}` : arg,
      );
      const { result, code, left } = await refused(args);
      assert.equal(result.code, 8, failureReason(result));
      assert.equal(code, 'RestoreFailed');
      assert.deepEqual(left, []);
      assert.equal(existsSync(join(mount, 'restore')), false);
    });
  });
});
