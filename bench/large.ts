// Large databases (issue 24, part 5): a 2 GiB and an 8 GiB database (BENCH_LARGE_MIB, default 2048,8192) in one etcd
// 3.6 member with MinIO, both on loopback. For each size, BENCH_LARGE_RUNS times (default 1: an 8 GiB step takes
// minutes):
// - `backup save` with a backup Job's NODE_OPTIONS, beside `etcdctl snapshot save` + upload of that file with the same
//   SDK (bench/upload-file.ts);
// - the controller's verification before a restore (`verifyBackup`, bench/verify-backup.ts) with the controller's
//   NODE_OPTIONS;
// - `restore fetch` (as the seed's init container runs it: no memory limit, no NODE_OPTIONS) and etcd started on its
//   data dir until healthy, beside the same by hand (download, `etcdutl snapshot restore`, etcd).
// At the first size only, a learner joins the member and is promoted the way the controller promotes one: `member
// promote` every REQUEUE.learner until etcd accepts it (etcd refuses a learner that is not in sync with the leader),
// timed from its AddLearner; the promoted member must then answer with the source's key count and revision.
// Peak resident sets are each process's VmHWM; a container's memory limit is printed beside it where it has one. Every
// Node.js process (ours, the by-hand upload) runs on the Node.js the image ships (image/node-runtime.ts).
// A table on stdout, JSON in bench/results/large.json.
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { Etcd3 } from 'etcd3';
import {
  DEFAULT_BACKUP_NODE_OPTIONS,
  DEFAULT_BACKUP_RESOURCES,
  DEFAULT_CONTROLLER_NODE_OPTIONS,
  DEFAULT_CONTROLLER_RESOURCES,
} from '../constructs/conventions/limits.js';
import { quantityBytes } from '../constructs/conventions/quantity.js';
import { addLearner, isEtcdBusy, promoteMember, removeMember } from '../controller/etcd/members.js';
import { REQUEUE } from '../controller/etcdcluster/plan.js';
import { nodeRuntime } from '../image/node-runtime.js';
import { etcdBinary } from '../test/env/binaries.js';
import { startMinio } from '../test/env/minio.js';
import { freePorts } from '../test/env/ports.js';
import { awsEnv, createBucket, minioClient } from '../test/integration/helpers/backup-cli.js';
import { etcdClient } from '../test/integration/helpers/etcd.js';
import { fillToDatabaseSize } from '../test/integration/helpers/fill.js';
import {
  createTestCluster,
  type TestCluster,
  type TestMember,
} from '../test/integration/helpers/membership-etcd.js';
import { startEtcdOnDataDir } from '../test/integration/helpers/restore.js';
import { download } from '../test/integration/helpers/s3-objects.js';
import { bundled } from './bundled.js';
import { emptyPrefix, type Measured, measure } from './child-measure.js';
import { backupSaveArgs, etcdutlRestoreArgs, restoreFetchArgs } from './command-lines.js';
import { median } from './stats.js';

const here = dirname(fileURLToPath(import.meta.url));
const results = join(here, '..', '..', 'bench', 'results');
const mib = 1024 * 1024;
const SIZES_MIB = (process.env.BENCH_LARGE_MIB ?? '2048,8192').split(',').map(Number);
const runs = Number(process.env.BENCH_LARGE_RUNS ?? 1);
/** Above the largest database, so etcd takes every write and raises no NOSPACE alarm on a restored copy. */
const QUOTA_FLAG = `--quota-backend-bytes=${10 * 1024 ** 3}`;
/** How long a restored member may take to report healthy: a large database rebuilds its index first. */
const HEALTHY_TIMEOUT_MS = 600_000;
/** The learner gives up after this (never reached in a healthy run: it is a bound, not a measure). */
const PROMOTE_TIMEOUT_S = 1_800;

const seconds = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e9;
const limitMiB = (memory: string) => (quantityBytes(memory) ?? Number.NaN) / mib;

export interface LargeRow {
  databaseMiB: number;
  snapshotMiB: number;
  keys: number;
  runs: number;
  backupSeconds: number;
  backupMiBps: number;
  backupPeakRssMiB: number;
  etcdctlSeconds: number;
  uploadSeconds: number;
  baselineMiBps: number;
  etcdctlPeakRssMiB: number;
  uploadPeakRssMiB: number;
  verifySeconds: number;
  verifyPeakRssMiB: number;
  restoreFetchSeconds: number;
  restoreFetchPeakRssMiB: number;
  restoreToHealthySeconds: number;
  byHandDownloadSeconds: number;
  byHandRestoreSeconds: number;
  byHandToHealthySeconds: number;
}

