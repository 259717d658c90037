// S3 bucket names, per the S3 naming rules for general purpose buckets.

const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const IP_ADDRESS = /^\d{1,3}(\.\d{1,3}){3}$/;

/** Throws unless `bucket` is a valid S3 bucket name. */
export function validateBucketName(bucket: string, prop = 'bucket'): string {
  const rules =
    '3-63 characters of lowercase letters, digits, dots and hyphens, starting and ending with a letter or digit, not shaped like an IP address, without consecutive dots';
  if (typeof bucket !== 'string') {
    throw new Error(`'${prop}' must be an S3 bucket name (${rules}), got ${String(bucket)}`);
  }
  if (!BUCKET.test(bucket) || IP_ADDRESS.test(bucket) || bucket.includes('..') || /\.-|-\./.test(bucket)) {
    throw new Error(`'${prop}' must be an S3 bucket name (${rules}), got '${bucket}'`);
  }
  return bucket;
}
