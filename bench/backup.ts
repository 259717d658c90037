// `backup save` (etcd snapshot streamed into an S3 multipart upload) beside the two-step baseline
// `etcdctl snapshot save` to disk + upload of that file with the same SDK, for 64 and 256 MiB databases, in
// the same run against the same etcd 3.6 and MinIO, for databases of 64 MiB to 2 GiB (how the cost grows). Throughput,
// peak RSS (VmHWM of each child process, polled from /proc) and the share of the server-side copy that turns the
// verified `.part` into the backup (docs/design/backup.md, step 6), medians over several runs; a table on stdout,
// JSON in bench/results/backup.json. Each run's objects are deleted after it, so 2 GiB rows fit the disk. Ours, its
// etcd side alone and the least streaming save with the same clients (stream-floor.ts) run with the `NODE_OPTIONS` a
// backup Job gets under its default limit; the by-hand upload without. Every Node.js process runs on the Node.js the
// image ships (image/node-runtime.ts), as a backup Job does.
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_BACKUP_NODE_OPTIONS } from '../constructs/conventions/limits.js';
import { nodeRuntime } from '../image/node-runtime.js';
import { etcdBinary } from '../test/env/binaries.js';
import { startMinio } from '../test/env/minio.js';
import { awsEnv, createBucket, minioClient } from '../test/integration/helpers/backup-cli.js';
import { startEtcd } from '../test/integration/helpers/etcd.js';
import { fillEtcd } from '../test/integration/helpers/fill.js';
import { bundled } from './bundled.js';
import { emptyPrefix, type Measured, measure } from './child-measure.js';
import { backupSaveArgs } from './command-lines.js';
import { median } from './stats.js';

const here = dirname(fileURLToPath(import.meta.url));
const results = join(here, '..', '..', 'bench', 'results');
const mib = 1024 * 1024;
const runs = Number(process.env.BENCH_RUNS ?? 3);
/** Database sizes, smallest first (each row adds to the last one's data). */
const SIZES_MIB = [64, 256, 1024, 2048];

/**
 * Seconds from `Uploaded and verified snapshot` to `Stored backup` in a save's JSON log (pino's `time`, ms): the
 * copy of the verified `.part` to its key and the `.part`'s deletion.
 */
function copySeconds(stderr: string): number {
  const times = new Map<string, number>();
  for (const line of stderr.split('\n')) {
    if (!line.startsWith('{')) continue;
    const entry = JSON.parse(line) as { msg?: string; time?: number };
    if (entry.msg && entry.time !== undefined) times.set(entry.msg, entry.time);
  }
  const uploaded = times.get('Uploaded and verified snapshot');
  const stored = times.get('Stored backup');
  if (uploaded === undefined || stored === undefined)
    throw new Error(`backup save did not log both steps; its stderr ends: ${stderr.slice(-1000)}`);
  return (stored - uploaded) / 1000;
}

interface Row {
  databaseMiB: number;
  snapshotMiB: number;
  runs: number;
  oursSeconds: number;
  oursMinSeconds: number;
  oursMaxSeconds: number;
  /** Median seconds of the `.part` → key copy inside `oursSeconds`. */
  oursCopySeconds: number;
  oursMiBps: number;
  oursPeakRssMiB: number;
  baselineSeconds: number;
  baselineMiBps: number;
  /** The two halves of the baseline, apart. */
  etcdctlSeconds: number;
  uploadSeconds: number;
  etcdctlPeakRssMiB: number;
  uploadPeakRssMiB: number;
  /** Only the etcd side of a save (receive-snapshot.ts): our Maintenance client's stream and the verifier, nothing uploaded. */
  receiveSeconds: number;
  receivePeakRssMiB: number;
  /** The least streaming save with the same clients (stream-floor.ts): etcd's stream into our multipart writer, nothing else. */
  streamFloorSeconds: number;
  streamFloorPeakRssMiB: number;
}