export interface LearnerResult {
  databaseMiB: number;
  /** From AddLearner to the accepted promote. */
  promotedSeconds: number;
  /** Promotes etcd refused first because the learner was not in sync with the leader. */
  refusedPromotes: number;
  /** Promotes etcd refused before that as "not yet" (isEtcdBusy: the learner not started, the leader's 5 s). */
  busyPromotes: number;
  /** The promoted member's own answer: key count and revision, equal to the source's. */
  keys: number;
  revision: string;
}

/** bench/results/large.json. */
export interface LargeResults {
  readonly bench: 'large';
  readonly node: string;
  /** The Node.js ours and the by-hand upload ran on (the image's); absent before 2026-12-05 (then `node`). */
  readonly commandNodeVersion?: string;
  readonly etcd: string;
  readonly date: string;
  readonly runs: number;
  readonly nodeOptions: { readonly backupJob: string; readonly controller: string };
  /** The memory limits of a backup Job and of the controller, MiB. */
  readonly limits: { readonly backupJobMiB: number; readonly controllerMiB: number };
  readonly rows: readonly LargeRow[];
  readonly learner?: LearnerResult;
}

/** Key count and revision as one member alone answers them (a serializable read of that member). */
async function contentOf(client: Etcd3): Promise<{ keys: number; revision: string }> {
  const response = await client.kv.range({
    key: Buffer.from([0]),
    range_end: Buffer.from([0]),
    count_only: true,
    serializable: true,
  });
  return { keys: Number(response.count), revision: String(response.header.revision) };
}

/** A learner added to `source`, started, promoted as the controller promotes; removed and wiped afterwards. */
async function learnerCatchUp(
  cluster: TestCluster,
  source: TestMember,
  databaseMiB: number,
): Promise<LearnerResult> {
  const learner = await cluster.reserve('m1');
  const start = process.hrtime.bigint();
  const added = await addLearner(source.clientURL, learner.peerURL);
  if (added.outcome !== 'added') throw new Error(`AddLearner answered ${added.outcome}`);
  cluster.start('m1', 'existing', ['m0', 'm1'], 'bench-large', { extraArgs: [QUOTA_FLAG] });
  let refusedPromotes = 0;
  let busyPromotes = 0;
  for (;;) {
    // etcd's strict reconfiguration check refuses while the learner has not started ("unhealthy cluster"): the
    // controller takes that as "not yet" (isEtcdBusy), and so does this loop.
    const answer = await promoteMember(source.clientURL, added.member.id).catch((error: unknown) => {
      if (isEtcdBusy(error)) return 'busy' as const;
      throw error;
    });
    if (answer === 'promoted') break;
    if (answer === 'busy') busyPromotes++;
    else if (answer === 'not-ready') refusedPromotes++;
    else throw new Error(`member promote answered ${answer}`);
    if (seconds(start) > PROMOTE_TIMEOUT_S) throw new Error(`learner not promoted in ${PROMOTE_TIMEOUT_S} s`);
    await sleep(REQUEUE.learner);
  }
  const promotedSeconds = seconds(start);
  const [sourceClient, learnerClient] = [etcdClient(source.clientURL), etcdClient(learner.clientURL)];
  try {
    const [want, got] = [await contentOf(sourceClient), await contentOf(learnerClient)];
    if (want.keys !== got.keys || want.revision !== got.revision)
      throw new Error(
        `the promoted member answers ${got.keys} keys at revision ${got.revision}, the source ${want.keys} at ${want.revision}`,
      );
    return { databaseMiB, promotedSeconds, refusedPromotes, busyPromotes, ...got };
  } finally {
    sourceClient.close();
    learnerClient.close();
    // The same check may refuse the removal for a few seconds after the promote.
    for (let tries = 0; ; tries++) {
      const removed = await removeMember(source.clientURL, added.member.id).catch((error: unknown) => {
        if (isEtcdBusy(error) && tries < 60) return undefined;
        throw error;
      });
      if (removed) break;
      await sleep(1_000);
    }
    await cluster.kill('m1');
    await cluster.wipe('m1');
    cluster.members.delete('m1');
    // The promoted member may have been elected leader while it caught up (the source was busy sending it the
    // database); removing it then leaves the source to elect itself, and a write before that times out.
    await cluster.waitForLeader(['m0']);
  }
}

