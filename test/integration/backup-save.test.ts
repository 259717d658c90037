// backup save against real etcd and a real MinIO: saved, downloaded, restored with etcdutl, compared key by key.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { S3Client } from '@aws-sdk/client-s3';
import { type Minio, startMinio } from '../env/minio.js';
import {
  awsEnv,
  createBucket,
  failureReason,
  minioClient,
  runBackupCli,
  s3Args,
} from './helpers/backup-cli.js';
import { type StandaloneEtcd, startEtcd } from './helpers/etcd.js';
import { compareEtcd, fillEtcd, putKeys } from './helpers/fill.js';
import { download, keys, metadataOf, openUploads } from './helpers/s3-objects.js';

const mib = 1024 * 1024;

async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

describe('backup save (real etcd, real MinIO)', () => {
  let minio: Minio;
  let s3: S3Client;
  let work: string;
  const cleanups: (() => Promise<void>)[] = [];

  before(async () => {
    minio = await startMinio();
    s3 = minioClient(minio);
    work = await mkdtemp(join(tmpdir(), 'etcd-gitops-backup-test-'));
  });

  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    s3?.destroy();
    await minio?.stop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  async function etcd(options: Parameters<typeof startEtcd>[0] = {}): Promise<StandaloneEtcd> {
    const started = await startEtcd(options);
    cleanups.push(() => started.stop());
    return started;
  }

  /** Downloads `key`, restores it into a fresh etcd of `version` and compares every key with `source`. */
  async function restoreAndCompare(source: StandaloneEtcd, bucket: string, key: string, file: string) {
    await download(s3, bucket, key, file);
    const restored = await etcd({ version: source.version, restoreFrom: file });
    const [a, b] = [source.client(), restored.client()];
    try {
      return await compareEtcd(a, b);
    } finally {
      a.close();
      b.close();
    }
  }

  it('saves a 64 MiB database that etcdutl restores with every key equal', async () => {
    // GIVEN etcd 3.6 holding 64 MiB of incompressible values
    const source = await etcd({ version: '3.6' });
    const client = source.client();
    const filled = await fillEtcd(client, 64 * mib);
    client.close();
    const bucket = await createBucket(s3);

    // WHEN backup save runs as the CronJob runs it
    const result = await runBackupCli(
      [
        'save',
        `--endpoints=${source.clientURL}`,
        '--namespace=team-a',
        '--cluster=main',
        ...s3Args(minio, bucket),
      ],
      awsEnv(minio),
    );

    // THEN it exits OK and exactly one object exists, with metadata matching its bytes
    assert.equal(result.code, 0, failureReason(result));
    const written = JSON.parse(result.stdout) as { key: string; revision: string; objectSha256: string };
    assert.deepEqual(await keys(s3, bucket), [written.key]);
    assert.match(written.key, /^team-a\/main\/\d{8}T\d{6}Z-rev\d+\.db$/);
    assert.deepEqual(await openUploads(s3, bucket), []);
    const file = join(work, 'big.db');
    const compared = await restoreAndCompare(source, bucket, written.key, file);
    const meta = await metadataOf(s3, bucket, written.key);
    assert.equal(meta['backup-sha256'], await sha256File(file));
    assert.equal(meta['snapshot-sha256'], meta['backup-sha256']);
    assert.equal(meta['etcd-revision'], filled.revision);
    assert.equal(meta['etcd-cluster'], 'main');
    assert.equal(meta['etcd-namespace'], 'team-a');
    assert.match(meta['etcd-version'] ?? '', /^3\.6\./);
    assert.equal(meta['backup-compression'], 'none');
    assert.ok(Number(meta['backup-size']) >= 64 * mib, `backup-size ${meta['backup-size']}`);
    // AND the restored etcd holds every key, value and revision of the source
    assert.equal(compared, filled.keys);
  });

  for (const version of ['3.4', '3.5'] as const) {
    it(`saves etcd ${version} gzip-compressed, and the decompressed snapshot restores`, async () => {
      // GIVEN etcd of an older minor with a few MiB of data
      const source = await etcd({ version });
      const client = source.client();
      await fillEtcd(client, 6 * mib, { valueBytes: 1024 });
      await putKeys(client, 50);
      client.close();
      const bucket = await createBucket(s3);

      // WHEN saved with gzip
      const result = await runBackupCli(
        [
          'save',

          `--endpoints=${source.clientURL}`,
          '--namespace=ns',
          '--cluster=old',
          '--compression=gzip',
          ...s3Args(minio, bucket),
        ],
        awsEnv(minio),
      );

      // THEN the object is gzip, recorded as such, and restores into an equal etcd
      assert.equal(result.code, 0, failureReason(result));
      const { key } = JSON.parse(result.stdout) as { key: string };
      assert.match(key, /\.db\.gz$/);
      const meta = await metadataOf(s3, bucket, key);
      assert.equal(meta['backup-compression'], 'gzip');
      assert.notEqual(meta['backup-sha256'], meta['snapshot-sha256']);
      const gz = join(work, `${version}.db.gz`);
      await download(s3, bucket, key, gz);
      assert.equal(await sha256File(gz), meta['backup-sha256']);
      const { createGunzip } = await import('node:zlib');
      const { pipeline } = await import('node:stream/promises');
      const { createWriteStream } = await import('node:fs');
      const raw = join(work, `${version}.db`);
      await pipeline(createReadStream(gz), createGunzip(), createWriteStream(raw));
      assert.equal(await sha256File(raw), meta['snapshot-sha256']);
      const restored = await etcd({ version, restoreFrom: raw });
      const [a, b] = [source.client(), restored.client()];
      try {
        assert.equal(await compareEtcd(a, b), Math.ceil((6 * mib) / 1024) + 50);
      } finally {
        a.close();
        b.close();
      }
    });
  }

  it('saves over TLS with a client certificate', async () => {
    // GIVEN etcd that requires client certificates
    const source = await etcd({ version: '3.6', tls: true });
    const client = source.client();
    await putKeys(client, 20);
    client.close();
    const bucket = await createBucket(s3);
    const tls = source.tls!;

    // WHEN saved with --cacert/--cert/--key
    const result = await runBackupCli(
      [
        'save',

        `--endpoints=${source.clientURL}`,
        `--cacert=${tls.caFile}`,
        `--cert=${tls.certFile}`,
        `--key=${tls.keyFile}`,
        '--namespace=ns',
        '--cluster=secure',
        ...s3Args(minio, bucket),
      ],
      awsEnv(minio),
    );

    // THEN one backup exists
    assert.equal(result.code, 0, failureReason(result));
    assert.equal((await keys(s3, bucket)).length, 1);
  });

  it('fails when etcd requires a client certificate and none is given', async () => {
    // GIVEN etcd that requires client certificates
    const source = await etcd({ version: '3.6', tls: true });
    const bucket = await createBucket(s3);

    // WHEN saved with only the CA
    const result = await runBackupCli(
      [
        'save',

        `--endpoints=${source.clientURL}`,
        `--cacert=${source.tls!.caFile}`,
        '--member-wait=0s',
        '--namespace=ns',
        '--cluster=c',
        ...s3Args(minio, bucket),
      ],
      awsEnv(minio),
    );

    // THEN it exits ETCD_UNAVAILABLE and writes nothing
    assert.equal(result.code, 3, result.stderr);
    assert.match(failureReason(result), /no healthy etcd member/);
    assert.deepEqual(await keys(s3, bucket), []);
  });

  it('of several endpoints, snapshots the member with the highest revision', async () => {
    // GIVEN two members (standalone etcds), the second one ahead
    const [behind, ahead] = await Promise.all([etcd(), etcd()]);
    const [cb, ca] = [behind.client(), ahead.client()];
    await putKeys(cb, 3);
    await putKeys(ca, 30);
    cb.close();
    ca.close();
    const bucket = await createBucket(s3);

    // WHEN saved with both endpoints, the behind one first
    const result = await runBackupCli(
      [
        'save',

        `--endpoints=${behind.clientURL},${ahead.clientURL}`,
        '--namespace=ns',
        '--cluster=two',
        ...s3Args(minio, bucket),
      ],
      awsEnv(minio),
    );

    // THEN the backup came from the member that is ahead
    assert.equal(result.code, 0, failureReason(result));
    const { key } = JSON.parse(result.stdout) as { key: string };
    const meta = await metadataOf(s3, bucket, key);
    assert.equal(meta['etcd-member'], ahead.clientURL);
    assert.equal(meta['etcd-revision'], '31');
  });
});
