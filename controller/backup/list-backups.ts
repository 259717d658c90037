// The backups under a prefix: objects carrying this command's metadata marker; `.part` staging objects apart.
import type { S3Client } from '@aws-sdk/client-s3';
import { headObject, listObjects } from '../s3/list.js';
import { type BackupMetadata, fromS3Metadata } from './metadata.js';

export interface ListedBackup {
  readonly key: string;
  /** Size S3 reports for the object. */
  readonly size: number;
  readonly metadata: BackupMetadata;
}

export interface BackupListing {
  /** Newest first by recorded `backup-time` (ties: key order reversed, only for a stable display). */
  readonly backups: ListedBackup[];
  /** Staging objects (`*.part`) left by an interrupted save: complete and verified, but not backups. */
  readonly partials: string[];
  /** Objects under the prefix that this command did not write; never touched. */
  readonly foreign: string[];
}

export async function listBackups(client: S3Client, bucket: string, prefix: string): Promise<BackupListing> {
  const objects = await listObjects(client, bucket, prefix);
  const backups: ListedBackup[] = [];
  const partials: string[] = [];
  const foreign: string[] = [];
  for (const object of objects) {
    if (object.key.endsWith('.part')) {
      partials.push(object.key);
      continue;
    }
    const head = await headObject(client, bucket, object.key);
    const metadata = fromS3Metadata(head.metadata);
    if (metadata) backups.push({ key: object.key, size: head.size, metadata });
    else foreign.push(object.key);
  }
  backups.sort((a, b) => {
    const byTime = Date.parse(b.metadata.time) - Date.parse(a.metadata.time);
    return Number.isNaN(byTime) || byTime === 0 ? (a.key < b.key ? 1 : -1) : byTime;
  });
  return { backups, partials, foreign };
}
