// `backup status`: the backups under a prefix, optionally verified against their recorded checksums.
import type { Logger } from 'pino';
import { createS3Client, type S3Options } from '../s3/client.js';
import { describeS3Error } from '../s3/errors.js';
import { BackupError } from './exit-codes.js';
import { listBackups } from './list-backups.js';
import type { Compression } from './metadata.js';
import { verifyObject } from './verify-object.js';

export interface StatusOptions {
  readonly bucket: string;
  /** @default '' (the whole bucket) */
  readonly prefix?: string;
  readonly s3: S3Options;
  /** Download every backup and compare it with its metadata. @default false */
  readonly verify?: boolean;
}

/** One row of `backup status`. */
export interface BackupStatus {
  readonly key: string;
  readonly time: string;
  readonly namespace: string;
  readonly cluster: string;
  readonly revision: string;
  readonly etcdVersion: string;
  readonly size: number;
  readonly sha256: string;
  readonly compression: Compression;
  /** Only with `verify`: `ok`, or what does not match / could not be read. */
  readonly verified?: 'ok' | 'mismatch' | 'unreadable';
  readonly problem?: string;
}

export interface StatusReport {
  readonly bucket: string;
  readonly prefix: string;
  readonly backups: BackupStatus[];
  /** `.part` staging objects left by an interrupted save. */
  readonly partials: string[];
  /** Objects under the prefix not written by `backup save`. */
  readonly foreign: number;
}

export async function status(options: StatusOptions, log: Logger): Promise<StatusReport> {
  if (!options.bucket) throw new BackupError('USAGE', "'bucket' is required");
  const prefix = options.prefix ?? '';
  const s3 = createS3Client(options.s3);
  try {
    const listing = await listBackups(s3, options.bucket, prefix).catch((error: unknown) => {
      throw new BackupError(
        'S3_ERROR',
        `cannot list backups under s3://${options.bucket}/${prefix}: ${describeS3Error(error)}; nothing was changed`,
        { cause: error },
      );
    });
    const backups: BackupStatus[] = [];
    for (const { key, size, metadata } of listing.backups) {
      const row: BackupStatus = {
        key,
        time: metadata.time,
        namespace: metadata.namespace,
        cluster: metadata.cluster,
        revision: metadata.revision,
        etcdVersion: metadata.etcdVersion,
        size,
        sha256: metadata.objectSha256,
        compression: metadata.compression,
      };
      if (!options.verify) {
        backups.push(row);
        continue;
      }
      const verdict = await verifyObject(s3, options.bucket, key, metadata).catch((error: unknown) => ({
        ok: false as const,
        unreadable: true,
        reason: describeS3Error(error),
      }));
      if (verdict.ok) backups.push({ ...row, verified: 'ok' });
      else {
        const verified = 'unreadable' in verdict ? 'unreadable' : 'mismatch';
        log.warn({ key, problem: verdict.reason, verified }, 'Backup does not verify');
        backups.push({ ...row, verified, problem: verdict.reason });
      }
    }
    return {
      bucket: options.bucket,
      prefix,
      backups,
      partials: listing.partials,
      foreign: listing.foreign.length,
    };
  } finally {
    s3.destroy();
  }
}
