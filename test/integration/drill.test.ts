// `drill fetch` and `drill check` (docs/design/restore-drill.md) as the drill Pod runs them, against real MinIO and
// real etcd 3.4-3.6: the newest backup under the schedule's prefix is restored, etcd started on the result (the
// Pod's sidecar, here a local process) and counted; a changed object, an empty prefix and an etcd that never answers
// each fail with their exit code and a report naming what failed.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { listBackups } from '../../controller/backup/list-backups.js';
import type { Restored } from '../../controller/drill/fetch.js';
import { decodeDrillReport } from '../../controller/drill/report.js';
import { restoreToolOf } from '../../controller/restore/etcd-version.js';
import { etcdBinary, etcdVersions as versions } from '../env/binaries.js';
import { type Minio, startMinio } from '../env/minio.js';
import { freePorts } from '../env/ports.js';
import {
  awsEnv,
  type CliResult,
  createBucket,
  failureReason,
  minioClient,
  runBackupCli,
  runCli,
  s3Args,
} from './helpers/backup-cli.js';
import { startEtcd } from './helpers/etcd.js';
import { putKeys } from './helpers/fill.js';
import { startEtcdOnDataDir } from './helpers/restore.js';
import { download, metadataOf } from './helpers/s3-objects.js';

const NAMESPACE = 'drills';

