// `backup save` (etcd snapshot streamed into an S3 multipart upload) beside the two-step baseline
// `etcdctl snapshot save` to disk + upload of that file with the same SDK, for 64 and 256 MiB databases, in
// the same run against the same etcd 3.6 and MinIO. Throughput and peak RSS (VmHWM of each child process,
// polled from /proc), medians over several runs; a table on stdout, JSON in bench/results/backup.json.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { etcdBinary } from '../test/env/binaries.js';
import { startMinio } from '../test/env/minio.js';
import { childEnv } from '../test/env/process-group.js';
import {
  awsEnv,
  cliPath,
  createBucket,
  minioClient,
  s3Args,
} from '../test/integration/helpers/backup-cli.js';
import { startEtcd } from '../test/integration/helpers/etcd.js';
import { fillEtcd } from '../test/integration/helpers/fill.js';
import { median } from './stats.js';

const here = dirname(fileURLToPath(import.meta.url));
const results = join(here, '..', '..', 'bench', 'results');
const mib = 1024 * 1024;
const runs = Number(process.env.BENCH_RUNS ?? 3);

interface Measured {
  seconds: number;
  peakRssMiB: number;
}

/** Runs a command, polling its VmHWM (peak resident set) until it exits; rejects on a non-zero exit. */
function measure(command: string, args: string[], env: Record<string, string>): Promise<Measured> {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(command, args, { env: childEnv(env), stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    let peakKiB = 0;
    const poll = setInterval(() => {
      try {
        const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        peakKiB = Math.max(peakKiB, Number(match?.[1] ?? 0));
      } catch {
        // exited between polls
      }
    }, 20);
    child.once('error', reject);
    child.once('close', (code) => {
      clearInterval(poll);
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      if (code !== 0) reject(new Error(`${command} exited ${code}: ${stderr.slice(-2000)}`));
      else resolve({ seconds, peakRssMiB: peakKiB / 1024 });
    });
  });
}

interface Row {
  databaseMiB: number;
  snapshotMiB: number;
  runs: number;
  oursSeconds: number;
  oursMiBps: number;
  oursPeakRssMiB: number;
  baselineSeconds: number;
  baselineMiBps: number;
  etcdctlPeakRssMiB: number;
  uploadPeakRssMiB: number;
}

export async function run(): Promise<void> {
  const [minio, etcd] = await Promise.all([startMinio(), startEtcd({ version: '3.6' })]);
  const work = await mkdtemp(join(tmpdir(), 'etcd-gitops-bench-backup-'));
  const s3 = minioClient(minio);
  const rows: Row[] = [];
  try {
    const bucket = await createBucket(s3, 'bench');
    const env = { ...awsEnv(minio), S3_ENDPOINT: minio.endpoint, LOG_LEVEL: 'warn' };
    const client = etcd.client();
    let filled = 0;
    for (const databaseMiB of [64, 256]) {
      await fillEtcd(client, (databaseMiB - filled) * mib, { prefix: `fill-${databaseMiB}/` });
      filled = databaseMiB;
      const ours: Measured[] = [];
      const snap: Measured[] = [];
      const upload: Measured[] = [];
      let snapshotBytes = 0;
      for (let i = 0; i < runs; i++) {
        ours.push(
          await measure(
            process.execPath,
            [
              cliPath,
              'backup',
              'save',
              `--endpoints=${etcd.clientURL}`,
              '--namespace=bench',
              `--cluster=db${databaseMiB}`,
              ...s3Args(minio, bucket),
            ],
            env,
          ),
        );
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
          await measure(
            process.execPath,
            [join(here, 'upload-file.js'), file, bucket, `baseline/db${databaseMiB}-${i}.db`],
            env,
          ),
        );
        await rm(file);
      }
      const snapshotMiB = snapshotBytes / mib;
      const baseline = snap.map((s, i) => s.seconds + upload[i]!.seconds);
      rows.push({
        databaseMiB,
        snapshotMiB: Math.round(snapshotMiB),
        runs,
        oursSeconds: median(ours.map((m) => m.seconds)),
        oursMiBps: snapshotMiB / median(ours.map((m) => m.seconds)),
        oursPeakRssMiB: median(ours.map((m) => m.peakRssMiB)),
        baselineSeconds: median(baseline),
        baselineMiBps: snapshotMiB / median(baseline),
        etcdctlPeakRssMiB: median(snap.map((m) => m.peakRssMiB)),
        uploadPeakRssMiB: median(upload.map((m) => m.peakRssMiB)),
      });
    }
    client.close();
  } finally {
    s3.destroy();
    await Promise.all([minio.stop(), etcd.stop(), rm(work, { recursive: true, force: true })]);
  }
  const fixed = (n: number) => n.toFixed(1);
  console.log(
    'db MiB | snapshot MiB | backup save s | MiB/s | peak RSS MiB || etcdctl+upload s | MiB/s | etcdctl RSS | upload RSS',
  );
  for (const r of rows) {
    console.log(
      [
        r.databaseMiB,
        r.snapshotMiB,
        fixed(r.oursSeconds),
        fixed(r.oursMiBps),
        fixed(r.oursPeakRssMiB),
        fixed(r.baselineSeconds),
        fixed(r.baselineMiBps),
        fixed(r.etcdctlPeakRssMiB),
        fixed(r.uploadPeakRssMiB),
      ].join(' | '),
    );
  }
  const [small, large] = rows;
  const growth = small && large ? large.oursPeakRssMiB / small.oursPeakRssMiB : Number.NaN;
  console.log(`backup save peak RSS, 256 MiB vs 64 MiB database: x${growth.toFixed(2)} (flat is ~x1)`);
  mkdirSync(results, { recursive: true });
  writeFileSync(
    join(results, 'backup.json'),
    `${JSON.stringify({ runs, rows, peakRssGrowth: growth }, null, 2)}\n`,
  );
}
