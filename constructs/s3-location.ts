// Synth-time checks of an S3Location (backup source of a bootstrap or a restore).
import type { S3Location } from './imports/etcd.gitops.dev.js';
import { validateBucketName } from './validate/bucket.js';
import { validateS3Credentials } from './validate/s3-credentials.js';
import { validateHttpUrl } from './validate/url.js';

/** Throws, naming `prop`, unless `location` names a bucket, exactly one of key/prefix and exactly one of a credentials Secret or a web identity. */
export function validateS3Location(prop: string, location: S3Location): S3Location {
  validateBucketName(location.bucket, `${prop}.bucket`);
  if ((location.key === undefined) === (location.latestUnderPrefix === undefined)) {
    throw new Error(
      `'${prop}' must set exactly one of 'key' (one backup) or 'latestUnderPrefix' (the newest backup under a prefix), got ${location.key === undefined ? 'neither' : 'both'}`,
    );
  }
  validateS3Credentials(`${prop}.`, location);
  if (location.endpoint !== undefined) validateHttpUrl(`${prop}.endpoint`, location.endpoint);
  return location;
}
