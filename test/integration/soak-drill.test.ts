// The soak's restore drill (test/soak/drill.ts) against real MinIO and real etcd: a backup `backup save` wrote
// restores, and etcd on the result serves at least the backup's revision plus the bump; a backup whose bytes were changed
// (its metadata kept, so the listing still reads it complete) is reported, naming the key.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { listBackups } from '../../controller/backup/list-backups.js';
import { type Minio, startMinio } from '../env/minio.js';
import { drillBackup } from '../soak/drill.js';
import {
  awsEnv,
  createBucket,
  failureReason,
  minioClient,
  runBackupCli,
  s3Args,
} from './helpers/backup-cli.js';
import { type StandaloneEtcd, startEtcd } from './helpers/etcd.js';
import { putKeys } from './helpers/fill.js';
import { download, metadataOf } from './helpers/s3-objects.js';

describe('the soak restore drill (real etcd, real MinIO)', () => {
  let minio: Minio;
  let s3: S3Client;
  let etcd: StandaloneEtcd;
  let bucket: string;
  let work: string;

  before(async () => {
    minio = await startMinio();
    s3 = minioClient(minio);
    bucket = await createBucket(s3, 'drill');
    etcd = await startEtcd({ version: '3.6' });
    work = await mkdtemp(join(tmpdir(), 'etcd-gitops-drill-test-'));
    const client = etcd.client();
    try {
      await putKeys(client, 50);
    } finally {
      client.close();
    }
    const saved = await runBackupCli(
      [
        'save',
        `--endpoints=${etcd.clientURL}`,
        '--namespace=soak',
        '--cluster=plain',
        ...s3Args(minio, bucket),
      ],
      awsEnv(minio),
    );
    assert.equal(saved.code, 0, failureReason(saved));
  });
  after(async () => {
    s3?.destroy();
    await etcd?.stop();
    await minio?.stop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('GIVEN a backup of etcd 3.6 WHEN drilled THEN it restores and etcd serves at least its revision plus the bump', async () => {
    const [backup] = (await listBackups(s3, bucket, 'soak/plain/')).backups;
    assert.ok(backup, 'the backup is listed');
    assert.equal(await drillBackup(minio, bucket, backup), undefined);
  });

  it('GIVEN a backup whose bytes changed under the same metadata WHEN drilled THEN the drill reports it by key', async () => {
    const [good] = (await listBackups(s3, bucket, 'soak/plain/')).backups;
    assert.ok(good);
    const file = join(work, 'object.db');
    await download(s3, bucket, good.key, file);
    const bytes = await readFile(file);
    bytes[Math.floor(bytes.length / 2)] ^= 0xff;
    const key = good.key.replace(/\.db$/, '-changed.db');
    const metadata = await metadataOf(s3, bucket, good.key);
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: bytes, Metadata: metadata }));
    const changed = (await listBackups(s3, bucket, 'soak/plain/')).backups.find((b) => b.key === key);
    assert.ok(changed, 'the changed object is listed as a backup (size and metadata agree)');

    const problem = await drillBackup(minio, bucket, changed);

    assert.ok(problem, 'the drill reports the changed backup');
    assert.match(problem, new RegExp(`backup ${key.replaceAll('.', '\\.')} does not restore: .*sha256`, 'i'));
  });
});
