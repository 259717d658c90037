// An S3 error as a restore failure reason: missing object, wrong credentials, or the store unreachable.
import { describeS3Error } from '../s3/errors.js';
import { type FailureReason, RestoreError } from './exit-codes.js';

interface SdkError {
  name?: string;
  code?: string;
  $metadata?: { httpStatusCode?: number };
}

const notFound = new Set(['NoSuchKey', 'NoSuchBucket', 'NotFound']);
const denied = new Set([
  'InvalidAccessKeyId',
  'SignatureDoesNotMatch',
  'AccessDenied',
  'Forbidden',
  'CredentialsProviderError',
  // A web identity the store's STS refused (AssumeRoleWithWebIdentity): a token of another audience, an
  // unknown issuer, an expired token, a role that does not trust the ServiceAccount.
  'WebIdentityRefused',
  'InvalidIdentityToken',
  'IDPRejectedClaim',
  'ExpiredToken',
]);

export function s3FailureReason(error: unknown): FailureReason {
  const e = (error ?? {}) as SdkError;
  const name = e.code ?? e.name ?? '';
  const status = e.$metadata?.httpStatusCode;
  if (notFound.has(name) || status === 404) return 'BackupNotFound';
  if (denied.has(name) || status === 403) return 'AccessDenied';
  return 'S3Unavailable';
}

/** `what` failed at S3: a RestoreError with the classified reason (RestoreErrors pass through). */
export function s3Failure(what: string, error: unknown): RestoreError {
  if (error instanceof RestoreError) return error;
  return new RestoreError(s3FailureReason(error), `${what}: ${describeS3Error(error)}`, { cause: error });
}
