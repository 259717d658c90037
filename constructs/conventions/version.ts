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

/**
 * The lowest patch of a minor from which the next minor may be started, keyed `X.Y`: a 3.5 cluster runs 3.5.26 or
 * newer before 3.6. etcd's blog post on zombie members after an upgrade to 3.6 (etcd-io/website PR #1095): "make
 * sure to update to v3.5.26 or later first".
 */
export const MIN_PATCH_BEFORE_NEXT_MINOR: Readonly<Record<string, number>> = { '3.5': 26 };

/** Why a version step is refused (docs/design/rolling-update.md, "The version path"). */
export type VersionStepRule = 'down' | 'minor-skip' | 'min-patch' | 'rollback';

/** A refused step: the rule it breaks and what is allowed instead, in words. */
export interface VersionStepRefusal {
  readonly rule: VersionStepRule;
  readonly allowed: string;
}

/**
 * Where the version a step starts from comes from, in words: what the members run (`status.currentVersion`, the
 * controller's lowest running version) or, while that is unknown, the previous `spec.version`.
 */
export const VERSION_ORIGIN = {
  running: (version: string) => `members run ${version}`,
  spec: (version: string) => `was ${version}`,
  /** The newest version a member Pod runs (the controller only: admission does not see the Pods). */
  newest: (version: string) => `a member runs ${version}`,
} as const;

/**
 * The "allowed" text of each refusal. Its parts are text so that the CRD's CEL messages can pass expressions
 * (such as `" + oldSelf.spec.version + "`) and say the same words as the controller; no part contains a double
 * quote. `origin` is a VERSION_ORIGIN text.
 */
export const VERSION_STEP_ALLOWED = {
  down: (from: string, origin: string) => `${from} or newer (${origin}; etcd does not support downgrades)`,
  minorSkip: (from: string, origin: string) =>
    `at most one minor version above ${from} (${origin}; etcd upgrades one minor at a time)`,
  minPatch: (minimum: string, nextMinor: string, origin: string) =>
    `${minimum} or newer first (etcd's minimum before ${nextMinor}; ${origin})`,
  rollback: (minorStart: string, origin: string) =>
    `${minorStart} or newer (${origin}; no rollback of a half-done upgrade)`,
} as const;

/** A minimum patch before the next minor, e.g. `{ minimum: 3.5.26, next: '3.6' }`. */
export interface MinPatchStep {
  readonly minimum: Semver;
  /** The next minor, `X.Y`. */
  readonly next: string;
}

/** MIN_PATCH_BEFORE_NEXT_MINOR as versions. */
export const MIN_PATCH_STEPS: readonly MinPatchStep[] = Object.entries(MIN_PATCH_BEFORE_NEXT_MINOR).map(
  ([minor, patch]) => {
    const [major, minorNumber] = minor.split('.').map(Number);
    return { minimum: { major, minor: minorNumber, patch }, next: `${major}.${minorNumber + 1}` };
  },
);

/**
 * Whether `from → to` is a step etcd allows: the same version, a patch, or one minor up; never down, never a major
 * or two minors at once, and not into the next minor from below its minimum patch (MIN_PATCH_BEFORE_NEXT_MINOR).
 * Returns the refusal, or `undefined` when the step is allowed. `origin` words where `from` comes from
 * (VERSION_ORIGIN; by default the previous spec).
 */
export function versionStepRefusal(
  from: Semver,
  to: Semver,
  origin: string = VERSION_ORIGIN.spec(formatSemver(from)),
): VersionStepRefusal | undefined {
  const fromText = formatSemver(from);
  if (compareSemver(to, from) < 0)
    return { rule: 'down', allowed: VERSION_STEP_ALLOWED.down(fromText, origin) };
  if (to.major !== from.major || to.minor > from.minor + 1) {
    return { rule: 'minor-skip', allowed: VERSION_STEP_ALLOWED.minorSkip(fromText, origin) };
  }
  const step = MIN_PATCH_STEPS.find(
    ({ minimum }) => minimum.major === from.major && minimum.minor === from.minor,
  );
  if (step && to.minor === from.minor + 1 && from.patch < step.minimum.patch) {
    return {
      rule: 'min-patch',
      allowed: VERSION_STEP_ALLOWED.minPatch(formatSemver(step.minimum), step.next, origin),
    };
  }
  return undefined;
}

/**
 * Going back below the minor (or major) a member already runs, e.g. 3.6.16 → 3.5.35 while one member runs 3.6.16:
 * a half-done upgrade is not rolled back (docs/design/rolling-update.md, "The version path"). `newest` is the highest
 * version a member runs. Returns the refusal, or `undefined`.
 */
export function rollbackRefusal(newest: Semver, to: Semver): VersionStepRefusal | undefined {
  if (to.major > newest.major || (to.major === newest.major && to.minor >= newest.minor)) return undefined;
  return {
    rule: 'rollback',
    allowed: VERSION_STEP_ALLOWED.rollback(
      formatSemver({ ...newest, patch: 0 }),
      VERSION_ORIGIN.newest(formatSemver(newest)),
    ),
  };
}
