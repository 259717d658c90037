// Synth-time check of an etcd version, with the one version grammar (conventions/version.ts).
import {
  compareSemver,
  formatSemver,
  isSupportedEtcdVersion,
  MIN_ETCD_VERSION,
  parseSemver,
  type Semver,
  SUPPORTED_ETCD_RANGE,
} from '../conventions/version.js';

/** Throws unless `version` is an etcd release `X.Y.Z` the controller runs (3.4.0 or newer, up to 3.6.x). */
export function validateEtcdVersion(version: string, prop = 'version'): Semver {
  const parsed = parseSemver(version);
  if (!parsed) {
    throw new Error(
      `'${prop}' must be an etcd release written X.Y.Z such as 3.6.16 (no 'v' prefix), got '${version}'`,
    );
  }
  if (compareSemver(parsed, MIN_ETCD_VERSION) < 0) {
    throw new Error(
      `'${prop}' must be ${formatSemver(MIN_ETCD_VERSION)} or newer (members join as learners, which etcd supports from ${MIN_ETCD_VERSION.major}.${MIN_ETCD_VERSION.minor}), got '${version}'`,
    );
  }
  if (!isSupportedEtcdVersion(parsed)) {
    throw new Error(
      `'${prop}' must be a release the controller runs (${SUPPORTED_ETCD_RANGE}), got '${version}'`,
    );
  }
  return parsed;
}
