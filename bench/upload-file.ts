// Baseline for bench/backup.ts: uploads one file with the same SDK and Upload settings as `backup save`.
// Usage: node build/bench/upload-file.js <file> <bucket> <key>  (S3 endpoint and credentials from env)
import { createReadStream } from 'node:fs';
import { Upload } from '@aws-sdk/lib-storage';
import { DEFAULT_PART_SIZE_BYTES, DEFAULT_QUEUE_SIZE } from '../controller/backup/part-defaults.js';
import { createS3Client } from '../controller/s3/client.js';

const [file, bucket, key] = process.argv.slice(2);
const s3 = createS3Client({ endpoint: process.env.S3_ENDPOINT, forcePathStyle: true });
await new Upload({
  client: s3,
  partSize: DEFAULT_PART_SIZE_BYTES,
  queueSize: DEFAULT_QUEUE_SIZE,
  params: { Bucket: bucket, Key: key, Body: createReadStream(file ?? '') },
}).done();
s3.destroy();
