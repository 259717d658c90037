// The EtcdRestore decision: one observed snapshot in, exactly one action out. Pure; docs/design/restore.md.
import type {
  MemberPodView,
  MemberPvcView,
  RestoreAction,
  RestoreLock,
  RestorePlanInput,
  TargetView,
} from './types.js';

/** Requeue delays of the waits, in milliseconds. */
export const RESTORE_REQUEUE = { soon: 1_000, starting: 2_000, waiting: 5_000, growing: 3_000 } as const;

const wait = (reason: string, message: string, requeueAfterMs: number, degraded = false): RestoreAction => ({
  kind: 'Wait',
  reason,
  message,
  requeueAfterMs,
  ...(degraded ? { degraded } : {}),
});

/**
 * Decides the one next step of an in-place restore (docs/design/restore.md, "In-place recovery"):
 *  0. `Completed`: release our lock if still held → delete retained PVCs when whenScaled is Delete → Done;
 *     `Failed` → Done.
 *  1. the lock is ours (`status.restore.uid`): step 4-7 below (`restoreStep`); the lock is held by a restore that
 *     no longer exists: mark the PVCs it retained abandoned, then release the lock (`planOrphanedLock`);
 *  2. before the lock (Pending, Verifying, Restoring without lock), refuse when the cluster is missing, being
 *     deleted or paused, the source or Secret is unusable, or the cluster has quorum without
 *     `allowHealthyCluster`; wait while another restore holds the lock;
 *  3. Pending → StartVerifying; Verifying → Verify (the executor downloads and checks, then records
 *     `backupKey` and moves to Restoring, or fails); Restoring → TakeLock with a fresh token.
 */
export function planRestore(input: RestorePlanInput): RestoreAction {
  const { restore, cluster } = input;
  if (restore.phase === 'Failed') return { kind: 'Done' };
  if (restore.phase === 'Completed') return afterCompletion(input);
  const lock = cluster?.lock;
  if (cluster && lock && lock.uid === restore.uid) return restoreStep(input, cluster, lock);
  if (lock && input.lockHolderGone) return planOrphanedLock(lock, input.pvcs);
  const refusal = refuse(input);
  if (refusal) return refusal;
  if (lock) {
    return wait(
      'WaitingForRestore',
      `EtcdRestore ${lock.name} is restoring cluster ${restore.clusterName}; this restore waits for it`,
      RESTORE_REQUEUE.waiting,
    );
  }
  if (restore.phase === 'Pending') return { kind: 'StartVerifying' };
  if (restore.phase === 'Verifying' || !restore.backupKey) return { kind: 'Verify' };
  return { kind: 'TakeLock', token: `${restore.clusterName}-${restore.uid.slice(0, 8)}-${input.nonce}` };
}

/** Step 1 (refusals); nothing has been changed when one applies. */
function refuse(input: RestorePlanInput): RestoreAction | undefined {
  const { restore, cluster } = input;
  const name = restore.clusterName;
  if (!cluster) {
    return {
      kind: 'Refuse',
      reason: 'ClusterNotFound',
      message: `EtcdCluster ${name} does not exist in this namespace; nothing was changed`,
    };
  }
  if (cluster.deleting) {
    return { kind: 'Refuse', reason: 'ClusterDeleting', message: `EtcdCluster ${name} is being deleted` };
  }
  if (cluster.paused) {
    return {
      kind: 'Refuse',
      reason: 'ClusterPaused',
      message: `EtcdCluster ${name} has spec.paused: true; unpause it and create the restore again`,
    };
  }
  const source = restore.sourceProblem ?? input.credentialsProblem;
  if (source) {
    return { kind: 'Refuse', reason: 'InvalidBackupSource', message: `${source}; nothing was changed` };
  }
  if (input.etcd?.quorum && !restore.allowHealthyCluster && !cluster.lock) {
    return {
      kind: 'Refuse',
      reason: 'ClusterHealthy',
      message: `EtcdCluster ${name} has quorum (${input.etcd.healthyVoters} healthy voters); set spec.allowHealthyCluster: true to replace its data; nothing was changed`,
    };
  }
  return undefined;
}

/** The lowest `<cluster>-<n>` used by no Pod, no PVC (retained ones included) and no known member. */
export function seedMemberName(input: RestorePlanInput, cluster: TargetView): string {
  const used = new Set<string>([
    ...input.pods.map((pod) => pod.member),
    ...input.pvcs.map((pvc) => pvc.member),
    ...cluster.knownMembers,
  ]);
  let index = 0;
  while (used.has(`${cluster.name}-${index}`)) index += 1;
  return `${cluster.name}-${index}`;
}

