// The EtcdRestore decision: one observed snapshot in, exactly one action out. Pure; docs/design/restore.md. It never
// plans a Pod or PVC write: those are the membership planner's (controller/etcdcluster/plan-restore.ts), which acts
// on the lock this planner takes; here, after the lock, the restore only reports what it sees.
import { isSeed, oldPods, oldPvcs, RESTORE_REASONS, seedFailureStalls, stallWhen } from '../restore/facts.js';
import { chooseSurvivor } from './survivor.js';
import type {
  RestoreAction,
  RestoreLock,
  RestorePlanInput,
  RestoreSource,
  RestoreView,
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
 *  0. `Completed`: hand our lock back if it still says Growing (ReleaseLock: phase Completed) → Done;
 *     `Failed` → Done.
 *  1. the lock is ours (`status.restore.uid`): Restoring → report the membership planner's progress (a lock
 *     without token or source is completed first: TakeLock again with the same token); Growing → Complete once
 *     the cluster is Ready at its declared size. The lock is held by a restore that no longer exists → AbandonLock
 *     (`planOrphanedLock`);
 *  2. before the lock (Pending, Verifying, Restoring without lock), refuse when the cluster is missing, being
 *     deleted or paused, the source or Secret is unusable, or the cluster has quorum without
 *     `allowHealthyCluster`; wait while another restore holds the lock;
 *  3. Pending → StartVerifying; Verifying → Verify (the executor downloads and checks, then records
 *     `backupKey` and moves to Restoring, or fails); Restoring → TakeLock with a fresh token and the verified
 *     source.
 */
export function planRestore(input: RestorePlanInput): RestoreAction {
  const { restore, cluster } = input;
  if (restore.phase === 'Failed') return { kind: 'Done' };
  const lock = cluster?.lock;
  const ours = lock !== undefined && lock.uid === restore.uid;
  if (restore.phase === 'Completed')
    return ours && lock.phase === 'Growing' ? { kind: 'ReleaseLock' } : { kind: 'Done' };
  if (cluster && ours) return whileLocked(input, cluster, lock);
  if (lock && input.lockHolderGone) return planOrphanedLock(lock) ?? waitFor(lock, restore);
  const refusal = refuse(input);
  if (refusal) return refusal;
  if (lock) return waitFor(lock, restore);
  if (restore.phase === 'Pending') return { kind: 'StartVerifying' };
  const source = restore.phase === 'Verifying' ? undefined : lockSource(restore);
  if (!source) return verify(input);
  return { kind: 'TakeLock', token: freshToken(input), source };
}

/** The cluster token of the restored cluster: `<cluster>-<restore uid prefix>-<random>`. */
function freshToken({ restore, nonce }: RestorePlanInput): string {
  return `${restore.clusterName}-${restore.uid.slice(0, 8)}-${nonce}`;
}

/** Verifying: download and check the backup (executor), or choose the survivor from the members' answers. */
function verify(input: RestorePlanInput): RestoreAction {
  if (!input.restore.survivor) return { kind: 'Verify' };
  const withData = [...input.pods, ...input.pvcs].map((o) => o.member);
  return chooseSurvivor(input.restore, input.survivors ?? [], input.clusterVersion, withData);
}

/** What the seed starts from, once verified: `spec.backup` with the verified exact key (never the prefix), or the
 *  chosen survivor; `undefined` before. */
function lockSource(restore: RestoreView): RestoreSource | undefined {
  if (restore.survivor) return restore.sourceMember ? { member: { ...restore.sourceMember } } : undefined;
  if (!restore.backup || !restore.backupKey) return undefined;
  const { latestUnderPrefix: _prefix, ...location } = restore.backup;
  return { backup: { ...location, key: restore.backupKey } };
}