describe('drill fetch and drill check (real etcd, real MinIO)', () => {
  let minio: Minio;
  let s3: S3Client;
  let work: string;
  let dirs = 0;
  const cleanups: (() => Promise<void>)[] = [];

  before(async () => {
    minio = await startMinio();
    s3 = minioClient(minio);
    work = await mkdtemp(join(tmpdir(), 'etcd-gitops-drill-test-'));
  });

  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    s3?.destroy();
    await minio?.stop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  /** The drill Pod's `emptyDir`: a fresh directory, with the files the containers share. */
  async function scratch(): Promise<{ dir: string; data: string; restored: string; report: string }> {
    const dir = join(work, `drill-${++dirs}`);
    await mkdir(dir);
    return {
      dir,
      data: join(dir, 'data'),
      restored: join(dir, 'restored.json'),
      report: join(dir, 'termination-log'),
    };
  }

  function fetchArgs(
    version: string,
    bucket: string,
    cluster: string,
    files: { data: string; restored: string; report: string },
  ): string[] {
    return [
      'fetch',
      `--namespace=${NAMESPACE}`,
      `--cluster=${cluster}`,
      ...s3Args(minio, bucket),
      `--etcd-version=${version}`,
      `--etcdutl=${etcdBinary(version, restoreToolOf(version).name)}`,
      `--data-dir=${files.data}`,
      `--restored-file=${files.restored}`,
      `--termination-log=${files.report}`,
    ];
  }

  const drill = (args: string[]): Promise<CliResult> => runCli('drill', args, awsEnv(minio));
  const reportIn = async (file: string) => decodeDrillReport(await readFile(file, 'utf8'));

  for (const minor of ['3.4', '3.5', '3.6'] as const) {
    it(`GIVEN two backups of etcd ${minor} WHEN drilled THEN the newer restores and the restored etcd counts its keys at its revision plus the bump`, async () => {
      const version = versions[minor];
      const bucket = await createBucket(s3, 'drill');
      const etcd = await startEtcd({ version: minor });
      cleanups.push(() => etcd.stop());
      const client = etcd.client();
      const backup = () =>
        runBackupCli(
          [
            'save',
            `--endpoints=${etcd.clientURL}`,
            `--namespace=${NAMESPACE}`,
            '--cluster=main',
            ...s3Args(minio, bucket),
          ],
          awsEnv(minio),
        );
      try {
        await putKeys(client, 50, 'older/');
        const older = await backup();
        assert.equal(older.code, 0, failureReason(older));
        await putKeys(client, 30, 'newer/');
      } finally {
        client.close();
      }
      const newer = await backup();
      assert.equal(newer.code, 0, failureReason(newer));
      const [newest] = (await listBackups(s3, bucket, `${NAMESPACE}/main/`)).backups;
      assert.ok(newest, 'the newer backup is listed first');

      const files = await scratch();
      const fetched = await drill(fetchArgs(version, bucket, 'main', files));
      assert.equal(fetched.code, 0, failureReason(fetched));
      assert.equal(existsSync(files.report), false, 'fetch reports only a failure');
      const restored = JSON.parse(await readFile(files.restored, 'utf8')) as Restored;
      assert.equal(restored.key, newest.key);
      assert.equal(restored.revision, newest.metadata.revision);
      // etcd 3.4's etcdctl has no --bump-revision: its restores are not bumped (docs/design/restore.md).
      assert.equal(restored.revisionBump, restoreToolOf(version).revisionBump);

      const [peerPort] = (await freePorts(1)) as [number];
      const restoredEtcd = await startEtcdOnDataDir(version, files.data, 'drill', peerPort, files.dir);
      cleanups.push(() => restoredEtcd.stop());
      const checked = await drill([
        'check',
        `--restored-file=${files.restored}`,
        `--endpoint=${restoredEtcd.clientURL}`,
        '--wait=30s',
        `--termination-log=${files.report}`,
      ]);
      await restoredEtcd.stop();
      assert.equal(checked.code, 0, failureReason(checked));
      const report = await reportIn(files.report);
      console.log(`etcd ${minor} drill report: ${JSON.stringify(report)}`);
      assert.equal(report?.outcome, 'Succeeded');
      assert.equal(report.key, newest.key);
      assert.equal(report.revision, newest.metadata.revision);
      assert.equal(report.keys, 80, 'every key the newer backup holds, none of the older only');
      assert.ok(
        BigInt(report.servedRevision) >= BigInt(newest.metadata.revision) + BigInt(restored.revisionBump),
        `served ${report.servedRevision} ≥ ${newest.metadata.revision} + ${restored.revisionBump}`,
      );
      assert.deepEqual(JSON.parse(checked.stdout), report, 'stdout carries the same report');
    });
  }

  it('GIVEN the newest backup changed under its metadata WHEN drilled THEN fetch fails CHECKSUM_MISMATCH naming it and restores nothing', async () => {
    const minor = '3.6';
    const version = versions[minor];
    const bucket = await createBucket(s3, 'drill');
    const etcd = await startEtcd({ version: minor });
    cleanups.push(() => etcd.stop());
    const client = etcd.client();
    try {
      await putKeys(client, 20);
    } finally {
      client.close();
    }
    const saved = await runBackupCli(
      [
        'save',
        `--endpoints=${etcd.clientURL}`,
        `--namespace=${NAMESPACE}`,
        '--cluster=changed',
        ...s3Args(minio, bucket),
      ],
      awsEnv(minio),
    );
    assert.equal(saved.code, 0, failureReason(saved));
    const [good] = (await listBackups(s3, bucket, `${NAMESPACE}/changed/`)).backups;
    assert.ok(good);
    const file = join(work, 'changed.db');
    await download(s3, bucket, good.key, file);
    const bytes = await readFile(file);
    bytes[Math.floor(bytes.length / 2)] ^= 0xff;
    // Written over the same key with the same metadata: the listing still reads it a complete backup, the newest.
    const metadata = await metadataOf(s3, bucket, good.key);
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: good.key, Body: bytes, Metadata: metadata }));

    const files = await scratch();
    const fetched = await drill(fetchArgs(version, bucket, 'changed', files));
    const report = await reportIn(files.report);
    console.log(`changed object: exit ${fetched.code}, report ${JSON.stringify(report)}`);
    assert.equal(fetched.code, 5);
    assert.equal(report?.outcome, 'Failed');
    assert.equal(report.code, 'CHECKSUM_MISMATCH');
    assert.match(report.reason, new RegExp(good.key.replaceAll('.', '\\.')));
    assert.equal(existsSync(files.data), false, 'no data dir');
    assert.equal(existsSync(files.restored), false, 'nothing for check to read');
  });

  it('GIVEN no backup under the prefix WHEN drilled THEN fetch fails S3_ERROR naming the prefix', async () => {
    const bucket = await createBucket(s3, 'drill');
    const files = await scratch();
    const fetched = await drill(fetchArgs(versions['3.6'], bucket, 'none', files));
    const report = await reportIn(files.report);
    console.log(`empty prefix: exit ${fetched.code}, report ${JSON.stringify(report)}`);
    assert.equal(fetched.code, 4);
    assert.equal(report?.outcome, 'Failed');
    assert.equal(report.code, 'S3_ERROR');
    assert.match(report.reason, new RegExp(`no etcd-gitops backup under s3://${bucket}/${NAMESPACE}/none/`));
  });

  it('GIVEN a restored etcd that never answers WHEN checked with --wait=3s THEN check fails ETCD_UNAVAILABLE after asking again', async () => {
    const files = await scratch();
    const restored: Restored = {
      key: `${NAMESPACE}/x/20261201T000000Z-rev9.db`,
      revision: '9',
      etcdVersion: versions['3.6'],
      snapshotBytes: 1,
      revisionBump: 1000,
      startedAtMs: Date.now(),
    };
    await writeFile(files.restored, JSON.stringify(restored));
    const [closedPort] = (await freePorts(1)) as [number];
    const started = Date.now();
    const checked = await drill([
      'check',
      `--restored-file=${files.restored}`,
      `--endpoint=http://127.0.0.1:${closedPort}`,
      '--wait=3s',
      `--termination-log=${files.report}`,
    ]);
    const report = await reportIn(files.report);
    console.log(
      `no etcd: exit ${checked.code} after ${Date.now() - started} ms, report ${JSON.stringify(report)}`,
    );
    assert.equal(checked.code, 3);
    assert.equal(report?.outcome, 'Failed');
    assert.equal(report.code, 'ETCD_UNAVAILABLE');
    assert.match(
      report.reason,
      new RegExp(`did not answer at http://127\\.0\\.0\\.1:${closedPort} within 3 s`),
    );
    assert.ok(
      checked.logs.some((line) => line.msg === 'The restored etcd does not answer yet; asking again'),
      'it asked again before giving up',
    );
  });
});