export async function run(): Promise<void> {
  const { node, version: nodeVersion } = await nodeRuntime();
  // The by-hand upload and our verification bundled as ours ships (bundled.ts).
  const uploadFile = await bundled(join(here, 'upload-file.js'));
  const verifyBackup = await bundled(join(here, 'verify-backup.js'));
  const minio = await startMinio();
  const cluster = await createTestCluster('3.6', [QUOTA_FLAG]);
  const work = await mkdtemp(join(tmpdir(), 'etcd-gitops-bench-large-'));
  const s3 = minioClient(minio);
  const rows: LargeRow[] = [];
  let learner: LearnerResult | undefined;
  const etcdVersion = cluster.version;
  const etcdutl = etcdBinary(etcdVersion, 'etcdutl');
  try {
    const source = await cluster.reserve('m0');
    cluster.start('m0', 'new', ['m0'], 'bench-large');
    await cluster.waitForLeader(['m0']);
    const client = etcdClient(source.clientURL);
    const bucket = await createBucket(s3, 'bench-large');
    const env = { ...awsEnv(minio), S3_ENDPOINT: minio.endpoint, LOG_LEVEL: 'info' };
    const jobEnv = { ...env, NODE_OPTIONS: DEFAULT_BACKUP_NODE_OPTIONS };
    const controllerEnv = { ...env, NODE_OPTIONS: DEFAULT_CONTROLLER_NODE_OPTIONS };
    for (const databaseMiB of SIZES_MIB) {
      const fillStart = process.hrtime.bigint();
      await fillToDatabaseSize(client, databaseMiB * mib, `fill-${databaseMiB}/`);
      const { keys } = await contentOf(client);
      console.log(`filled to ${databaseMiB} MiB (${keys} keys) in ${seconds(fillStart).toFixed(0)} s`);
      const m = {
        backup: [] as Measured[],
        etcdctl: [] as Measured[],
        upload: [] as Measured[],
        verify: [] as Measured[],
        fetch: [] as Measured[],
        toHealthy: [] as number[],
        download: [] as number[],
        etcdutl: [] as number[],
        byHand: [] as number[],
      };
      let snapshotBytes = 0;
      for (let i = 0; i < runs; i++) {
        const saved = await measure(
          node,
          backupSaveArgs(source.clientURL, databaseMiB, minio, bucket),
          jobEnv,
        );
        m.backup.push(saved);
        const key = (JSON.parse(saved.stdout) as { key: string }).key;

        const file = join(work, 'snapshot.db');
        m.etcdctl.push(
          await measure(
            etcdBinary(etcdVersion, 'etcdctl'),
            [`--endpoints=${source.clientURL}`, 'snapshot', 'save', file],
            env,
          ),
        );
        snapshotBytes = statSync(file).size;
        m.upload.push(
          await measure(node, [uploadFile, file, bucket, `baseline/db${databaseMiB}-${i}.db`], env),
        );
        await rm(file);
        await emptyPrefix(s3, bucket, 'baseline/');

        m.verify.push(
          await measure(node, [verifyBackup, minio.endpoint, bucket, key, etcdVersion], controllerEnv),
        );

        const [peerPort] = (await freePorts(1)) as [number];
        const seed = { name: 'bench-0', peerURL: `http://127.0.0.1:${peerPort}` };
        const started = { extraArgs: [QUOTA_FLAG], timeoutMs: HEALTHY_TIMEOUT_MS };
        const ours = join(work, `ours-${databaseMiB}-${i}`);
        await mkdir(ours);
        let start = process.hrtime.bigint();
        m.fetch.push(
          await measure(
            node,
            restoreFetchArgs({
              minio,
              bucket,
              key,
              etcdVersion,
              dataDir: join(ours, 'data'),
              seed,
              etcdutl,
            }),
            env,
          ),
        );
        const restored = await startEtcdOnDataDir(
          etcdVersion,
          join(ours, 'data'),
          seed.name,
          peerPort,
          ours,
          started,
        );
        m.toHealthy.push(seconds(start));
        await restored.stop();
        await rm(ours, { recursive: true, force: true });

        const hand = join(work, `hand-${databaseMiB}-${i}`);
        await mkdir(hand);
        start = process.hrtime.bigint();
        await download(s3, bucket, key, join(hand, 'snapshot.db'));
        m.download.push(seconds(start));
        const restoreStart = process.hrtime.bigint();
        await measure(etcdutl, etcdutlRestoreArgs(join(hand, 'snapshot.db'), join(hand, 'data'), seed), env);
        m.etcdutl.push(seconds(restoreStart));
        await rm(join(hand, 'snapshot.db'));
        const byHand = await startEtcdOnDataDir(
          etcdVersion,
          join(hand, 'data'),
          seed.name,
          peerPort,
          hand,
          started,
        );
        m.byHand.push(seconds(start));
        await byHand.stop();
        await rm(hand, { recursive: true, force: true });
        await emptyPrefix(s3, bucket, `bench/db${databaseMiB}/`);
      }
      const snapshotMiB = snapshotBytes / mib;
      const med = (list: readonly Measured[], of: (x: Measured) => number) => median(list.map(of));
      const time = (x: Measured) => x.seconds;
      const rss = (x: Measured) => x.peakRssMiB;
      rows.push({
        databaseMiB,
        snapshotMiB: Math.round(snapshotMiB),
        keys,
        runs,
        backupSeconds: med(m.backup, time),
        backupMiBps: snapshotMiB / med(m.backup, time),
        backupPeakRssMiB: med(m.backup, rss),
        etcdctlSeconds: med(m.etcdctl, time),
        uploadSeconds: med(m.upload, time),
        baselineMiBps: snapshotMiB / median(m.etcdctl.map((x, i) => x.seconds + (m.upload[i]?.seconds ?? 0))),
        etcdctlPeakRssMiB: med(m.etcdctl, rss),
        uploadPeakRssMiB: med(m.upload, rss),
        verifySeconds: med(m.verify, time),
        verifyPeakRssMiB: med(m.verify, rss),
        restoreFetchSeconds: med(m.fetch, time),
        restoreFetchPeakRssMiB: med(m.fetch, rss),
        restoreToHealthySeconds: median(m.toHealthy),
        byHandDownloadSeconds: median(m.download),
        byHandRestoreSeconds: median(m.etcdutl),
        byHandToHealthySeconds: median(m.byHand),
      });
      if (!learner) learner = await learnerCatchUp(cluster, source, databaseMiB);
    }
    client.close();
  } finally {
    s3.destroy();
    await Promise.all([minio.stop(), cluster.stop(), rm(work, { recursive: true, force: true })]);
  }
  const limits = {
    backupJobMiB: limitMiB(DEFAULT_BACKUP_RESOURCES.limits.memory),
    controllerMiB: limitMiB(DEFAULT_CONTROLLER_RESOURCES.limits.memory),
  };
  const f = (n: number) => n.toFixed(1);
  console.log(
    `db MiB | keys | backup s, MiB/s, RSS (limit ${limits.backupJobMiB}) || etcdctl + upload s, MiB/s || verify s, RSS (controller limit ${limits.controllerMiB}) || restore fetch s, RSS, to healthy s || by hand: download + etcdutl, to healthy s`,
  );
  for (const r of rows)
    console.log(
      [
        r.databaseMiB,
        r.keys,
        `${f(r.backupSeconds)}, ${f(r.backupMiBps)}, ${f(r.backupPeakRssMiB)}`,
        `${f(r.etcdctlSeconds)} + ${f(r.uploadSeconds)}, ${f(r.baselineMiBps)}`,
        `${f(r.verifySeconds)}, ${f(r.verifyPeakRssMiB)}`,
        `${f(r.restoreFetchSeconds)}, ${f(r.restoreFetchPeakRssMiB)}, ${f(r.restoreToHealthySeconds)}`,
        `${f(r.byHandDownloadSeconds)} + ${f(r.byHandRestoreSeconds)}, ${f(r.byHandToHealthySeconds)}`,
      ].join(' | '),
    );
  if (learner)
    console.log(
      `learner on ${learner.databaseMiB} MiB: promoted ${f(learner.promotedSeconds)} s after AddLearner, ${learner.refusedPromotes} promotes refused before (not in sync) and ${learner.busyPromotes} before that (not started); it answers ${learner.keys} keys at revision ${learner.revision}, as the source`,
    );
  mkdirSync(results, { recursive: true });
  const written: LargeResults = {
    bench: 'large',
    node: process.version,
    commandNodeVersion: nodeVersion,
    etcd: etcdVersion,
    date: new Date().toISOString(),
    runs,
    nodeOptions: { backupJob: DEFAULT_BACKUP_NODE_OPTIONS, controller: DEFAULT_CONTROLLER_NODE_OPTIONS },
    limits,
    rows,
    ...(learner ? { learner } : {}),
  };
  writeFileSync(join(results, 'large.json'), `${JSON.stringify(written, null, 2)}\n`);
}
