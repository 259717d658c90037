// Where a save's time goes, part one for bench/backup.ts: only the etcd side of `backup save`, the same client,
// gRPC stream and verifier with nothing uploaded (the bytes are dropped). Beside `etcdctl snapshot save` it is
// our Maintenance client's receive rate (grpc-js); beside the save it is the share the upload does not explain.
// Usage: node build/bench/receive-snapshot.js <endpoint>
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { SnapshotBlobs } from '../controller/backup/snapshot-source.js';
import { SnapshotVerifier } from '../controller/backup/snapshot-verifier.js';
import { MaintenanceClient } from '../controller/etcd/maintenance-client.js';

const [endpoint] = process.argv.slice(2);
if (!endpoint) throw new Error('usage: receive-snapshot.js <endpoint>');
const client = await MaintenanceClient.connect(endpoint);
try {
  const drop = new Writable({
    write(_chunk: Buffer, _encoding, callback) {
      callback();
    },
  });
  await pipeline(client.snapshot(), new SnapshotBlobs(), new SnapshotVerifier(), drop);
} finally {
  client.close();
}