function waitFor(lock: RestoreLock, restore: RestoreView): RestoreAction {
  return wait(
    RESTORE_REASONS.waitingForRestore,
    `EtcdRestore ${lock.name} is restoring cluster ${restore.clusterName}; this restore waits for it`,
    RESTORE_REQUEUE.waiting,
  );
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

/** Steps 4-7 while the lock is ours: the membership planner acts, this restore reports and completes. */
function whileLocked(input: RestorePlanInput, cluster: TargetView, lock: RestoreLock): RestoreAction {
  const { restore } = input;
  if (lock.phase === 'Growing') return grow(input, cluster);
  // The lock says Completed only after Complete was recorded: a lost status write, recorded again.
  if (lock.phase === 'Completed') return { kind: 'Complete' };
  if (lock.phase === 'Abandoned') return waitFor(lock, restore);
  if (!lock.token || !lock.source) {
    // A lock taken by a controller before issue 12: the membership planner waits for its token and source.
    const source = lockSource(restore);
    if (!source) return verify(input);
    return { kind: 'TakeLock', token: lock.token ?? freshToken(input), source };
  }
  if (cluster.paused) {
    return wait(
      RESTORE_REASONS.clusterPaused,
      `EtcdCluster ${cluster.name} was paused (spec.paused: true) during the restore; it continues once unpaused`,
      RESTORE_REQUEUE.waiting,
      true,
    );
  }
  return restoringProgress(input, lock);
}

/** What the membership planner is doing for this restore (steps 4-6), read from the cluster's Pods and PVCs. */
export function restoringProgress(input: RestorePlanInput, lock: RestoreLock): RestoreAction {
  const seed = input.pods.find((pod) => isSeed(pod, lock));
  const from = describeSource(lock.source);
  if (seed?.initFailure) {
    return {
      kind: 'Wait',
      reason: RESTORE_REASONS.seedRestoreFailing,
      message: `the seed ${seed.name} could not restore ${from} and retries: ${seed.initFailure}; the old data stays on the retained PVCs`,
      requeueAfterMs: RESTORE_REQUEUE.waiting,
      degraded: true,
      // A reason only the user clears (BackupNotFound, ChecksumMismatch...) fails the same way on every retry.
      ...stallWhen(seedFailureStalls({ transient: seed.initFailureTransient === true })),
    };
  }
  if (seed?.ready) {
    return wait(
      RESTORE_REASONS.seedReady,
      `the seed ${seed.name} serves the restored data; the membership controller hands it the cluster`,
      RESTORE_REQUEUE.soon,
    );
  }
  if (seed) {
    return wait(
      RESTORE_REASONS.seedStarting,
      `waiting for the seed ${seed.name} to restore ${from} and start`,
      RESTORE_REQUEUE.starting,
    );
  }
  // A survivor's Pod runs until the seed serves: it is the source, not a member to stop (oldPods).
  const pvcs = oldPvcs(input.pvcs, lock);
  const pods = oldPods(input.pods, lock);
  if (pvcs.length > 0 || pods.length > 0) {
    return wait(
      RESTORE_REASONS.stoppingMembers,
      `the membership controller retains ${pvcs.length} old PVC(s) and stops ${pods.length} old member Pod(s)`,
      RESTORE_REQUEUE.soon,
    );
  }
  return wait(
    RESTORE_REASONS.seeding,
    `the membership controller creates the seed that restores ${from}`,
    RESTORE_REQUEUE.soon,
  );
}

/** Step 7: the membership planner grows the cluster; complete once it is Ready at its declared size. */
function grow(input: RestorePlanInput, cluster: TargetView): RestoreAction {
  const etcd = input.etcd;
  const ready =
    etcd?.quorum === true &&
    etcd.learners === 0 &&
    etcd.members === cluster.size &&
    etcd.healthyVoters === cluster.size;
  if (ready) return { kind: 'Complete' };
  const members = etcd ? `${etcd.healthyVoters} of ${cluster.size}` : `0 of ${cluster.size}`;
  return wait(
    RESTORE_REASONS.growing,
    `the restored cluster grows: ${members} members ready`,
    RESTORE_REQUEUE.growing,
  );
}

/**
 * A lock whose EtcdRestore no longer exists (deleted, or deleted and created again under the same name): its phase
 * becomes `Abandoned`, and the membership planner marks the PVCs it retained and releases the cluster
 * (docs/design/restore.md, "Failure after the point of no return"). A lock already handed back (`Completed`) or
 * abandoned is the membership planner's to clear: `undefined`.
 */
export function planOrphanedLock(lock: RestoreLock): RestoreAction | undefined {
  if (lock.phase !== 'Restoring' && lock.phase !== 'Growing') return undefined;
  return { kind: 'AbandonLock', holder: lock.name, phase: lock.phase };
}

/** The lock's source in words: `s3://bucket/key` or `member main-2`. */
export function describeSource(source: RestoreSource | undefined): string {
  if (source?.member) return `member ${source.member.name}`;
  return `s3://${source?.backup?.bucket}/${source?.backup?.key}`;
}
