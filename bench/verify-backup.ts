// The controller's verification of a backup before a restore (controller/etcdrestore/verify.ts, `verifyBackup`),
// alone in a process, for bench/large.ts: run with the controller's NODE_OPTIONS, its peak resident set is what the
// controller's Pod adds while it verifies (the object streamed, nothing held or written).
// Usage: node build/bench/verify-backup.js <s3 endpoint> <bucket> <key> <cluster etcd version>  (keys from env)
import { pino } from 'pino';
import { verifyBackup } from '../controller/etcdrestore/verify.js';

const [endpoint, bucket, key, version] = process.argv.slice(2);
if (!endpoint || !bucket || !key || !version)
  throw new Error('usage: verify-backup.js <s3 endpoint> <bucket> <key> <cluster etcd version>');
const result = await verifyBackup(
  { bucket, key, endpoint, forcePathStyle: true },
  {
    accessKeyId: process.env.AWS_ACCESS_KEY_ID ?? '',
    secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY ?? '',
  },
  version,
  pino({ level: 'warn' }),
);
process.stdout.write(`${JSON.stringify(result)}\n`);
if (!result.ok) process.exitCode = 1;
