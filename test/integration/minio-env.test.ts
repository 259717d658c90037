// The test MinIO is a real S3 server on loopback, and its fault helpers really break and heal it.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { CreateBucketCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { groupAlive } from '../env/cleanup.js';
import { type Minio, startMinio } from '../env/minio.js';

function client(minio: Minio): S3Client {
  return new S3Client({
    endpoint: minio.endpoint,
    region: minio.region,
    forcePathStyle: true,
    credentials: { accessKeyId: minio.accessKey, secretAccessKey: minio.secretKey },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 1,
  });
}

async function read(s3: S3Client, key: string): Promise<string> {
  const object = await s3.send(new GetObjectCommand({ Bucket: 'backups', Key: key }));
  return (await object.Body?.transformToString()) ?? '';
}

describe('test MinIO', () => {
  let minio: Minio;
  let s3: S3Client;
  before(async () => {
    minio = await startMinio();
    s3 = client(minio);
    await s3.send(new CreateBucketCommand({ Bucket: 'backups' }));
  });
  after(async () => {
    s3?.destroy();
    await minio?.stop();
  });

  test('GIVEN a bucket WHEN an object is put THEN the same bytes come back', async () => {
    assert.match(minio.endpoint, /^http:\/\/127\.0\.0\.1:\d+$/);
    await s3.send(new PutObjectCommand({ Bucket: 'backups', Key: 'a/one', Body: 'first object' }));
    assert.equal(await read(s3, 'a/one'), 'first object');
  });

  test('fails when the server is paused: requests are refused, and after resume the data is still there', async () => {
    await s3.send(new PutObjectCommand({ Bucket: 'backups', Key: 'a/two', Body: 'kept across pause' }));
    await minio.pause();
    // A new client: an idle keep-alive socket of the old one may meet the server's close ("socket hang up") first.
    const fresh = client(minio);
    try {
      await assert.rejects(read(fresh, 'a/two'), /ECONNREFUSED/);
    } finally {
      fresh.destroy();
    }
    await minio.resume();
    assert.equal(await read(s3, 'a/two'), 'kept across pause');
  });

  test('GIVEN a running server WHEN restart() THEN it serves on the same endpoint with a new process', async () => {
    const before = minio.process()?.pid;
    await minio.restart();
    assert.notEqual(minio.process()?.pid, before);
    assert.equal(await read(s3, 'a/one'), 'first object');
  });

  test('GIVEN a second MinIO WHEN stop() THEN its process group is gone and its directory removed', async () => {
    const other = await startMinio();
    const pid = other.process()?.pid ?? -1;
    assert.ok(groupAlive(pid));
    await other.stop();
    assert.equal(groupAlive(pid), false);
    assert.equal(existsSync(other.dir), false);
  });
});
