// Synth-time checks of an S3Location (backup source of a bootstrap or a restore).
import type { S3Location } from './imports/etcd.gitops.dev.js';
import { validateBucketName } from './validate/bucket.js';
import { validateObjectName } from './validate/names.js';
import { validateHttpUrl } from './validate/url.js';

/** Throws, naming `prop`, unless `location` names a bucket, exactly one of key/prefix and a credentials Secret. */
export function validateS3Location(prop: string, location: S3Location): S3Location {
  validateBucketName(location.bucket, `${prop}.bucket`);
  if ((location.key === undefined) === (location.latestUnderPrefix === undefined)) {
    throw new Error(
      `'${prop}' must set exactly one of 'key' (one backup) or 'latestUnderPrefix' (the newest backup under a prefix), got ${location.key === undefined ? 'neither' : 'both'}`,
    );
  }
  if (!location.credentialsSecretName) {
    throw new Error(
      `'${prop}.credentialsSecretName' must name a Secret with AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, got none`,
    );
  }
  validateObjectName(`${prop}.credentialsSecretName`, location.credentialsSecretName);
  if (location.endpoint !== undefined) validateHttpUrl(`${prop}.endpoint`, location.endpoint);
  return location;
}
