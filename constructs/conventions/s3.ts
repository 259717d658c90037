// The S3 location shape: where a backup lives in S3-compatible object storage and how to reach it.
import type { S3Location } from '../imports/etcd.gitops.dev.js';

export const DEFAULT_S3_REGION = 'us-east-1';

/**
 * How the SDK computes request checksums and validates response checksums.
 * - `when-required`: only where an operation requires one. Works with S3-compatible stores that reject the
 *   SDK's newer default checksum headers and aws-chunked bodies (older MinIO, Ceph RGW, many appliances).
 * - `when-supported`: the SDK's own default (CRC32 on every upload that supports it).
 */
export const CHECKSUM_MODES = ['when-required', 'when-supported'] as const;
/** One of {@link CHECKSUM_MODES}. */
export type ChecksumMode = (typeof CHECKSUM_MODES)[number];
export const DEFAULT_CHECKSUM_MODE: ChecksumMode = 'when-required';

/** Server-side encryption: SSE-S3 or SSE-KMS. */
export const SSE_ALGORITHMS = ['AES256', 'aws:kms'] as const;
/** One of {@link SSE_ALGORITHMS}. */
export type SseAlgorithm = (typeof SSE_ALGORITHMS)[number];

/** The keys of the credentials Secret, read into the standard AWS environment (never flags). */
export const S3_CREDENTIAL_KEYS = [
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
] as const;

/** Where an S3-compatible store is and how to address it, defaults applied. */
export interface S3Connection {
  /** @default - AWS S3 of `region` */
  readonly endpoint?: string;
  readonly region: string;
  readonly forcePathStyle: boolean;
}

/** A backup: a bucket and exactly one of an object key or the newest object under a prefix. */
export type BackupSource =
  | { readonly bucket: string; readonly key: string; readonly latestUnderPrefix?: undefined }
  | { readonly bucket: string; readonly latestUnderPrefix: string; readonly key?: undefined };

/** The connection of an `S3Location`, with the API's defaults. */
export function s3ConnectionOf(
  location: Pick<S3Location, 'endpoint' | 'region' | 'forcePathStyle'>,
): S3Connection {
  return {
    ...(location.endpoint ? { endpoint: location.endpoint } : {}),
    region: location.region ?? DEFAULT_S3_REGION,
    forcePathStyle: location.forcePathStyle ?? false,
  };
}

/** The backup an `S3Location` names; `key` wins over `latestUnderPrefix`. */
export function backupSourceOf(
  location: Pick<S3Location, 'bucket' | 'key' | 'latestUnderPrefix'>,
): BackupSource {
  return location.key !== undefined
    ? { bucket: location.bucket, key: location.key }
    : { bucket: location.bucket, latestUnderPrefix: location.latestUnderPrefix ?? '' };
}
