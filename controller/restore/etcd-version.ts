// etcd versions as restore needs them: the minor decides the data format and which restore tool runs. Pure.
// The version grammar is the project's one (constructs/conventions/version.ts).
import { parseSemver } from '../../constructs/conventions/version.js';

/**
 * Why a snapshot of `snapshotVersion` cannot be restored into a cluster of `clusterVersion`, or `undefined` when
 * it can. etcd reads the data of older minors and upgrades it; a newer minor's data it refuses or misreads.
 */
export function snapshotVersionProblem(snapshotVersion: string, clusterVersion: string): string | undefined {
  const snapshot = parseSemver(snapshotVersion);
  const cluster = parseSemver(clusterVersion);
  if (!cluster) return `the cluster version '${clusterVersion}' is not X.Y.Z`;
  if (!snapshot) return `the backup records no usable etcd version ('${snapshotVersion}')`;
  const newer =
    snapshot.major > cluster.major || (snapshot.major === cluster.major && snapshot.minor > cluster.minor);
  if (!newer) return undefined;
  return `the snapshot comes from etcd ${snapshotVersion}, newer than the cluster's ${clusterVersion}: etcd cannot restore a newer minor's data`;
}

/**
 * How much every restore raises the revision (`--bump-revision`, with `--mark-compacted`), so that no watcher of the
 * old cluster resumes silently wrong (docs/design/restore.md, "Watchers across a restore").
 */
export const RESTORE_REVISION_BUMP = 1_000_000_000;

/** What restores a cluster version: its tool, and the revision bump that tool can apply. */
export interface RestoreTool {
  /** `etcdutl` from 3.5; 3.4 restores with `etcdctl`. */
  readonly name: 'etcdutl' | 'etcdctl';
  /** `RESTORE_REVISION_BUMP`, or 0 for 3.4, whose `etcdctl snapshot restore` has no `--bump-revision`. */
  readonly revisionBump: number;
  /** `v<major>.<minor>`: the directory of the tool in our image. */
  readonly minorDir: string;
}

export function restoreToolOf(clusterVersion: string): RestoreTool {
  const version = parseSemver(clusterVersion);
  if (!version) throw new Error(`the cluster version '${clusterVersion}' is not X.Y.Z`);
  const legacy = version.major === 3 && version.minor <= 4;
  return {
    name: legacy ? 'etcdctl' : 'etcdutl',
    revisionBump: legacy ? 0 : RESTORE_REVISION_BUMP,
    minorDir: `v${version.major}.${version.minor}`,
  };
}

/** The restore tool of a cluster version inside our image: `<toolsDir>/v<major.minor>/<restoreToolOf's name>`. */
export function restoreToolPath(toolsDir: string, clusterVersion: string): string {
  const tool = restoreToolOf(clusterVersion);
  return `${toolsDir.replace(/\/+$/, '')}/${tool.minorDir}/${tool.name}`;
}

/**
 * The bump a restore applies (docs/design/restore.md, "The revision floor"): `RESTORE_REVISION_BUMP` above the
 * snapshot and, given `floor` (the highest revision the cluster is known to have given out), at least that much above
 * the floor, so that a restore to a snapshot below an earlier restore's revisions reissues none of them. 0 for 3.4.
 * `snapshotRevision` may be a lower bound of the snapshot's own (a backup's recorded revision): the bump is only larger.
 */
export function revisionBumpOf(tool: RestoreTool, snapshotRevision: string, floor?: string): number {
  if (tool.revisionBump === 0) return 0;
  const base = BigInt(tool.revisionBump);
  const needed = floor === undefined ? base : BigInt(floor) + base - BigInt(snapshotRevision);
  const bump = needed > base ? needed : base;
  if (bump > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new Error(
      `a revision bump of ${bump} (floor ${floor}, snapshot revision ${snapshotRevision}) is too large`,
    );
  }
  return Number(bump);
}
