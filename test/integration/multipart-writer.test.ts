// MultipartWriter against real MinIO: the stored object is the written bytes, with its params, in both checksum
// modes; a body under one part is one object; a torn-down upload leaves nothing. (The save's own faults, through the
// CLI: backup-faults.test.ts.)
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { after, before, describe, it } from 'node:test';
import { ChecksumMode, HeadObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { createS3Client } from '../../controller/s3/client.js';
import { MultipartWriter } from '../../controller/s3/multipart-writer.js';
import { type Minio, startMinio } from '../env/minio.js';
import { createBucket, minioClient } from './helpers/backup-cli.js';
import { keys, openUploads, pseudoRandomBytes, storedSha256 } from './helpers/s3-objects.js';

const mib = 1024 * 1024;

/** `length` pseudo-random bytes in chunks of `chunk` (the last shorter). */
function body(length: number, chunk: number): { stream: Readable; sha256: string } {
  const bytes = pseudoRandomBytes(length);
  const chunks: Buffer[] = [];
  for (let offset = 0; offset < length; offset += chunk) chunks.push(bytes.subarray(offset, offset + chunk));
  return { stream: Readable.from(chunks), sha256: createHash('sha256').update(bytes).digest('hex') };
}

describe('MultipartWriter (real MinIO)', () => {
  let minio: Minio;
  let s3: S3Client;
  let bucket: string;

  before(async () => {
    minio = await startMinio();
    s3 = minioClient(minio);
    bucket = await createBucket(s3, 'writer');
  });

  after(async () => {
    s3?.destroy();
    await minio?.stop();
  });

  const client = (checksumMode: 'when-required' | 'when-supported') =>
    createS3Client({
      endpoint: minio.endpoint,
      forcePathStyle: true,
      checksumMode,
      credentials: { accessKeyId: minio.accessKey, secretAccessKey: minio.secretKey },
    });

  for (const mode of ['when-required', 'when-supported'] as const) {
    it(`GIVEN checksum mode ${mode} WHEN 12 MiB + 3 bytes are written in 64 KiB chunks with 5 MiB parts THEN the object holds exactly those bytes and its params`, async () => {
      const writerClient = client(mode);
      try {
        const { stream, sha256 } = body(12 * mib + 3, 64 * 1024);
        const key = `multi-${mode}.part`;
        const writer = new MultipartWriter({
          client: writerClient,
          params: { Bucket: bucket, Key: key, ContentType: 'application/x-test', Metadata: { origin: mode } },
          partSizeBytes: 5 * mib,
          queueSize: 2,
        });
        await pipeline(stream, writer);
        assert.deepEqual(await writer.outcome, { stored: true, parts: 3 });
        assert.equal(await storedSha256(s3, bucket, key), sha256);
        const head = await s3.send(
          new HeadObjectCommand({ Bucket: bucket, Key: key, ChecksumMode: ChecksumMode.ENABLED }),
        );
        assert.equal(head.ContentLength, 12 * mib + 3);
        assert.equal(head.ContentType, 'application/x-test');
        assert.deepEqual(head.Metadata, { origin: mode });
        // A multipart ETag names its part count.
        assert.match(head.ETag ?? '', /-3"$/);
        if (mode === 'when-supported') assert.ok(head.ChecksumCRC32, 'S3 kept a CRC32 of the object');
        assert.deepEqual(await openUploads(s3, bucket), []);
      } finally {
        writerClient.destroy();
      }
    });
  }

  it('GIVEN a body under one part WHEN it ends THEN one plain object of those bytes', async () => {
    const writerClient = client('when-required');
    try {
      const { stream, sha256 } = body(300 * 1024, 16 * 1024);
      const writer = new MultipartWriter({
        client: writerClient,
        params: { Bucket: bucket, Key: 'small.part' },
        partSizeBytes: 5 * mib,
        queueSize: 2,
      });
      await pipeline(stream, writer);
      assert.deepEqual(await writer.outcome, { stored: true, parts: 1 });
      assert.equal(await storedSha256(s3, bucket, 'small.part'), sha256);
      const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'small.part' }));
      assert.doesNotMatch(head.ETag ?? '', /-\d+"$/);
    } finally {
      writerClient.destroy();
    }
  });

  it('GIVEN 11 MiB written WHEN the source fails THEN the multipart upload is aborted: no object, no open upload', async () => {
    const writerClient = client('when-required');
    try {
      const { stream } = body(11 * mib, 64 * 1024);
      const failing = Readable.from(
        (async function* () {
          for await (const chunk of stream) yield chunk;
          throw new Error('the snapshot stream broke');
        })(),
      );
      const writer = new MultipartWriter({
        client: writerClient,
        params: { Bucket: bucket, Key: 'broken.part' },
        partSizeBytes: 5 * mib,
        queueSize: 2,
      });
      await assert.rejects(pipeline(failing, writer), /the snapshot stream broke/);
      assert.deepEqual(await writer.outcome, { stored: false, leftoverUpload: false });
      assert.ok(!(await keys(s3, bucket)).includes('broken.part'));
      assert.deepEqual(await openUploads(s3, bucket), []);
    } finally {
      writerClient.destroy();
    }
  });
});
