// Downloads one backup (streaming, bounded memory) and checks it against its metadata: the object's size and
// sha256, then, after decompression, the snapshot's size, sha256 and its own trailing sha256.
import { pipeline } from 'node:stream/promises';
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { ByteCounter } from './byte-counter.js';
import type { BackupMetadata } from './metadata.js';
import { SnapshotCheck } from './snapshot-check.js';

export type Verification = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/** Resolves `ok: false` with the reason for a mismatch; rejects only when the object cannot be read. */
export async function verifyObject(
  s3: S3Client,
  bucket: string,
  key: string,
  metadata: BackupMetadata,
): Promise<Verification> {
  const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  const body = object.Body as NodeJS.ReadableStream | undefined;
  if (!body) throw new Error(`GetObject returned no body for ${key}`);
  const counter = new ByteCounter();
  const check = new SnapshotCheck(metadata.compression);
  await pipeline(body, counter, check);
  if (counter.bytes !== metadata.objectSize) {
    return {
      ok: false,
      reason: `object has ${counter.bytes} bytes, metadata records ${metadata.objectSize}`,
    };
  }
  if (counter.sha256 !== metadata.objectSha256) {
    return {
      ok: false,
      reason: `object sha256 ${counter.sha256} differs from the recorded ${metadata.objectSha256}`,
    };
  }
  if (check.problem) return { ok: false, reason: check.problem };
  const { sha256, size } = check.verifier;
  if (sha256 !== metadata.snapshotSha256 || size !== metadata.snapshotSize) {
    return {
      ok: false,
      reason: `snapshot sha256 ${sha256} and size ${size} differ from the recorded ${metadata.snapshotSha256} and ${metadata.snapshotSize}`,
    };
  }
  return { ok: true };
}
