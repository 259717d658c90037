// Step 2 (Verifying): the controller downloads the backup (streaming, bounded memory, nothing written to disk)
// and checks it the way `restore fetch` will: object sha256, snapshot trailer and sha256, etcd version.
import type { Logger } from 'pino';
import { backupSourceOf, s3ConnectionOf } from '../../constructs/conventions/s3.js';
import { verifyObject } from '../backup/verify-object.js';
import { snapshotVersionProblem } from '../restore/etcd-version.js';
import { type FailureReason, RestoreError } from '../restore/exit-codes.js';
import { locateBackup } from '../restore/locate.js';
import { s3Failure } from '../restore/s3-failure.js';
import { createS3Client, type S3ClientCredentials } from '../s3/client.js';
import type { S3Location } from './api.js';

export type VerifyResult =
  | { readonly ok: true; readonly key: string; readonly revision: string; readonly etcdVersion: string }
  | { readonly ok: false; readonly reason: FailureReason; readonly message: string };

export async function verifyBackup(
  location: S3Location,
  credentials: S3ClientCredentials,
  clusterVersion: string,
  log: Logger,
): Promise<VerifyResult> {
  const s3 = createS3Client({ ...s3ConnectionOf(location), credentials });
  try {
    const backup = await locateBackup(s3, backupSourceOf(location));
    const where = `s3://${backup.bucket}/${backup.key}`;
    const tooNew = snapshotVersionProblem(backup.metadata.etcdVersion, clusterVersion);
    if (tooNew) return { ok: false, reason: 'SnapshotFromNewerEtcd', message: `${where}: ${tooNew}` };
    log.info({ key: backup.key, revision: backup.metadata.revision }, 'Verifying backup');
    const verdict = await verifyObject(s3, backup.bucket, backup.key, backup.metadata).catch(
      (error: unknown) => {
        throw s3Failure(`downloading ${where} failed`, error);
      },
    );
    if (!verdict.ok) return { ok: false, reason: 'ChecksumMismatch', message: `${where}: ${verdict.reason}` };
    return {
      ok: true,
      key: backup.key,
      revision: backup.metadata.revision,
      etcdVersion: backup.metadata.etcdVersion,
    };
  } catch (error) {
    if (error instanceof RestoreError) return { ok: false, reason: error.reason, message: error.message };
    throw error;
  } finally {
    s3.destroy();
  }
}
