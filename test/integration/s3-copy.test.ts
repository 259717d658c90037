// copyWithMetadata against real MinIO: the backup's "rename" of its verified `.part`. Both paths, one CopyObject and
// a copy of ranges (here with 5 MiB parts, so that a 12 MiB object takes it), store the source's bytes under the new
// key with the new metadata; a copy of ranges that fails leaves no object and no open upload.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { HeadObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { copyWithMetadata } from '../../controller/s3/copy.js';
import { type Minio, startMinio } from '../env/minio.js';
import { createBucket, minioClient } from './helpers/backup-cli.js';
import { keys, openUploads, pseudoRandomBytes, storedSha256 } from './helpers/s3-objects.js';

const mib = 1024 * 1024;

describe('copyWithMetadata (real MinIO)', () => {
  let minio: Minio;
  let s3: S3Client;
  let bucket: string;
  const source = pseudoRandomBytes(12 * mib + 3);
  const sourceSha256 = createHash('sha256').update(source).digest('hex');

  before(async () => {
    minio = await startMinio();
    s3 = minioClient(minio);
    bucket = await createBucket(s3, 'copy');
    await s3.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: 'src.part',
        Body: source,
        Metadata: { 'etcd-gitops-staging': 'v1' },
      }),
    );
  });

  after(async () => {
    s3?.destroy();
    await minio?.stop();
  });

  const cases = [
    {
      name: 'one CopyObject (within one part of the default size)',
      limits: {},
      key: 'single',
      etag: /^"[0-9a-f]{32}"$/,
    },
    {
      name: 'a multipart copy of three 5 MiB ranges, two at a time',
      limits: { copyPartBytes: 5 * mib, copyConcurrency: 2 },
      key: 'ranges-2',
      etag: /^"[0-9a-f]{32}-3"$/,
    },
    {
      name: 'a multipart copy of three 5 MiB ranges, one at a time',
      limits: { copyPartBytes: 5 * mib, copyConcurrency: 1 },
      key: 'ranges-1',
      etag: /^"[0-9a-f]{32}-3"$/,
    },
  ];
  for (const { name, limits, key, etag } of cases) {
    it(`GIVEN a 12 MiB + 3 byte object WHEN copied by ${name} THEN the new key holds its bytes, in the parts the path makes, with only the new metadata and content type`, async () => {
      await copyWithMetadata(s3, {
        bucket,
        sourceKey: 'src.part',
        destinationKey: key,
        size: source.length,
        metadata: { 'etcd-gitops-backup': 'v1', 'snapshot-sha256': sourceSha256 },
        contentType: 'application/octet-stream',
        ...limits,
      });
      assert.equal(await storedSha256(s3, bucket, key), sourceSha256);
      const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
      assert.equal(head.ContentLength, source.length);
      assert.equal(head.ContentType, 'application/octet-stream');
      // A multipart object's ETag ends in its number of parts: the path taken.
      assert.match(head.ETag ?? '', etag);
      assert.deepEqual(head.Metadata, { 'etcd-gitops-backup': 'v1', 'snapshot-sha256': sourceSha256 });
      assert.deepEqual(await openUploads(s3, bucket), []);
    });
  }

  it('GIVEN a multipart copy whose source is gone WHEN it runs THEN it rejects and leaves no object and no open upload under the new key', async () => {
    await assert.rejects(
      copyWithMetadata(s3, {
        bucket,
        sourceKey: 'missing.part',
        destinationKey: 'never',
        size: source.length,
        metadata: { 'etcd-gitops-backup': 'v1' },
        contentType: 'application/octet-stream',
        copyPartBytes: 5 * mib,
        copyConcurrency: 2,
      }),
      (error: Error) => error.name === 'NoSuchKey',
    );
    assert.deepEqual(
      (await keys(s3, bucket)).filter((k) => k === 'never'),
      [],
    );
    assert.deepEqual(await openUploads(s3, bucket), []);
  });
});
