// Which backup a source names: an exact key, or the newest under a prefix by its *recorded* backup time (never by
// key text). Reads metadata only; the bytes are fetched and checked later.
import type { S3Client } from '@aws-sdk/client-s3';
import type { BackupSource } from '../../constructs/conventions/s3.js';
import { listBackups } from '../backup/list-backups.js';
import { type BackupMetadata, fromS3Metadata } from '../backup/metadata.js';
import { headObject } from '../s3/list.js';
import { RestoreError } from './exit-codes.js';
import { s3Failure } from './s3-failure.js';

export type { BackupSource };

export interface LocatedBackup {
  readonly bucket: string;
  readonly key: string;
  readonly metadata: BackupMetadata;
}

function describeSource(source: BackupSource): string {
  return source.key !== undefined
    ? `s3://${source.bucket}/${source.key}`
    : `the newest backup under s3://${source.bucket}/${source.latestUnderPrefix}`;
}

async function byKey(s3: S3Client, bucket: string, key: string): Promise<LocatedBackup> {
  let head: Awaited<ReturnType<typeof headObject>>;
  try {
    head = await headObject(s3, bucket, key);
  } catch (error) {
    throw s3Failure(`reading the backup s3://${bucket}/${key} failed`, error);
  }
  const metadata = fromS3Metadata(head.metadata);
  if (!metadata) {
    throw new RestoreError(
      'NotABackup',
      `s3://${bucket}/${key} carries no etcd-gitops backup metadata, so its checksums cannot be verified`,
    );
  }
  return { bucket, key, metadata };
}

async function newest(s3: S3Client, bucket: string, prefix: string): Promise<LocatedBackup> {
  let listing: Awaited<ReturnType<typeof listBackups>>;
  try {
    listing = await listBackups(s3, bucket, prefix);
  } catch (error) {
    throw s3Failure(`listing backups under s3://${bucket}/${prefix} failed`, error);
  }
  const found = listing.backups[0];
  if (!found) {
    throw new RestoreError(
      'BackupNotFound',
      `no etcd-gitops backup under s3://${bucket}/${prefix} (${listing.partials.length} partial, ${listing.foreign.length} foreign objects)`,
    );
  }
  return { bucket, key: found.key, metadata: found.metadata };
}

/** The backup `source` names, with its metadata. Rejects with a RestoreError naming the source. */
export async function locateBackup(s3: S3Client, source: BackupSource): Promise<LocatedBackup> {
  if (source.key !== undefined && source.latestUnderPrefix !== undefined) {
    throw new RestoreError('InvalidArguments', 'give a backup key or a prefix, not both');
  }
  if (source.key !== undefined) {
    if (source.key === '') throw new RestoreError('InvalidArguments', 'the backup key is empty');
    return byKey(s3, source.bucket, source.key);
  }
  if (source.latestUnderPrefix === undefined) {
    throw new RestoreError('InvalidArguments', `no backup key or prefix in ${describeSource(source)}`);
  }
  return newest(s3, source.bucket, source.latestUnderPrefix);
}
