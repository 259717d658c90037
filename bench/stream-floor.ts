// Where a save's time goes, part two for bench/backup.ts: the least a streaming save can do with the code ours
// runs: etcd's snapshot stream, read by the same Maintenance client, straight into the same multipart writer with
// the same part size and queue as `backup save`, and nothing else (no verifier, no hash, no staging marker, no
// `.part` → key copy). Beside the save it is what the stream itself costs; beside `etcdctl snapshot save` + upload,
// whether streaming can beat it here.
// Usage: node build/bench/stream-floor.js <endpoint> <bucket> <key>  (S3 endpoint and credentials from env)
import { pipeline } from 'node:stream/promises';
import { DEFAULT_PART_SIZE_BYTES, DEFAULT_QUEUE_SIZE } from '../controller/backup/part-defaults.js';
import { SnapshotBlobs } from '../controller/backup/snapshot-source.js';
import { MaintenanceClient } from '../controller/etcd/maintenance-client.js';
import { createS3Client } from '../controller/s3/client.js';
import { MultipartWriter } from '../controller/s3/multipart-writer.js';

const [endpoint, bucket, key] = process.argv.slice(2);
if (!endpoint || !bucket || !key) throw new Error('usage: stream-floor.js <endpoint> <bucket> <key>');
const s3 = createS3Client({ endpoint: process.env.S3_ENDPOINT, forcePathStyle: true });
const client = await MaintenanceClient.connect(endpoint);
try {
  const writer = new MultipartWriter({
    client: s3,
    partSizeBytes: DEFAULT_PART_SIZE_BYTES,
    queueSize: DEFAULT_QUEUE_SIZE,
    params: { Bucket: bucket, Key: key },
  });
  await pipeline(client.snapshot(), new SnapshotBlobs(), writer);
} finally {
  client.close();
  s3.destroy();
}
