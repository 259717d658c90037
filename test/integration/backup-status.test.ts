// backup status against real etcd and MinIO: listing with time, size, revision, sha256; --verify detects a
// corrupted object; --output table|json.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { GetObjectCommand, HeadObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { StatusReport } from '../../controller/backup/status.js';
import { type Minio, startMinio } from '../env/minio.js';
import {
  awsEnv,
  createBucket,
  failureReason,
  minioClient,
  runBackupCli,
  s3Args,
} from './helpers/backup-cli.js';
import { type StandaloneEtcd, startEtcd } from './helpers/etcd.js';
import { fillEtcd } from './helpers/fill.js';

describe('backup status (real etcd, real MinIO)', () => {
  let minio: Minio;
  let s3: S3Client;
  let etcd: StandaloneEtcd;
  let bucket: string;
  const saved: string[] = [];

  before(async () => {
    [minio, etcd] = await Promise.all([startMinio(), startEtcd({ version: '3.6' })]);
    s3 = minioClient(minio);
    const client = etcd.client();
    await fillEtcd(client, 2 * 1024 * 1024, { valueBytes: 1024 });
    bucket = await createBucket(s3);
    for (const compression of ['none', 'gzip', 'none']) {
      await client.put('tick').value(compression);
      const result = await runBackupCli(
        [
          'save',
          `--endpoints=${etcd.clientURL}`,
          '--namespace=ns',
          '--cluster=main',
          `--compression=${compression}`,
          ...s3Args(minio, bucket),
        ],
        awsEnv(minio),
      );
      assert.equal(result.code, 0, failureReason(result));
      saved.push((JSON.parse(result.stdout) as { key: string }).key);
    }
    client.close();
  });

  after(async () => {
    s3?.destroy();
    await Promise.all([minio?.stop(), etcd?.stop()]);
  });

  it('lists the backups newest first with time, size, revision and sha256, all verifying', async () => {
    // WHEN status --verify --output json runs
    const result = await runBackupCli(
      ['status', ...s3Args(minio, bucket), '--prefix=ns/main/', '--verify', '--output=json'],
      awsEnv(minio),
    );
    // THEN it exits OK listing the three backups, newest first, each verified
    assert.equal(result.code, 0, failureReason(result));
    const report = JSON.parse(result.stdout) as StatusReport;
    assert.deepEqual(
      report.backups.map((b) => b.key),
      [...saved].reverse(),
    );
    const revisions = report.backups.map((b) => BigInt(b.revision));
    assert.ok(revisions[0]! > revisions[1]! && revisions[1]! > revisions[2]!);
    for (const backup of report.backups) {
      assert.equal(backup.verified, 'ok');
      assert.match(backup.sha256, /^[0-9a-f]{64}$/);
      assert.ok(backup.size > 2 * 1024 * 1024 || backup.compression === 'gzip');
      assert.ok(!Number.isNaN(Date.parse(backup.time)));
    }
    assert.deepEqual(
      report.backups.map((b) => b.compression),
      ['none', 'gzip', 'none'],
    );
  });

  it('prints a table with one row per backup', async () => {
    const result = await runBackupCli(['status', ...s3Args(minio, bucket)], awsEnv(minio));
    assert.equal(result.code, 0, failureReason(result));
    const lines = result.stdout.trimEnd().split('\n');
    assert.match(lines[0]!, /^TIME\s+REVISION\s+SIZE\s+SHA256\s+COMPRESSION\s+ETCD\s+KEY$/);
    assert.equal(lines.length, 4);
    for (const key of saved) assert.ok(result.stdout.includes(key));
  });

  it('fails when an object no longer matches its checksum, naming only that object', async () => {
    // GIVEN the middle backup (gzip) rewritten with one byte flipped and its metadata kept
    const victim = saved[1]!;
    const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: victim }));
    const body = Buffer.from(await object.Body!.transformToByteArray());
    body[Math.floor(body.length / 2)]! ^= 0x01;
    const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: victim }));
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: victim, Body: body, Metadata: head.Metadata }));

    // WHEN status --verify runs
    const result = await runBackupCli(
      ['status', ...s3Args(minio, bucket), '--verify', '--output=json'],
      awsEnv(minio),
    );

    // THEN CHECKSUM_MISMATCH, the corrupted object marked, the others still ok
    assert.equal(result.code, 5, result.stderr);
    const report = JSON.parse(result.stdout) as StatusReport;
    const verdicts = Object.fromEntries(report.backups.map((b) => [b.key, b.verified]));
    assert.deepEqual(verdicts, { [saved[0]!]: 'ok', [victim]: 'mismatch', [saved[2]!]: 'ok' });
    assert.match(report.backups[1]!.problem ?? '', /object sha256 [0-9a-f]{64} differs from the recorded/);
    assert.match(failureReason(result), /do not match their recorded checksums/);
  });
});
