// Fetches one backup into a local file, verifying while it streams (restore design, step 2-3): the object's
// size and sha256 against its recorded ones, then (after un-gzip) the snapshot's own trailing sha256 and its
// recorded size and sha256. Written to `<file>.part`, fsynced, renamed to `<file>` only when everything matched.
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { ByteCounter } from '../backup/byte-counter.js';
import { SnapshotChecksumError, SnapshotVerifier } from '../backup/snapshot-verifier.js';
import { RestoreError } from './exit-codes.js';
import { durableRename } from './fsync.js';
import type { LocatedBackup } from './locate.js';
import { s3Failure } from './s3-failure.js';

export interface DownloadedSnapshot {
  readonly file: string;
  readonly objectBytes: number;
  readonly snapshotBytes: number;
}

function isFileSystemError(error: unknown): boolean {
  const e = error as NodeJS.ErrnoException;
  return typeof e?.syscall === 'string' && typeof e.path === 'string';
}

function isCorruption(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException)?.code ?? '';
  return error instanceof SnapshotChecksumError || code.startsWith('Z_');
}

function streamFailure(backup: LocatedBackup, file: string, error: unknown): RestoreError {
  const where = `s3://${backup.bucket}/${backup.key}`;
  if (isCorruption(error)) {
    return new RestoreError('ChecksumMismatch', `${where} is corrupt: ${(error as Error).message}`, {
      cause: error,
    });
  }
  if (isFileSystemError(error)) {
    return new RestoreError('RestoreFailed', `writing ${file} failed: ${(error as Error).message}`, {
      cause: error,
    });
  }
  return s3Failure(`downloading ${where} failed`, error);
}

function mismatch(
  backup: LocatedBackup,
  counter: ByteCounter,
  verifier: SnapshotVerifier,
): string | undefined {
  const m = backup.metadata;
  if (counter.bytes !== m.objectSize)
    return `object has ${counter.bytes} bytes, the backup records ${m.objectSize}`;
  if (counter.sha256 !== m.objectSha256)
    return `object sha256 ${counter.sha256} differs from the recorded ${m.objectSha256}`;
  if (verifier.size !== m.snapshotSize || verifier.sha256 !== m.snapshotSha256)
    return `snapshot sha256 ${verifier.sha256} (${verifier.size} bytes) differs from the recorded ${m.snapshotSha256} (${m.snapshotSize} bytes)`;
  return undefined;
}

/** Downloads and verifies `backup` into `file`; on any failure nothing is left at `file` or `file.part`. */
export async function downloadSnapshot(
  s3: S3Client,
  backup: LocatedBackup,
  file: string,
): Promise<DownloadedSnapshot> {
  const part = `${file}.part`;
  const counter = new ByteCounter();
  const verifier = new SnapshotVerifier();
  try {
    let body: Readable;
    try {
      const object = await s3.send(new GetObjectCommand({ Bucket: backup.bucket, Key: backup.key }));
      body = object.Body as Readable;
    } catch (error) {
      throw s3Failure(`reading s3://${backup.bucket}/${backup.key} failed`, error);
    }
    const stages = backup.metadata.compression === 'gzip' ? [createGunzip()] : [];
    await pipeline([body, counter, ...stages, verifier, createWriteStream(part, { flush: true })]).catch(
      (error: unknown) => {
        throw streamFailure(backup, part, error);
      },
    );
    const problem = mismatch(backup, counter, verifier);
    if (problem) {
      throw new RestoreError('ChecksumMismatch', `s3://${backup.bucket}/${backup.key}: ${problem}`);
    }
    await durableRename(part, file);
    return { file, objectBytes: counter.bytes, snapshotBytes: verifier.size };
  } catch (error) {
    await rm(part, { force: true });
    throw error;
  }
}
