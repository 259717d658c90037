// etcd versions as X.Y.Z, compared numerically.

/** A parsed `X.Y.Z` version. */
export interface Semver {
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
}

const SEMVER = /^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$/;

/** Parses `X.Y.Z` (no `v` prefix, no pre-release), or returns undefined. */
export function parseSemver(text: string): Semver | undefined {
  const match = SEMVER.exec(text);
  if (!match) return undefined;
  return { major: Number(match[1]), minor: Number(match[2]), patch: Number(match[3]) };
}

/** Negative when a < b, zero when equal, positive when a > b. */
export function compareSemver(a: Semver, b: Semver): number {
  return a.major - b.major || a.minor - b.minor || a.patch - b.patch;
}

/** The oldest etcd that supports learners, which the controller relies on. */
export const MIN_ETCD_VERSION: Semver = { major: 3, minor: 4, patch: 0 };

/** Throws unless `version` is an etcd release `X.Y.Z` that is 3.4.0 or newer. */
export function validateEtcdVersion(version: string, prop = 'version'): Semver {
  const parsed = parseSemver(version);
  if (!parsed) {
    throw new Error(
      `'${prop}' must be an etcd release written X.Y.Z such as 3.6.16 (no 'v' prefix), got '${version}'`,
    );
  }
  if (compareSemver(parsed, MIN_ETCD_VERSION) < 0) {
    throw new Error(
      `'${prop}' must be 3.4.0 or newer (members join as learners, which etcd supports from 3.4), got '${version}'`,
    );
  }
  return parsed;
}
