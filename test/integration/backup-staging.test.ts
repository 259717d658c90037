// A save SIGKILLed between its upload and its rename (or between its copy and the `.part` delete) leaves a complete
// `.part`: it is never listed as a backup, a later save within the staging grace leaves it (another save may be
// renaming it), and a later save past the grace deletes it and nothing else (docs/design/backup.md, "Staging
// objects left by a killed save"). Real etcd, real MinIO, the real command SIGKILLed by its test-only crash switch.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { type Minio, startMinio } from '../env/minio.js';
import {
  awsEnv,
  type CliResult,
  createBucket,
  failureReason,
  minioClient,
  runBackupCli,
  s3Args,
} from './helpers/backup-cli.js';
import { type StandaloneEtcd, startEtcd } from './helpers/etcd.js';
import { fillEtcd } from './helpers/fill.js';
import { keys, metadataOf, openUploads } from './helpers/s3-objects.js';

const mib = 1024 * 1024;

interface StatusReport {
  backups: { key: string; verified?: string }[];
  partials: string[];
}

describe('backup save killed with a staging object left (real etcd, real MinIO)', () => {
  let minio: Minio;
  let s3: S3Client;
  let etcd: StandaloneEtcd;

  const saveArgs = (bucket: string, ...extra: string[]) => [
    'save',
    `--endpoints=${etcd.clientURL}`,
    '--namespace=ns',
    '--cluster=main',
    ...s3Args(minio, bucket),
    ...extra,
  ];

  /** `backup save` SIGKILLed by its crash switch right after `step`. */
  async function killedSave(bucket: string, step: 'upload' | 'copy'): Promise<CliResult> {
    const result = await runBackupCli(saveArgs(bucket, '--keep-last=1'), {
      ...awsEnv(minio),
      ETCD_GITOPS_TEST_BACKUP_CRASH_AFTER: step,
    });
    assert.equal(result.code, null, `expected SIGKILL, got exit ${result.code}: ${result.stderr}`);
    return result;
  }

  async function status(bucket: string): Promise<StatusReport> {
    const result = await runBackupCli(
      ['status', ...s3Args(minio, bucket), '--verify', '--output=json'],
      awsEnv(minio),
    );
    assert.equal(result.code, 0, failureReason(result));
    return JSON.parse(result.stdout) as StatusReport;
  }

  before(async () => {
    [minio, etcd] = await Promise.all([startMinio(), startEtcd({ version: '3.6' })]);
    s3 = minioClient(minio);
    const client = etcd.client();
    await fillEtcd(client, 6 * mib);
    client.close();
  });

  after(async () => {
    s3?.destroy();
    await Promise.all([minio?.stop(), etcd?.stop()]);
  });

  it('GIVEN a save SIGKILLed after its upload completed THEN its .part is never a backup, survives a save within the grace, and a save past the grace deletes it and nothing else', async () => {
    const bucket = await createBucket(s3);
    // GIVEN under the same prefix: an unmarked .part (an earlier release's, or not ours) and another cluster's
    // staging object, both far older than any grace
    const foreignPart = 'ns/main/foreign.db.part';
    const otherCluster = 'ns/main/other-cluster.db.part';
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: foreignPart, Body: 'not ours' }));
    await s3.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: otherCluster,
        Body: 'another cluster',
        Metadata: { 'etcd-gitops-staging': 'v1', 'etcd-namespace': 'ns', 'etcd-cluster': 'other' },
      }),
    );

    // WHEN a save is SIGKILLed between the upload and the rename
    await killedSave(bucket, 'upload');

    // THEN exactly one new object: the complete .part, marked as staging, not as a backup; no open upload
    const leftover = (await keys(s3, bucket)).filter((key) => key !== foreignPart && key !== otherCluster);
    assert.equal(leftover.length, 1, String(leftover));
    const part = leftover[0] as string;
    assert.match(part, /^ns\/main\/.*\.db\.part$/);
    const partMetadata = await metadataOf(s3, bucket, part);
    assert.equal(partMetadata['etcd-gitops-staging'], 'v1');
    assert.equal(partMetadata['etcd-gitops-backup'], undefined);
    assert.deepEqual(await openUploads(s3, bucket), []);
    // AND status lists no backup, only partials
    const killed = await status(bucket);
    assert.deepEqual(killed.backups, []);
    assert.deepEqual(killed.partials, [foreignPart, part, otherCluster].sort());

    // WHEN a later save (with retention) runs within the default 24h grace. A write first: a save of the same
    // revision in the same second would have the killed save's key, so its own .part would replace that one and
    // its rename would take it away (what CI once saw), and the test would not be about the grace.
    const writer = etcd.client();
    await writer.put('backup-staging/between').value('1');
    writer.close();
    const within = await runBackupCli(saveArgs(bucket, '--keep-last=1'), awsEnv(minio));
    assert.equal(within.code, 0, failureReason(within));
    // THEN the .part is kept (it could be another save's, between its upload and its rename), retention never
    // counted it, and the new backup is the only backup
    const afterWithin = await status(bucket);
    assert.equal(afterWithin.backups.length, 1);
    assert.deepEqual(afterWithin.partials, [foreignPart, part, otherCluster].sort());
    const first = afterWithin.backups[0]?.key as string;

    // WHEN a later save runs with the .part past a 1s grace
    await sleep(1500);
    const past = await runBackupCli(saveArgs(bucket, '--keep-last=1', '--staging-grace=1s'), awsEnv(minio));
    assert.equal(past.code, 0, failureReason(past));
    // THEN the killed save's .part is deleted, saying so; the foreign and the other cluster's .part stay
    assert.ok(
      past.logs.some(
        (line) => line.msg === 'Deleted stale staging object of a killed save' && line.key === part,
      ),
      past.stderr,
    );
    const final = await status(bucket);
    assert.deepEqual(final.partials, [foreignPart, otherCluster].sort());
    // AND retention (keep-last 1) left exactly the newest backup, which verifies
    assert.equal(final.backups.length, 1);
    assert.notEqual(final.backups[0]?.key, first);
    assert.equal(final.backups[0]?.verified, 'ok');
    assert.deepEqual(await openUploads(s3, bucket), []);
  });

  it('GIVEN a save SIGKILLed after its copy, before deleting its .part THEN its backup stands and verifies, and a save past the grace deletes the .part only', async () => {
    const bucket = await createBucket(s3);
    // WHEN a save is SIGKILLed between the copy and the .part delete
    await killedSave(bucket, 'copy');
    // THEN the backup and its .part both exist; status lists the backup (verified) and the .part as a partial
    const [backup, part] = await keys(s3, bucket);
    assert.equal(part, `${backup}.part`);
    const report = await status(bucket);
    assert.deepEqual(
      report.backups.map((b) => [b.key, b.verified]),
      [[backup, 'ok']],
    );
    assert.deepEqual(report.partials, [part]);

    // WHEN a later save (no retention) runs with the .part past a 1s grace
    await sleep(1500);
    const later = await runBackupCli(saveArgs(bucket, '--staging-grace=1s'), awsEnv(minio));
    assert.equal(later.code, 0, failureReason(later));
    // THEN the .part is gone, both backups remain and verify
    const final = await status(bucket);
    assert.deepEqual(final.partials, []);
    assert.equal(final.backups.length, 2);
    assert.ok(final.backups.some((b) => b.key === backup));
    assert.deepEqual(
      final.backups.map((b) => b.verified),
      ['ok', 'ok'],
    );
  });
});
