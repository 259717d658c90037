// Step 3-5 of docs/design/backup.md: etcd snapshot → verifier → (gzip) → hasher → multipart upload of
// `<key>.part`, with backpressure end to end; any failure aborts the multipart upload.
import { pipeline } from 'node:stream/promises';
import { createGzip, constants as zlib } from 'node:zlib';
import { AbortMultipartUploadCommand, ListMultipartUploadsCommand, type S3Client } from '@aws-sdk/client-s3';
import type { MaintenanceClient } from '../etcd/maintenance-client.js';
import { encryptionParams, type ServerSideEncryption } from '../s3/client.js';
import { MultipartWriter } from '../s3/multipart-writer.js';
import { ByteCounter } from './byte-counter.js';
import type { Compression } from './metadata.js';
import { SnapshotBlobs } from './snapshot-source.js';
import { SnapshotChecksumError, SnapshotVerifier } from './snapshot-verifier.js';

export interface StreamRequest {
  readonly bucket: string;
  readonly key: string;
  readonly compression: Compression;
  readonly encryption?: ServerSideEncryption;
  /** User metadata of the uploaded object (the staging marker, staging.ts). @default - none */
  readonly metadata?: Record<string, string>;
  readonly partSizeBytes: number;
  readonly queueSize: number;
  /** Aborting it (SIGTERM/SIGINT) stops the stream and aborts the multipart upload. @default - never */
  readonly signal?: AbortSignal;
}

export interface StreamedSnapshot {
  readonly snapshotSize: number;
  readonly snapshotSha256: string;
  readonly objectSize: number;
  readonly objectSha256: string;
}

/** Which side failed, so the caller can pick the exit code. */
export class StreamFailure extends Error {
  constructor(
    readonly side: 'etcd' | 's3' | 'checksum' | 'interrupted',
    message: string,
    /** Whether an incomplete multipart upload may remain (invisible, but it holds storage). */
    readonly leftoverUpload: boolean,
    options: { cause: unknown },
  ) {
    super(message, options);
    this.name = 'StreamFailure';
  }
}

export async function streamSnapshotToS3(
  etcd: MaintenanceClient,
  s3: S3Client,
  request: StreamRequest,
): Promise<StreamedSnapshot> {
  const call = etcd.snapshot();
  let etcdError: unknown;
  let cancelling = false;
  call.on('error', (error: NodeJS.ErrnoException) => {
    // When another stage fails, `pipeline` destroys the call, and we cancel it: those errors are not etcd's.
    if (cancelling || error.name === 'AbortError' || error.code === 'ERR_STREAM_PREMATURE_CLOSE') return;
    etcdError ??= error;
  });
  const verifier = new SnapshotVerifier();
  const gzipped = request.compression === 'gzip';
  // Uncompressed, the object is the snapshot byte for byte: its sha256 is the verifier's, not hashed again.
  const counter = new ByteCounter({ sha256: gzipped });
  const gzip = gzipped ? [createGzip({ level: zlib.Z_BEST_SPEED })] : [];
  // Its spare part buffer lets etcd keep streaming while every part in the queue uploads (bounded: one more part).
  const writer = new MultipartWriter({
    client: s3,
    partSizeBytes: request.partSizeBytes,
    queueSize: request.queueSize,
    params: {
      Bucket: request.bucket,
      Key: request.key,
      ContentType: 'application/octet-stream',
      ...(request.metadata ? { Metadata: request.metadata } : {}),
      ...encryptionParams(request.encryption),
    },
  });
  // An abort or a failure in any stage destroys every stage; the writer then waits for its parts in flight and
  // sends AbortMultipartUpload itself. Only the end of the verifier's stream lets it complete the upload.
  const piped = await pipeline(call, new SnapshotBlobs(), verifier, ...gzip, counter, writer, {
    ...(request.signal ? { signal: request.signal } : {}),
  }).then(
    () => undefined,
    (error: unknown) => ({ error }),
  );
  if (!piped) {
    const snapshotSha256 = verifier.sha256 ?? '';
    return {
      snapshotSize: verifier.size,
      snapshotSha256,
      objectSize: counter.bytes,
      objectSha256: gzipped ? (counter.sha256 ?? '') : snapshotSha256,
    };
  }
  const outcome = await writer.outcome;
  cancelling = true;
  call.cancel();
  const cause = piped.error;
  const noUploadLeft = !outcome.stored && !outcome.leftoverUpload;
  const leftover = !noUploadLeft && !(await abortLeftoverUploads(s3, request.bucket, request.key));
  if (request.signal?.aborted)
    throw new StreamFailure('interrupted', String(request.signal.reason), leftover, { cause });
  if (cause instanceof SnapshotChecksumError)
    throw new StreamFailure('checksum', cause.message, leftover, { cause });
  // The pipeline hands the first error to every stage, the gRPC call included: S3's own failure is the writer's.
  const s3Error = outcome.stored ? undefined : outcome.error;
  if (s3Error) throw new StreamFailure('s3', s3Error.message, leftover, { cause: s3Error });
  if (etcdError)
    throw new StreamFailure('etcd', (etcdError as Error).message, leftover, { cause: etcdError });
  throw new StreamFailure('s3', (cause as Error).message, leftover, { cause });
}

/**
 * Aborts any multipart upload still open for `key` (the writer aborts its own, but not when the abort
 * itself failed). Resolves `true` when none is left, `false` when that could not be confirmed.
 */
async function abortLeftoverUploads(s3: S3Client, bucket: string, key: string): Promise<boolean> {
  try {
    const listed = await s3.send(new ListMultipartUploadsCommand({ Bucket: bucket, Prefix: key }));
    for (const open of listed.Uploads ?? []) {
      if (open.Key !== key) continue;
      await s3.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: open.UploadId }));
    }
    return true;
  } catch {
    return false;
  }
}
