// `restore fetch`: docs/design/restore.md, "The restore command", step by step.
//   1. `<data-dir>/member` exists → done, nothing touched (a restarted or recreated seed Pod).
//   2. locate the backup (key, or newest under a prefix by recorded time); refuse a newer etcd's snapshot;
//      download into `restore/snapshot.db.part` verifying object sha256, snapshot trailer and sha256.
//   3. fsync, rename to `restore/snapshot.db`.
//   4. `etcdutl snapshot restore` into `restore/data`, fsync, rename to `<data-dir>`, remove `restore/`.
// Any failure removes `restore/` and leaves `<data-dir>` as it was (absent).
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { createS3Client, type S3Options } from '../s3/client.js';
import { downloadSnapshot } from './download.js';
import { snapshotVersionProblem } from './etcd-version.js';
import { RestoreError } from './exit-codes.js';
import { type BackupSource, type LocatedBackup, locateBackup } from './locate.js';
import { beginRestore, type RestoreTarget, restoreInto, type SkippedRestore } from './stage.js';

export interface FetchOptions extends RestoreTarget {
  readonly source: BackupSource;
  readonly s3: S3Options;
}

export type FetchResult =
  | SkippedRestore
  | {
      readonly outcome: 'restored';
      readonly dataDir: string;
      readonly bucket: string;
      readonly key: string;
      readonly revision: string;
      readonly etcdVersion: string;
      readonly snapshotBytes: number;
      /** How much the restore raised the revision (docs/design/restore.md, "Watchers across a restore"). */
      readonly revisionBump: number;
    };

function checkVersion(backup: LocatedBackup, clusterVersion: string): void {
  const problem = snapshotVersionProblem(backup.metadata.etcdVersion, clusterVersion);
  if (problem) {
    throw new RestoreError('SnapshotFromNewerEtcd', `s3://${backup.bucket}/${backup.key}: ${problem}`);
  }
}

/** Verifies the backup and restores it into `dataDir`, or does nothing when the member already has data. */
export async function fetchBackup(options: FetchOptions, log: Logger): Promise<FetchResult> {
  const { dataDir } = options;
  const begun = await beginRestore(dataDir, log);
  if ('outcome' in begun) return begun;
  const { state, work } = begun;
  const s3 = createS3Client(options.s3);
  try {
    const backup = await locateBackup(s3, options.source);
    log.info(
      { bucket: backup.bucket, key: backup.key, revision: backup.metadata.revision },
      'Located backup',
    );
    checkVersion(backup, options.clusterVersion);
    const snapshot = await downloadSnapshot(s3, backup, join(work, 'snapshot.db'));
    log.info({ key: backup.key, bytes: snapshot.snapshotBytes }, 'Downloaded and verified the snapshot');
    // The recorded revision is a lower bound of the snapshot's: the bump from it is only larger.
    const revisionBump = await restoreInto(
      { ...options, state, work },
      snapshot.file,
      backup.metadata.revision,
    );
    log.info(
      { dataDir, member: options.seed.name, key: backup.key, revisionBump },
      'Restored the data dir from the backup',
    );
    return {
      outcome: 'restored',
      dataDir,
      bucket: backup.bucket,
      key: backup.key,
      revision: backup.metadata.revision,
      etcdVersion: backup.metadata.etcdVersion,
      snapshotBytes: snapshot.snapshotBytes,
      revisionBump,
    };
  } catch (error) {
    await rm(work, { recursive: true, force: true });
    throw error;
  } finally {
    s3.destroy();
  }
}
