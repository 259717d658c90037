// S3 client construction for every command of ours that talks to S3-compatible object storage.
import { S3Client } from '@aws-sdk/client-s3';
import {
  type ChecksumMode,
  DEFAULT_CHECKSUM_MODE,
  DEFAULT_S3_REGION,
  type SseAlgorithm,
} from '../../constructs/conventions/s3.js';
import type { S3ClientCredentials } from './client-types.js';
import { webIdentityFromEnvironment } from './web-identity.js';

export type { S3ClientCredentials } from './client-types.js';
export type { ChecksumMode };

/** Where and how to reach S3. Credentials: the SDK's standard chain (`AWS_ACCESS_KEY_ID`, ...) unless given. */
export interface S3Options {
  /** S3-compatible endpoint URL, e.g. `http://minio.backup.svc:9000`. @default - AWS S3 of `region` */
  readonly endpoint?: string;
  /** @default DEFAULT_S3_REGION (`us-east-1`) */
  readonly region?: string;
  /** Path-style addressing (`<endpoint>/<bucket>/<key>`); most S3-compatible stores need it. @default false */
  readonly forcePathStyle?: boolean;
  /** @default DEFAULT_CHECKSUM_MODE (`when-required`, see CHECKSUM_MODES) */
  readonly checksumMode?: ChecksumMode;
  /**
   * Explicit credentials: static keys or a provider (a web identity's).
   * @default - the SDK's default chain: the AWS_* environment variables first, then a web identity token file
   */
  readonly credentials?: S3ClientCredentials;
  /** Attempts per request, including the first. @default 3 */
  readonly maxAttempts?: number;
}

/** Server-side encryption applied to every object written. */
export interface ServerSideEncryption {
  /** `AES256` (SSE-S3) or `aws:kms` (SSE-KMS). */
  readonly algorithm: SseAlgorithm;
  /** KMS key for `aws:kms`. @default - the bucket's or account's default KMS key */
  readonly kmsKeyId?: string;
}

/** The request parameters that ask S3 to encrypt an object written by PutObject/CreateMultipartUpload/Copy. */
export function encryptionParams(sse: ServerSideEncryption | undefined): {
  ServerSideEncryption?: SseAlgorithm;
  SSEKMSKeyId?: string;
} {
  if (!sse) return {};
  return sse.kmsKeyId
    ? { ServerSideEncryption: sse.algorithm, SSEKMSKeyId: sse.kmsKeyId }
    : { ServerSideEncryption: sse.algorithm };
}

export function createS3Client(options: S3Options): S3Client {
  const mode = options.checksumMode ?? DEFAULT_CHECKSUM_MODE;
  const checksum = mode === 'when-supported' ? 'WHEN_SUPPORTED' : 'WHEN_REQUIRED';
  // Explicit credentials, else a web identity's with its refusals named, else the SDK's default chain.
  const credentials = options.credentials ?? webIdentityFromEnvironment();
  return new S3Client({
    region: options.region ?? DEFAULT_S3_REGION,
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    forcePathStyle: options.forcePathStyle ?? false,
    requestChecksumCalculation: checksum,
    responseChecksumValidation: checksum,
    maxAttempts: options.maxAttempts ?? 3,
    ...(credentials ? { credentials } : {}),
    requestHandler: { connectionTimeout: 10_000, requestTimeout: 120_000 },
  });
}
