// The etcd version grammar: `X.Y.Z`, no `v` prefix, no pre-release, no leading zeros. One parser for the
// constructs, the CRD (the same pattern), the controller and the restore command.

/**
 * `X.Y.Z` as a regular expression source, written with character classes only so that it needs no escaping in
 * CEL or YAML.
 */
export const ETCD_VERSION_PATTERN = '^(0|[1-9][0-9]*)[.](0|[1-9][0-9]*)[.](0|[1-9][0-9]*)$';
const VERSION = new RegExp(ETCD_VERSION_PATTERN);

/** A parsed `X.Y.Z`. */
export interface Semver {
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
}

/** Parses `X.Y.Z`, or returns undefined for anything else. */
export function parseSemver(text: string): Semver | undefined {
  const match = VERSION.exec(text);
  if (!match) return undefined;
  return { major: Number(match[1]), minor: Number(match[2]), patch: Number(match[3]) };
}

/** Negative when a < b, zero when equal, positive when a > b. */
export function compareSemver(a: Semver, b: Semver): number {
  return a.major - b.major || a.minor - b.minor || a.patch - b.patch;
}

export function formatSemver(version: Semver): string {
  return `${version.major}.${version.minor}.${version.patch}`;
}

/** The oldest etcd that supports learners, which membership relies on. */
export const MIN_ETCD_VERSION: Semver = { major: 3, minor: 4, patch: 0 };

/** The etcd 3.x minors the controller runs (and our image has restore tools for). */
export const SUPPORTED_ETCD_MINORS: readonly number[] = [4, 5, 6];

/** `3.4.x to 3.6.x` */
export const SUPPORTED_ETCD_RANGE = `3.${SUPPORTED_ETCD_MINORS[0]}.x to 3.${SUPPORTED_ETCD_MINORS[SUPPORTED_ETCD_MINORS.length - 1]}.x`;

/** True when the controller runs this etcd version. */
export function isSupportedEtcdVersion(version: Semver): boolean {
  return version.major === 3 && SUPPORTED_ETCD_MINORS.includes(version.minor);
}
