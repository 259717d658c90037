// Retention against real etcd and MinIO: more than ten backups, revisions gaining a digit twice, a key
// template whose text order disagrees with time. The newest backup is never deleted.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import pino from 'pino';
import { save } from '../../controller/backup/save.js';
import { type Minio, startMinio } from '../env/minio.js';
import { createBucket, minioClient } from './helpers/backup-cli.js';
import { type StandaloneEtcd, startEtcd } from './helpers/etcd.js';
import { keys } from './helpers/s3-objects.js';

const log = pino({ level: 'silent' });

describe('backup retention (real etcd, real MinIO)', () => {
  let minio: Minio;
  let s3: S3Client;
  let etcd: StandaloneEtcd;

  before(async () => {
    [minio, etcd] = await Promise.all([startMinio(), startEtcd({ version: '3.6' })]);
    s3 = minioClient(minio);
  });

  after(async () => {
    s3?.destroy();
    await Promise.all([minio?.stop(), etcd?.stop()]);
  });

  it('keeps the 3 newest of 12 backups while revisions go 5..11 and 98..102', async () => {
    // GIVEN a template that puts the revision first, so key text sorts rev10 before rev9 and rev100 before rev99
    const bucket = await createBucket(s3);
    const template = '{namespace}/{cluster}/rev{revision}-{timestamp}.db';
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'ns/main/notes.txt', Body: 'not a backup' }));
    const client = etcd.client();
    const saved: { revision: number; key: string }[] = [];
    let next = 0;
    try {
      for (const revision of [5, 6, 7, 8, 9, 10, 11, 98, 99, 100, 101, 102]) {
        while ((await client.maintenance.status()).header.revision !== String(revision)) {
          await client.put(`k/${next++}`).value('v');
        }
        // WHEN each backup is saved with keepLast 3
        const result = await save(
          {
            endpoints: [etcd.clientURL],
            namespace: 'ns',
            cluster: 'main',
            bucket,
            keyTemplate: template,
            retention: { keepLast: 3 },
            s3: {
              endpoint: minio.endpoint,
              forcePathStyle: true,
              credentials: { accessKeyId: minio.accessKey, secretAccessKey: minio.secretKey },
            },
          },
          log,
        );
        saved.push({ revision, key: result.key });
        // THEN after every save the bucket holds exactly the (up to) 3 highest revisions, the new one included
        const expected = saved
          .slice(-3)
          .map((s) => s.key)
          .sort();
        assert.deepEqual(
          await keys(s3, bucket),
          [...expected, 'ns/main/notes.txt'].sort(),
          `after revision ${revision}`,
        );
        assert.equal(result.metadata.revision, String(revision));
      }
    } finally {
      client.close();
    }
    // AND the foreign object under the same prefix was never touched
    assert.ok((await keys(s3, bucket)).includes('ns/main/notes.txt'));
    assert.deepEqual(
      (await keys(s3, bucket)).filter((k) => k.endsWith('.db')).map((k) => /rev(\d+)-/.exec(k)?.[1]),
      ['100', '101', '102'],
    );
  });

  it("never deletes another cluster's backups under a shared prefix", async () => {
    // GIVEN a template without namespace/cluster directories: two clusters share the prefix 'all/'
    const bucket = await createBucket(s3);
    const base = {
      endpoints: [etcd.clientURL],
      namespace: 'ns',
      bucket,
      keyTemplate: 'all/{cluster}-{timestamp}-{revision}.db',
      s3: {
        endpoint: minio.endpoint,
        forcePathStyle: true,
        credentials: { accessKeyId: minio.accessKey, secretAccessKey: minio.secretKey },
      },
    };
    const other = await save({ ...base, cluster: 'main-2' }, log);
    // WHEN cluster 'main' saves twice with keepLast 1
    await save({ ...base, cluster: 'main', retention: { keepLast: 1 } }, log);
    await new Promise((resolve) => setTimeout(resolve, 1100)); // a new key timestamp
    const newest = await save({ ...base, cluster: 'main', retention: { keepLast: 1 } }, log);
    // THEN only main's older backup is gone; main-2's is kept
    assert.deepEqual(await keys(s3, bucket), [newest.key, other.key].sort());
  });
});