function isSeed(pod: MemberPodView, token: string | undefined): boolean {
  return token !== undefined && pod.token === token;
}

/** Steps 4-7: the lock is ours. */
function restoreStep(input: RestorePlanInput, cluster: TargetView, lock: RestoreLock): RestoreAction {
  if (lock.phase === 'Growing') return grow(input, cluster);
  const { restore } = input;
  // 4. Old PVCs are labelled retained (unlinked from membership) before any Pod is stopped.
  const old = input.pvcs.find((pvc) => !pvc.retainedBy && pvc.token !== lock.token && !pvc.terminating);
  if (old) return { kind: 'RetainPVC', pvc: old.name };
  const oldPod = input.pods.find((pod) => !isSeed(pod, lock.token));
  if (oldPod && !oldPod.terminating) return { kind: 'DeletePod', pod: oldPod.name };
  if (oldPod) {
    return wait('StoppingMembers', `waiting for old member Pod ${oldPod.name} to stop`, RESTORE_REQUEUE.soon);
  }
  // 5. Seed from the backup: a new PVC and Pod under a name never used before.
  const token = lock.token ?? '';
  const seedPod = input.pods.find((pod) => isSeed(pod, lock.token));
  const seedPvc = input.pvcs.find((pvc) => pvc.token !== undefined && pvc.token === lock.token);
  const backupKey = restore.backupKey ?? '';
  if (!seedPod) {
    if (cluster.ephemeral) {
      return { kind: 'CreateSeedPod', member: seedMemberName(input, cluster), token, backupKey };
    }
    if (!seedPvc) return { kind: 'CreateSeedPVC', member: seedMemberName(input, cluster), token };
    return { kind: 'CreateSeedPod', member: seedPvc.member, token, backupKey };
  }
  // 6. Release the planner once the seed serves.
  if (seedPod.ready) return { kind: 'ReleaseToPlanner' };
  if (seedPod.initFailure) {
    return wait(
      'SeedRestoreFailing',
      `the seed ${seedPod.name} could not restore the backup and retries: ${seedPod.initFailure}; the old data stays on the retained PVCs`,
      RESTORE_REQUEUE.waiting,
      true,
    );
  }
  return wait(
    'SeedStarting',
    `waiting for the seed ${seedPod.name} to restore and start`,
    RESTORE_REQUEUE.starting,
  );
}

/** Step 7: the planner grows the cluster; complete once it is Ready at its declared size. */
function grow(input: RestorePlanInput, cluster: TargetView): RestoreAction {
  const etcd = input.etcd;
  const ready =
    etcd?.quorum === true &&
    etcd.learners === 0 &&
    etcd.members === cluster.size &&
    etcd.healthyVoters === cluster.size;
  if (ready) return { kind: 'Complete' };
  const members = etcd ? `${etcd.healthyVoters} of ${cluster.size}` : `0 of ${cluster.size}`;
  return wait('Growing', `the restored cluster grows: ${members} members ready`, RESTORE_REQUEUE.growing);
}

/** Step 7, after `Completed` was recorded: release the lock, then retained PVCs per policy. */
function afterCompletion(input: RestorePlanInput): RestoreAction {
  const { restore, cluster } = input;
  if (cluster?.lock && cluster.lock.uid === restore.uid) return { kind: 'ReleaseLock' };
  if (cluster?.whenScaled === 'Delete') {
    const retained = input.pvcs.find((pvc) => pvc.retainedBy === restore.name && !pvc.terminating);
    if (retained) return { kind: 'DeleteRetainedPVC', pvc: retained.name };
  }
  return { kind: 'Done' };
}

/**
 * A lock whose EtcdRestore was deleted (docs/design/restore.md, "Failure after the point of no return"): the old
 * members cannot be resurrected, so the lock is released and the user is told where the old data is. First each
 * PVC the deleted restore retained gets the annotation `etcd.gitops.dev/abandoned-by-restore` (the membership
 * status reports `Degraded` while one exists), then the lock goes; a crash in between redoes the marking.
 */
export function planOrphanedLock(lock: RestoreLock, pvcs: readonly MemberPvcView[]): RestoreAction {
  const retained = pvcs.filter((pvc) => pvc.retainedBy === lock.name && !pvc.terminating);
  const unmarked = retained.find((pvc) => pvc.abandonedBy !== lock.name);
  if (unmarked) return { kind: 'MarkAbandonedPVC', pvc: unmarked.name, holder: lock.name };
  return {
    kind: 'ReleaseOrphanedLock',
    holder: lock.name,
    phase: lock.phase,
    retained: retained.map((pvc) => pvc.name).sort(),
  };
}
