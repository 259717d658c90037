// etcd versions as restore needs them: the minor decides the data format and which restore tool runs. Pure.

export interface MinorVersion {
  readonly major: number;
  readonly minor: number;
}

/** `3.5` of `3.5.17`, `v3.5.17` or `3.5`; `undefined` for anything else. */
export function parseMinor(version: string): MinorVersion | undefined {
  const match = /^v?(\d+)\.(\d+)(?:\.\d+)?(?:[-+].*)?$/.exec(version.trim());
  if (!match) return undefined;
  return { major: Number(match[1]), minor: Number(match[2]) };
}

/**
 * Why a snapshot of `snapshotVersion` cannot be restored into a cluster of `clusterVersion`, or `undefined` when
 * it can. etcd reads the data of older minors and upgrades it; a newer minor's data it refuses or misreads.
 */
export function snapshotVersionProblem(snapshotVersion: string, clusterVersion: string): string | undefined {
  const snapshot = parseMinor(snapshotVersion);
  const cluster = parseMinor(clusterVersion);
  if (!cluster) return `the cluster version '${clusterVersion}' is not X.Y.Z`;
  if (!snapshot) return `the backup records no usable etcd version ('${snapshotVersion}')`;
  const newer =
    snapshot.major > cluster.major || (snapshot.major === cluster.major && snapshot.minor > cluster.minor);
  if (!newer) return undefined;
  return `the snapshot comes from etcd ${snapshotVersion}, newer than the cluster's ${clusterVersion}: etcd cannot restore a newer minor's data`;
}

/** The restore tool of a cluster version inside our image: `etcdutl` from 3.5, `etcdctl` for 3.4. */
export function restoreToolPath(toolsDir: string, clusterVersion: string): string {
  const minor = parseMinor(clusterVersion);
  if (!minor) throw new Error(`the cluster version '${clusterVersion}' is not X.Y.Z`);
  const tool = minor.major === 3 && minor.minor <= 4 ? 'etcdctl' : 'etcdutl';
  return `${toolsDir.replace(/\/+$/, '')}/v${minor.major}.${minor.minor}/${tool}`;
}