export async function run(): Promise<void> {
  const { node, version: nodeVersion } = await nodeRuntime();
  // The floors' programs bundled as ours is (bundled.ts).
  const uploadFile = await bundled(join(here, 'upload-file.js'));
  const receiveSnapshot = await bundled(join(here, 'receive-snapshot.js'));
  const streamFloorProgram = await bundled(join(here, 'stream-floor.js'));
  const [minio, etcd] = await Promise.all([startMinio(), startEtcd({ version: '3.6' })]);
  const etcdVersion = etcd.version;
  const work = await mkdtemp(join(tmpdir(), 'etcd-gitops-bench-backup-'));
  const s3 = minioClient(minio);
  const rows: Row[] = [];
  try {
    const bucket = await createBucket(s3, 'bench');
    const env = { ...awsEnv(minio), S3_ENDPOINT: minio.endpoint, LOG_LEVEL: 'info' };
    const jobEnv = { ...env, NODE_OPTIONS: DEFAULT_BACKUP_NODE_OPTIONS };
    const client = etcd.client();
    let filled = 0;
    for (const databaseMiB of SIZES_MIB) {
      await fillEtcd(client, (databaseMiB - filled) * mib, { prefix: `fill-${databaseMiB}/` });
      filled = databaseMiB;
      const ours: Measured[] = [];
      const snap: Measured[] = [];
      const upload: Measured[] = [];
      const receive: Measured[] = [];
      const streamFloor: Measured[] = [];
      let snapshotBytes = 0;
      for (let i = 0; i < runs; i++) {
        ours.push(await measure(node, backupSaveArgs(etcd.clientURL, databaseMiB, minio, bucket), jobEnv));
        await emptyPrefix(s3, bucket, `bench/db${databaseMiB}/`);
        const file = join(work, 'snapshot.db');
        snap.push(
          await measure(
            etcdBinary(etcd.version, 'etcdctl'),
            [`--endpoints=${etcd.clientURL}`, 'snapshot', 'save', file],
            env,
          ),
        );
        snapshotBytes = statSync(file).size;
        upload.push(
          await measure(node, [uploadFile, file, bucket, `baseline/db${databaseMiB}-${i}.db`], env),
        );
        await rm(file);
        await emptyPrefix(s3, bucket, 'baseline/');
        receive.push(await measure(node, [receiveSnapshot, etcd.clientURL], jobEnv));
        streamFloor.push(
          await measure(
            node,
            [streamFloorProgram, etcd.clientURL, bucket, `stream-floor/db${databaseMiB}-${i}.db`],
            jobEnv,
          ),
        );
        await emptyPrefix(s3, bucket, 'stream-floor/');
      }
      const snapshotMiB = snapshotBytes / mib;
      const baseline = snap.map((s, i) => s.seconds + upload[i]!.seconds);
      rows.push({
        databaseMiB,
        snapshotMiB: Math.round(snapshotMiB),
        runs,
        oursSeconds: median(ours.map((m) => m.seconds)),
        oursMinSeconds: Math.min(...ours.map((m) => m.seconds)),
        oursMaxSeconds: Math.max(...ours.map((m) => m.seconds)),
        oursCopySeconds: median(ours.map((m) => copySeconds(m.stderr))),
        oursMiBps: snapshotMiB / median(ours.map((m) => m.seconds)),
        oursPeakRssMiB: median(ours.map((m) => m.peakRssMiB)),
        baselineSeconds: median(baseline),
        baselineMiBps: snapshotMiB / median(baseline),
        etcdctlSeconds: median(snap.map((m) => m.seconds)),
        uploadSeconds: median(upload.map((m) => m.seconds)),
        etcdctlPeakRssMiB: median(snap.map((m) => m.peakRssMiB)),
        uploadPeakRssMiB: median(upload.map((m) => m.peakRssMiB)),
        receiveSeconds: median(receive.map((m) => m.seconds)),
        receivePeakRssMiB: median(receive.map((m) => m.peakRssMiB)),
        streamFloorSeconds: median(streamFloor.map((m) => m.seconds)),
        streamFloorPeakRssMiB: median(streamFloor.map((m) => m.peakRssMiB)),
      });
    }
    client.close();
  } finally {
    s3.destroy();
    await Promise.all([minio.stop(), etcd.stop(), rm(work, { recursive: true, force: true })]);
  }
  const fixed = (n: number) => n.toFixed(1);
  console.log(
    'db MiB | snapshot MiB | backup save s | of it copy s | MiB/s | peak RSS MiB || etcdctl s + upload s | MiB/s | etcdctl RSS | upload RSS || receive only s | RSS || least stream s | RSS',
  );
  for (const r of rows) {
    console.log(
      [
        r.databaseMiB,
        r.snapshotMiB,
        fixed(r.oursSeconds),
        fixed(r.oursCopySeconds),
        fixed(r.oursMiBps),
        fixed(r.oursPeakRssMiB),
        `${fixed(r.etcdctlSeconds)} + ${fixed(r.uploadSeconds)}`,
        fixed(r.baselineMiBps),
        fixed(r.etcdctlPeakRssMiB),
        fixed(r.uploadPeakRssMiB),
        fixed(r.receiveSeconds),
        fixed(r.receivePeakRssMiB),
        fixed(r.streamFloorSeconds),
        fixed(r.streamFloorPeakRssMiB),
      ].join(' | '),
    );
  }
  const small = rows[0];
  const large = rows.at(-1);
  const growth = small && large ? large.oursPeakRssMiB / small.oursPeakRssMiB : Number.NaN;
  console.log(
    `backup save peak RSS, ${large?.databaseMiB} MiB vs ${small?.databaseMiB} MiB database: x${growth.toFixed(2)} (flat is ~x1)`,
  );
  mkdirSync(results, { recursive: true });
  writeFileSync(
    join(results, 'backup.json'),
    `${JSON.stringify({ bench: 'backup', node: process.version, commandNodeVersion: nodeVersion, etcd: etcdVersion, date: new Date().toISOString(), runs, nodeOptions: DEFAULT_BACKUP_NODE_OPTIONS, rows, peakRssGrowth: growth }, null, 2)}\n`,
  );
}
