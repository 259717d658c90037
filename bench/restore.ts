// `restore fetch` (download + verify object sha256, snapshot trailer and sha256 + `etcdutl snapshot restore`) and
// etcd started on the result until healthy, beside the same by hand: download of the object to a file with the
// same SDK, `etcdutl snapshot restore`, etcd start. 64 and 256 MiB databases (etcd 3.6, MinIO), medians over
// BENCH_RUNS runs, in the same run; a table on stdout, JSON in bench/results/restore.json.
// Then, once per size (each takes minutes: a local Kubernetes, a 3-member cluster, 64 or 256 MiB written and backed
// up by a Job from the synthesized CronJob): an in-place restore on the local Kubernetes with the controller as a
// process, from the EtcdRestore request to Completed (the cluster Ready at 3 with the restored data), split at the
// seed's Ready, beside its fair floor on the same nodes: the same recovery of our member Pods by a script
// (restore-pods.ts). BENCH_RESTORE_KUBE=0 skips it; BENCH_RESTORE_KUBE_MIB=64 picks the sizes (default 64,256).
// Ours and the controller run on the Node.js the image ships (image/node-runtime.ts).
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { nodeRuntime } from '../image/node-runtime.js';
import { etcdBinary } from '../test/env/binaries.js';
import { startMinio } from '../test/env/minio.js';
import { freePorts } from '../test/env/ports.js';
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
import { startEtcdOnDataDir } from '../test/integration/helpers/restore.js';
import { download } from '../test/integration/helpers/s3-objects.js';
import { etcdutlRestoreArgs, restoreFetchArgs } from './command-lines.js';
import { KUBE_RESTORE_RUNS, type KubernetesRestoreRow, runOnKubernetes } from './restore-kube.js';
import { median } from './stats.js';

const exec = promisify(execFile);
const here = dirname(fileURLToPath(import.meta.url));
const results = join(here, '..', '..', 'bench', 'results');
const mib = 1024 * 1024;
const runs = Number(process.env.BENCH_RUNS ?? 3);

const seconds = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e9;

interface Row {
  databaseMiB: number;
  runs: number;
  oursFetchSeconds: number;
  oursToHealthySeconds: number;
  byHandDownloadSeconds: number;
  byHandRestoreSeconds: number;
  byHandToHealthySeconds: number;
}

const rounded = (row: object) =>
  Object.fromEntries(
    Object.entries(row).map(([k, v]) => [k, typeof v === 'number' ? Number(v.toFixed(2)) : v]),
  );

export async function run(): Promise<void> {
  // Ours (`backup save`, `restore fetch`) and the controller on the local Kubernetes run on the image's Node.js; the
  // by-hand download runs in this process, with no process to start (the least a download costs).
  const runtime = await nodeRuntime();
  const [minio, etcd] = await Promise.all([startMinio(), startEtcd({ version: '3.6' })]);
  const work = await mkdtemp(join(tmpdir(), 'etcd-gitops-bench-restore-'));
  const s3 = minioClient(minio);
  const rows: Row[] = [];
  const etcdutl = etcdBinary(etcd.version, 'etcdutl');
  try {
    const bucket = await createBucket(s3, 'bench-restore');
    const env = childEnv({ ...awsEnv(minio), LOG_LEVEL: 'warn' });
    const client = etcd.client();
    let filled = 0;
    for (const databaseMiB of [64, 256]) {
      await fillEtcd(client, (databaseMiB - filled) * mib, { prefix: `fill-${databaseMiB}/` });
      filled = databaseMiB;
      const saved = await exec(
        runtime.node,
        [
          cliPath,
          'backup',
          'save',
          `--endpoints=${etcd.clientURL}`,
          '--namespace=bench',
          `--cluster=db${databaseMiB}`,
          ...s3Args(minio, bucket),
        ],
        { env },
      );
      const key = (JSON.parse(saved.stdout) as { key: string }).key;
      const measured = {
        fetch: [] as number[],
        ours: [] as number[],
        dl: [] as number[],
        restore: [] as number[],
        hand: [] as number[],
      };
      for (let i = 0; i < runs; i++) {
        const [peerPort] = (await freePorts(1)) as [number];
        const seed = { name: 'bench-0', peerURL: `http://127.0.0.1:${peerPort}` };
        // ours
        const mount = join(work, `ours-${databaseMiB}-${i}`);
        await mkdir(mount);
        let start = process.hrtime.bigint();
        await exec(
          runtime.node,
          restoreFetchArgs({
            minio,
            bucket,
            key,
            etcdVersion: etcd.version,
            dataDir: join(mount, 'data'),
            seed,
            etcdutl,
          }),
          { env },
        );
        measured.fetch.push(seconds(start));
        const ours = await startEtcdOnDataDir(etcd.version, join(mount, 'data'), seed.name, peerPort, mount);
        measured.ours.push(seconds(start));
        await ours.stop();
        await rm(mount, { recursive: true, force: true });
        // by hand
        const hand = join(work, `hand-${databaseMiB}-${i}`);
        await mkdir(hand);
        start = process.hrtime.bigint();
        await download(s3, bucket, key, join(hand, 'snapshot.db'));
        measured.dl.push(seconds(start));
        const restoreStart = process.hrtime.bigint();
        await exec(etcdutl, etcdutlRestoreArgs(join(hand, 'snapshot.db'), join(hand, 'data'), seed), { env });
        measured.restore.push(seconds(restoreStart));
        const byHand = await startEtcdOnDataDir(etcd.version, join(hand, 'data'), seed.name, peerPort, hand);
        measured.hand.push(seconds(start));
        await byHand.stop();
        await rm(hand, { recursive: true, force: true });
      }
      rows.push({
        databaseMiB,
        runs,
        oursFetchSeconds: median(measured.fetch),
        oursToHealthySeconds: median(measured.ours),
        byHandDownloadSeconds: median(measured.dl),
        byHandRestoreSeconds: median(measured.restore),
        byHandToHealthySeconds: median(measured.hand),
      });
    }
    client.close();
  } finally {
    s3.destroy();
    await Promise.all([minio.stop(), etcd.stop(), rm(work, { recursive: true, force: true })]);
  }
  console.table(rows.map(rounded));
  // On the local Kubernetes: one environment per size (it takes minutes to start), KUBE_RESTORE_RUNS restores in it.
  const kubeSizes =
    process.env.BENCH_RESTORE_KUBE === '0'
      ? []
      : (process.env.BENCH_RESTORE_KUBE_MIB ?? '64,256').split(',').map(Number);
  const kubernetes: KubernetesRestoreRow[] = [];
  for (const databaseMiB of kubeSizes) kubernetes.push(await runOnKubernetes(databaseMiB, runtime.node));
  if (kubernetes.length > 0) {
    console.log(
      `on the local Kubernetes: medians of ${KUBE_RESTORE_RUNS} restores per size, one environment each`,
    );
    console.table(kubernetes.map(rounded));
  }
  mkdirSync(results, { recursive: true });
  writeFileSync(
    join(results, 'restore.json'),
    `${JSON.stringify({ when: new Date().toISOString(), node: process.version, commandNodeVersion: runtime.version, rows, ...(kubernetes.length > 0 ? { kubernetes } : {}) }, null, 2)}\n`,
  );
}
