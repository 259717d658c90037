// S3 client construction for every command of ours that talks to S3-compatible object storage.
import { S3Client } from '@aws-sdk/client-s3';

/**
 * How the SDK computes request checksums and validates response checksums.
 * - `when-required`: only where an operation requires one. Works with S3-compatible stores that reject the
 *   SDK's newer default checksum headers and aws-chunked bodies (older MinIO, Ceph RGW, many appliances).
 * - `when-supported`: the SDK's own default (CRC32 on every upload that supports it).
 */
export type ChecksumMode = 'when-required' | 'when-supported';

export const checksumModes: readonly ChecksumMode[] = ['when-required', 'when-supported'];

/** Where and how to reach S3. Credentials: the SDK's standard chain (`AWS_ACCESS_KEY_ID`, ...) unless given. */
export interface S3Options {
  /** S3-compatible endpoint URL, e.g. `http://minio.backup.svc:9000`. @default - AWS S3 of `region` */
  readonly endpoint?: string;
  /** @default 'us-east-1' */
  readonly region?: string;
  /** Path-style addressing (`<endpoint>/<bucket>/<key>`); most S3-compatible stores need it. @default false */
  readonly forcePathStyle?: boolean;
  /** @default 'when-required' */
  readonly checksumMode?: ChecksumMode;
  /** Explicit credentials. @default - the SDK's default chain: the AWS_* environment variables first */
  readonly credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /** Attempts per request, including the first. @default 3 */
  readonly maxAttempts?: number;
}

/** Server-side encryption applied to every object written. */
export interface ServerSideEncryption {
  /** `AES256` (SSE-S3) or `aws:kms` (SSE-KMS). */
  readonly algorithm: 'AES256' | 'aws:kms';
  /** KMS key for `aws:kms`. @default - the bucket's or account's default KMS key */
  readonly kmsKeyId?: string;
}

/** The request parameters that ask S3 to encrypt an object written by PutObject/CreateMultipartUpload/Copy. */
export function encryptionParams(sse: ServerSideEncryption | undefined): {
  ServerSideEncryption?: 'AES256' | 'aws:kms';
  SSEKMSKeyId?: string;
} {
  if (!sse) return {};
  return sse.kmsKeyId
    ? { ServerSideEncryption: sse.algorithm, SSEKMSKeyId: sse.kmsKeyId }
    : { ServerSideEncryption: sse.algorithm };
}

export function createS3Client(options: S3Options): S3Client {
  const checksum = options.checksumMode === 'when-supported' ? 'WHEN_SUPPORTED' : 'WHEN_REQUIRED';
  return new S3Client({
    region: options.region ?? 'us-east-1',
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    forcePathStyle: options.forcePathStyle ?? false,
    requestChecksumCalculation: checksum,
    responseChecksumValidation: checksum,
    maxAttempts: options.maxAttempts ?? 3,
    ...(options.credentials ? { credentials: options.credentials } : {}),
    requestHandler: { connectionTimeout: 10_000, requestTimeout: 120_000 },
  });
}
