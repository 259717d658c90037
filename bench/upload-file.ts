// Baseline for bench/backup.ts: uploads one file with the same SDK, uploader and part settings as `backup save`.
// Usage: node build/bench/upload-file.js <file> <bucket> <key>  (S3 endpoint and credentials from env)
import { createReadStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { DEFAULT_PART_SIZE_BYTES, DEFAULT_QUEUE_SIZE } from '../controller/backup/part-defaults.js';
import { createS3Client } from '../controller/s3/client.js';
import { MultipartWriter } from '../controller/s3/multipart-writer.js';

const [file, bucket, key] = process.argv.slice(2);
if (!file || !bucket || !key) throw new Error('usage: upload-file.js <file> <bucket> <key>');
const s3 = createS3Client({ endpoint: process.env.S3_ENDPOINT, forcePathStyle: true });
try {
  await pipeline(
    createReadStream(file),
    new MultipartWriter({
      client: s3,
      partSizeBytes: DEFAULT_PART_SIZE_BYTES,
      queueSize: DEFAULT_QUEUE_SIZE,
      params: { Bucket: bucket, Key: key },
    }),
  );
} finally {
  s3.destroy();
}
