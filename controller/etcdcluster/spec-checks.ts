// Spec changes the controller must not carry out, even if they slipped past admission.
// Each returns a refusal naming the field, the value and what is allowed (docs/design/membership.md, step 3).
import { backendProblem } from '../../constructs/conventions/etcd-backend.js';
import { DEFAULT_STORAGE_SIZE, MAX_SIZE, MIN_SIZE } from '../../constructs/conventions/limits.js';
import { sameQuantity } from '../../constructs/conventions/quantity.js';
import {
  compareSemver,
  formatSemver,
  isSupportedEtcdVersion,
  parseSemver,
  rollbackRefusal,
  type Semver,
  SUPPORTED_ETCD_RANGE,
  VERSION_ORIGIN,
  versionStepRefusal,
} from '../../constructs/conventions/version.js';
import type { Action, ClusterView, PodView, PvcView } from './types.js';

export type Refusal = Extract<Action, { kind: 'Refuse' }>;

const refuse = (field: string, value: unknown, allowed: string): Refusal => ({
  kind: 'Refuse',
  field,
  value: String(value),
  allowed,
});

export function checkSize(cluster: ClusterView): Refusal | undefined {
  const { size, allowEvenSize } = cluster;
  if (!Number.isInteger(size) || size < MIN_SIZE || size > MAX_SIZE) {
    return refuse('spec.size', size, `an integer from ${MIN_SIZE} to ${MAX_SIZE}`);
  }
  if (size % 2 === 0 && !allowEvenSize) {
    return refuse('spec.size', size, 'an odd size (set spec.allowEvenSize: true for an even one)');
  }
  return undefined;
}

/** The lowest version the members run: `status.currentVersion`, else the Pods' version annotations. */
function runningVersion(cluster: ClusterView, pods: readonly PodView[]): Semver | undefined {
  const candidates = [cluster.runningVersion, ...pods.map((pod) => pod.version)]
    .map((version) => (version ? parseSemver(version) : undefined))
    .filter((version): version is Semver => version !== undefined);
  return candidates.sort(compareSemver)[0];
}

/** The highest version a member Pod runs (its version annotation). A Pod crash-looping on its version never ran
 *  it (the first member of a roll that etcd refused to start, e.g. 3.6 replaying 3.4's WAL entries): going back
 *  from it is the way out (docs/design/rolling-update.md, "The version path"). */
function newestPodVersion(pods: readonly PodView[]): Semver | undefined {
  const versions = pods
    .filter((pod) => !pod.crashLooping)
    .map((pod) => (pod.version ? parseSemver(pod.version) : undefined))
    .filter((version): version is Semver => version !== undefined);
  return versions.sort(compareSemver).at(-1);
}

/**
 * The version path (docs/design/rolling-update.md): a patch or one minor up from the lowest version the members run,
 * never down, and into the next minor only from its minimum patch. Admission checks the same against
 * `status.currentVersion` when set, else the old spec, in the same words; this also sees the Pods' versions, and
 * catches a spec that moved on before the status did. Only this sees a half-done upgrade: no going back below the
 * minor a member Pod already runs, which admission lets through while the status says the older minor.
 */
export function checkVersion(cluster: ClusterView, pods: readonly PodView[]): Refusal | undefined {
  const wanted = parseSemver(cluster.version);
  if (!wanted) return refuse('spec.version', cluster.version, `a version X.Y.Z from ${SUPPORTED_ETCD_RANGE}`);
  if (!isSupportedEtcdVersion(wanted)) return refuse('spec.version', cluster.version, SUPPORTED_ETCD_RANGE);
  const running = runningVersion(cluster, pods);
  if (!running) return undefined;
  const newest = newestPodVersion(pods);
  const step =
    versionStepRefusal(running, wanted, VERSION_ORIGIN.running(formatSemver(running))) ??
    (newest ? rollbackRefusal(newest, wanted) : undefined);
  return step ? refuse('spec.version', cluster.version, step.allowed) : undefined;
}

export function checkStorage(
  cluster: ClusterView,
  pods: readonly PodView[],
  pvcs: readonly PvcView[],
): Refusal | undefined {
  const { storage } = cluster;
  const livePods = pods.filter((pod) => !pod.terminating);
  // Only the volumes of running members count: retained volumes of removed members are history.
  const ours = pvcs.filter(
    (pvc) =>
      pvc.clusterUid === cluster.uid && !pvc.terminating && livePods.some((pod) => pod.member === pvc.member),
  );
  if (livePods.some((pod) => pod.ephemeral !== storage.ephemeral)) {
    const current = livePods.find((pod) => pod.ephemeral !== storage.ephemeral)?.ephemeral;
    return refuse('spec.storage.ephemeral', storage.ephemeral, `${current} (the storage of running members)`);
  }
  const otherClass = ours.find(
    (pvc) => storage.storageClassName !== undefined && pvc.storageClassName !== storage.storageClassName,
  );
  if (otherClass) {
    return refuse(
      'spec.storage.storageClassName',
      storage.storageClassName,
      `${otherClass.storageClassName ?? '(cluster default)'} (immutable: the class of existing member volumes)`,
    );
  }
  const otherSize = ours.find((pvc) => pvc.size !== undefined && !sameQuantity(pvc.size, storage.size));
  if (otherSize) {
    return refuse(
      'spec.storage.size',
      storage.size,
      `${otherSize.size} (the size of existing member volumes)`,
    );
  }
  return undefined;
}

/** Compaction, quota and extra flags (docs/design/compaction-quota-defrag.md): the rules admission also holds. */
export function checkBackend(cluster: ClusterView): Refusal | undefined {
  const problem = backendProblem(cluster.backend, DEFAULT_STORAGE_SIZE);
  return problem ? refuse(problem.field, problem.value, problem.allowed) : undefined;
}

/** The first refusal of the spec, or `undefined` when the controller can carry it out. */
export function checkSpec(
  cluster: ClusterView,
  pods: readonly PodView[],
  pvcs: readonly PvcView[],
): Refusal | undefined {
  return (
    checkSize(cluster) ??
    checkVersion(cluster, pods) ??
    checkStorage(cluster, pods, pvcs) ??
    checkBackend(cluster)
  );
}
