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

/** The restore tool of a cluster version inside our image: `etcdutl` from 3.5, `etcdctl` for 3.4. */
export function restoreToolPath(toolsDir: string, clusterVersion: string): string {
  const version = parseSemver(clusterVersion);
  if (!version) throw new Error(`the cluster version '${clusterVersion}' is not X.Y.Z`);
  const tool = version.major === 3 && version.minor <= 4 ? 'etcdctl' : 'etcdutl';
  return `${toolsDir.replace(/\/+$/, '')}/v${version.major}.${version.minor}/${tool}`;
}
