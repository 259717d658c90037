// backup save under bad input and faults: each exits non-zero with a clear message, leaves no partial
// object, and deletes nothing. Real etcd, real MinIO.
import assert from 'node:assert/strict';
import { connect, createServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { ListMultipartUploadsCommand, type S3Client } from '@aws-sdk/client-s3';
import { type Minio, startMinio } from '../env/minio.js';
import { freePort } from '../env/ports.js';
import { waitFor } from '../env/wait.js';
import {
  awsEnv,
  createBucket,
  failureReason,
  minioClient,
  runBackupCli,
  s3Args,
} from './helpers/backup-cli.js';
import { startCorruptingProxy } from './helpers/corrupting-proxy.js';
import { type StandaloneEtcd, startEtcd } from './helpers/etcd.js';
import { fillEtcd } from './helpers/fill.js';
import { keys, openUploads } from './helpers/s3-objects.js';

const mib = 1024 * 1024;

describe('backup save faults (real etcd, real MinIO)', () => {
  let minio: Minio;
  let s3: S3Client;
  let etcd: StandaloneEtcd;
  /** A bucket that already holds two good backups of cluster `main`. */
  let bucket: string;
  let existing: string[];

  const saveArgs = (endpoint: string, target = bucket) => [
    'save',
    `--endpoints=${endpoint}`,
    '--namespace=ns',
    '--cluster=main',
    '--keep-last=1',
    ...s3Args(minio, target),
  ];

  before(async () => {
    [minio, etcd] = await Promise.all([startMinio(), startEtcd({ version: '3.6' })]);
    s3 = minioClient(minio);
    const client = etcd.client();
    await fillEtcd(client, 40 * mib);
    client.close();
    bucket = await createBucket(s3);
    for (let i = 0; i < 2; i++) {
      const result = await runBackupCli(
        saveArgs(etcd.clientURL).filter((a) => a !== '--keep-last=1'),
        awsEnv(minio),
      );
      assert.equal(result.code, 0, failureReason(result));
    }
    existing = await keys(s3, bucket);
    assert.equal(existing.length, 2);
  });

  after(async () => {
    s3?.destroy();
    await Promise.all([minio?.stop(), etcd?.stop()]);
  });

  /** The two earlier backups are still there and still verify. */
  async function previousBackupsIntact(): Promise<void> {
    assert.deepEqual(await keys(s3, bucket), existing);
    const status = await runBackupCli(
      ['status', ...s3Args(minio, bucket), '--verify', '--output=json'],
      awsEnv(minio),
    );
    assert.equal(status.code, 0, failureReason(status));
    const report = JSON.parse(status.stdout) as { backups: { verified: string }[] };
    assert.deepEqual(
      report.backups.map((b) => b.verified),
      ['ok', 'ok'],
    );
  }

  it('fails when the S3 endpoint is wrong', async () => {
    // GIVEN an S3 endpoint where nothing listens
    const wrong = `http://127.0.0.1:${await freePort()}`;
    // WHEN saving there
    const result = await runBackupCli([...saveArgs(etcd.clientURL), `--s3-endpoint=${wrong}`], awsEnv(minio));
    // THEN S3_ERROR naming the bucket, the endpoint and what was left alone
    assert.equal(result.code, 4, result.stderr);
    assert.match(
      failureReason(result),
      new RegExp(`cannot use bucket '${bucket}' at ${wrong}: connection refused`),
    );
    assert.match(failureReason(result), /etcd was not contacted, nothing was written or deleted/);
    await previousBackupsIntact();
  });

  it('fails when the credentials are wrong', async () => {
    // GIVEN a wrong secret key
    const env = { ...awsEnv(minio), AWS_SECRET_ACCESS_KEY: 'not-the-secret' };
    // WHEN saving
    const result = await runBackupCli(saveArgs(etcd.clientURL), env);
    // THEN S3_ERROR saying the secret is wrong
    assert.equal(result.code, 4, result.stderr);
    assert.match(
      failureReason(result),
      /cannot use bucket .*: the secret key is wrong \(check AWS_SECRET_ACCESS_KEY\) \(SignatureDoesNotMatch/,
    );
    await previousBackupsIntact();
  });

  it('fails when the access key is unknown', async () => {
    const env = { ...awsEnv(minio), AWS_ACCESS_KEY_ID: 'nobody' };
    const result = await runBackupCli(saveArgs(etcd.clientURL), env);
    assert.equal(result.code, 4, result.stderr);
    assert.match(
      failureReason(result),
      /cannot use bucket .*: the access key is not known to the store \(check AWS_ACCESS_KEY_ID\) \(InvalidAccessKeyId/,
    );
    await previousBackupsIntact();
  });

  it('fails when the bucket does not exist', async () => {
    // WHEN saving into a bucket nobody created
    const result = await runBackupCli(saveArgs(etcd.clientURL, 'no-such-bucket'), awsEnv(minio));
    // THEN S3_ERROR naming the bucket
    assert.equal(result.code, 4, result.stderr);
    assert.match(
      failureReason(result),
      /cannot use bucket .no-such-bucket. .*: the bucket does not exist \(NoSuchBucket/,
    );
    await previousBackupsIntact();
  });

  it('fails when etcd is unreachable for all of --member-wait', async () => {
    // GIVEN an etcd endpoint where nothing listens
    const nowhere = `http://127.0.0.1:${await freePort()}`;
    // WHEN saving from it, asking for 2 s
    const started = Date.now();
    const result = await runBackupCli([...saveArgs(nowhere), '--member-wait=2s'], awsEnv(minio));
    const tookMs = Date.now() - started;
    // THEN ETCD_UNAVAILABLE naming the endpoint; nothing written, nothing deleted
    assert.equal(result.code, 3, result.stderr);
    assert.match(
      failureReason(result),
      new RegExp(`no healthy etcd member to take a snapshot from \\(${nowhere}: `),
    );
    assert.match(failureReason(result), /nothing was written to S3 or deleted/);
    // It asked again within the wait (rounds 1 s apart), then gave up.
    assert.ok(tookMs >= 1_000, `gave up after ${tookMs} ms, before its first retry`);
    assert.ok(
      result.stderr.split('\n').filter((line) => line.includes('etcd member did not answer')).length >= 2,
      result.stderr,
    );
    await previousBackupsIntact();
  });

  it('GIVEN no member answers at first (a Pod not yet admitted by the network) WHEN one answers within --member-wait THEN the backup is stored', async () => {
    // GIVEN an endpoint that refuses connections for 3 s, then forwards to etcd
    const port = await freePort();
    const target = new URL(etcd.clientURL);
    const forwarder = createServer((socket) => {
      const upstream = connect(Number(target.port), target.hostname);
      socket.pipe(upstream).pipe(socket);
      upstream.on('error', () => socket.destroy());
      socket.on('error', () => upstream.destroy());
    });
    const fresh = await createBucket(s3);
    // WHEN saving from it with the default wait (30 s)
    const running = runBackupCli(saveArgs(`http://127.0.0.1:${port}`, fresh), awsEnv(minio));
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    await new Promise<void>((resolve) => forwarder.listen(port, '127.0.0.1', resolve));
    try {
      const result = await running;
      // THEN it was refused first, asked again, and stored one backup
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stderr, /etcd member did not answer/);
      assert.equal((await keys(s3, fresh)).filter((key) => key.endsWith('.db')).length, 1);
    } finally {
      await new Promise((resolve) => forwarder.close(resolve));
    }
  });

  it('fails when the snapshot does not match its checksum', async () => {
    // GIVEN a proxy that flips one byte in the middle of a snapshot blob on the wire
    const proxy = await startCorruptingProxy(new URL(etcd.clientURL));
    try {
      // WHEN saving through it
      const result = await runBackupCli(saveArgs(proxy.url), awsEnv(minio));
      // THEN CHECKSUM_MISMATCH; the multipart upload was aborted; no object, nothing deleted
      assert.ok(proxy.corrupted(), 'the proxy flipped a byte');
      assert.equal(result.code, 5, result.stderr);
      assert.match(
        failureReason(result),
        /snapshot from .* is corrupt: snapshot sha256 trailer [0-9a-f]{64} does not match/,
      );
      assert.match(
        failureReason(result),
        /upload aborted, no backup object was written and nothing was deleted/,
      );
      assert.deepEqual(await openUploads(s3, bucket), []);
      await previousBackupsIntact();
    } finally {
      await proxy.close();
    }
  });

  it('fails when SIGTERM arrives mid-upload: INTERRUPTED, the multipart upload aborted, no object, nothing deleted', async () => {
    // GIVEN a save in progress (5 MiB parts, one at a time, so the 40 MiB upload has many parts)
    let pid = 0;
    const running = runBackupCli(
      [...saveArgs(etcd.clientURL), '--part-size-mib=5', '--queue-size=1'],
      awsEnv(minio),
      (p) => {
        pid = p;
      },
    );
    let frozen: number | undefined;
    try {
      const open = await waitFor(
        async () => (await openUploads(s3, bucket)).find((key) => key.endsWith('.part')),
        { what: 'the multipart upload to start', intervalMs: 10 },
      );
      // WHEN MinIO is frozen (so the upload cannot finish first), the save gets SIGTERM, and MinIO goes on
      frozen = minio.process()!.pid;
      process.kill(frozen, 'SIGSTOP');
      process.kill(pid, 'SIGTERM');
      process.kill(frozen, 'SIGCONT');
      frozen = undefined;
      const result = await running;

      // THEN INTERRUPTED (9) saying the upload was aborted and nothing was written or deleted
      assert.equal(result.code, 9, result.stderr);
      assert.match(
        failureReason(result),
        /^interrupted by SIGTERM while uploading to s3:\/\/.*\.part: upload aborted, no backup object was written and nothing was deleted$/,
      );
      // AND S3 lists no open multipart upload for that key, no object under it or its final key
      const uploads = await s3.send(new ListMultipartUploadsCommand({ Bucket: bucket, Prefix: open }));
      assert.deepEqual(uploads.Uploads ?? [], []);
      assert.deepEqual(await openUploads(s3, bucket), []);
      // AND the earlier backups are the only objects and still verify
      await previousBackupsIntact();
    } finally {
      if (frozen) process.kill(frozen, 'SIGCONT');
      if (pid > 0) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already exited
        }
      }
      await running.catch(() => undefined);
    }
  });

  it('fails when MinIO stops mid-upload, leaving no object and the previous backups intact', async () => {
    // GIVEN a save in progress (5 MiB parts, one at a time, so the 40 MiB upload has many parts)
    let pid = 0;
    const running = runBackupCli(
      [...saveArgs(etcd.clientURL), '--part-size-mib=5', '--queue-size=1'],
      awsEnv(minio),
      (p) => {
        pid = p;
      },
    );
    // WHEN MinIO is frozen as soon as the multipart upload exists, then stopped
    await waitFor(async () => (await openUploads(s3, bucket)).length > 0, {
      what: 'the multipart upload to start',
      intervalMs: 10,
    });
    process.kill(minio.process()!.pid, 'SIGSTOP');
    await minio.pause();
    const result = await running;
    await minio.resume();

    // THEN S3_ERROR saying the upload failed and nothing was written or deleted
    assert.ok(pid > 0);
    assert.equal(result.code, 4, result.stderr);
    assert.match(
      failureReason(result),
      /upload to s3:\/\/.*\.part failed: .*no backup object was written and nothing was deleted/,
    );
    // AND no object appeared under any key; the old backups are untouched and verify
    await previousBackupsIntact();
  });
});
