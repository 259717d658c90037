// Step 2 of the membership planner, the restore branch (docs/design/membership.md, "The restore branch"): while an
// in-place restore holds the cluster (`status.restore`), this reconciler, the only writer of the cluster's member
// Pods and PVCs, stops the old members, seeds from the lock's source, and after the restore deletes or marks the
// PVCs it retained. The EtcdRestore reconciler only takes and hands back the lock (docs/design/restore.md). Pure.
import {
  isSeed,
  oldPods,
  oldPvcs,
  RESTORE_REASONS,
  type RestoreLock,
  seedFailureStalls,
  stallWhen,
  survivorOf,
} from '../restore/facts.js';
import { nextMemberName } from './plan-facts.js';
import { CLUSTER_REASONS } from './reasons.js';
import type { RestoreLockAction } from './restore-types.js';
import type { Action, PlanInput, PodView, PvcView } from './types.js';

/** Requeue delays of the branch's waits, in milliseconds. */
const REQUEUE = { soon: 1_000, starting: 2_000, failing: 5_000 } as const;

const wait = (
  reason: string,
  message: string,
  requeueAfterMs: number,
  degraded = false,
): Extract<Action, { kind: 'Wait' }> => ({
  kind: 'Wait',
  reason,
  message,
  requeueAfterMs,
  ...(degraded ? { degraded: true as const } : {}),
});

/**
 * The next action of the restore branch, or `undefined` when there is no lock or its phase is `Growing` (steps 3-16
 * then run as usual). First match wins:
 *  Restoring:  2.1 no token or source in the lock → Wait;  2.2 an old PVC → RetainPVC;  2.3 an old Pod → DeletePod
 *              (terminating and not lost → Wait; a survivor's Pod is kept);  2.4 no seed Pod → CreatePod on the seed
 *              PVC, else CreatePVC (ephemeral: CreatePod);  2.5 seed Ready → DeletePod of the survivor's Pod (a
 *              survivor restore), then ReleaseToPlanner;  2.6 its restore fails, or it is lost →
 *              Wait (Degraded);  2.7 Wait.
 *  Completed:  2.8 whenScaled Delete → DeleteRetainedPVC, one by one;  2.9 ClearRestoreLock.
 *  Abandoned:  2.10 MarkAbandonedPVC, one by one;  2.11 ClearRestoreLock (Warning Event).
 * "Old" is every PVC and Pod of the cluster whose token is not the lock's; retained PVCs are nobody's.
 */
export function planRestoreLock(input: PlanInput): Action | undefined {
  const lock = input.cluster.restore;
  switch (lock?.phase) {
    case 'Restoring':
      return stopAndSeed(input, lock);
    case 'Completed':
      return afterCompletion(input, lock);
    case 'Abandoned':
      return afterAbandonment(input, lock);
    default:
      return undefined;
  }
}

/** The PVCs the lock's restore retained, not being deleted, by name. */
function retainedBy(input: PlanInput, lock: RestoreLock): PvcView[] {
  return input.pvcs
    .filter((pvc) => pvc.retainedBy === lock.name && !pvc.terminating)
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** Steps 2.1-2.7. */
function stopAndSeed(input: PlanInput, lock: RestoreLock): Action {
  const { token, source } = lock;
  if (!token || !source) {
    return wait(
      RESTORE_REASONS.sourceMissing,
      `EtcdRestore ${lock.name} has not recorded its token and source in status.restore yet; nothing is changed until it has`,
      REQUEUE.soon,
    );
  }
  // A survivor (source.member) runs until the seed has copied it and serves: it is the source, then an old member.
  const survivor = survivorOf(lock);
  const stopping = stopOldMembers(input, lock);
  if (stopping) return stopping;
  const seedPod = input.pods.find((pod) => isSeed(pod, lock));
  if (!seedPod) return createSeed(input, lock, token);
  if (seedPod.ready) return stopSurvivor(input, lock, survivor) ?? releaseToPlanner(seedPod, lock);
  if (seedPod.restoreFailure) {
    return {
      ...wait(
        RESTORE_REASONS.seedRestoreFailing,
        `the seed ${seedPod.name} could not restore the backup of EtcdRestore ${lock.name}: ${seedPod.restoreFailure}; it is retried, the old data stays on the retained PVCs`,
        REQUEUE.failing,
        true,
      ),
      ...stallWhen(seedFailureStalls({ transient: seedPod.restoreFailureTransient === true })),
    };
  }
  if (seedPod.lost !== undefined) {
    return {
      ...wait(
        RESTORE_REASONS.seedLost,
        `the seed ${seedPod.name} of EtcdRestore ${lock.name} is lost (${seedPod.lost}); to seed again (on a node that is up), delete its PVC, then its Pod (with --force when its node is gone): the Pod first would have it made again on the same PVC; the old data stays on the retained PVCs`,
        REQUEUE.failing,
        true,
      ),
      ...stallWhen(true),
    };
  }
  return wait(
    RESTORE_REASONS.seedStarting,
    `waiting for the seed ${seedPod.name} to restore and start`,
    REQUEUE.starting,
  );
}

function releaseToPlanner(seedPod: PodView, lock: RestoreLock): Action {
  return { kind: 'ReleaseToPlanner', member: seedPod.member, restore: lock.name };
}

/** Step 2.5 of a survivor restore: the seed serves, so the survivor's Pod is stopped (its PVC stays retained). */
function stopSurvivor(input: PlanInput, lock: RestoreLock, survivor: string | undefined): Action | undefined {
  const pod = survivor ? input.pods.find((p) => p.member === survivor && !isSeed(p, lock)) : undefined;
  if (!pod) return undefined;
  if (!pod.terminating) return { kind: 'DeletePod', member: pod.member, pod: pod.name };
  if (pod.lost !== undefined) return undefined;
  return wait(
    RESTORE_REASONS.stoppingMembers,
    `waiting for the survivor's Pod ${pod.name} to stop`,
    REQUEUE.soon,
  );
}

/** Steps 2.2-2.3: every old PVC retained first, then every old Pod stopped (but the survivor's). */
function stopOldMembers(input: PlanInput, lock: RestoreLock): Action | undefined {
  const old = oldPvcs(input.pvcs, lock)[0];
  if (old) return { kind: 'RetainPVC', member: old.member, pvc: old.name, restore: lock.name };
  const pods = oldPods(input.pods, lock);
  const running = pods.find((pod) => !pod.terminating);
  if (running) return { kind: 'DeletePod', member: running.member, pod: running.name };
  // A lost Pod (its node died: docs/design/membership.md, "Lost members") may stay Terminating until the node comes
  // back; its data is on a retained PVC and its name stays taken, so it does not hold the restore up.
  const stopping = pods.find((pod) => pod.lost === undefined);
  if (!stopping) return undefined;
  return wait(
    RESTORE_REASONS.stoppingMembers,
    `waiting for old member Pod ${stopping.name} to stop`,
    REQUEUE.soon,
  );
}

/** Step 2.4: the seed PVC (the lock's token) under a name never used before, then the seed Pod on it. */
function createSeed(input: PlanInput, lock: RestoreLock, token: string): Action {
  const seedPvc = input.pvcs.find((pvc) => !pvc.retained && isSeed(pvc, lock));
  const ephemeral = input.cluster.storage.ephemeral;
  if (seedPvc?.terminating)
    return wait(CLUSTER_REASONS.pvcTerminating, `PVC ${seedPvc.name} is terminating`, REQUEUE.soon);
  if (!seedPvc && !ephemeral) {
    return { kind: 'CreatePVC', member: nextMemberName(input, input.cluster.knownMembers), token };
  }
  const member = seedPvc?.member ?? nextMemberName(input, input.cluster.knownMembers);
  return { kind: 'CreatePod', member, reason: 'seed', state: 'new', initialCluster: [member], token };
}

/** Steps 2.8-2.9: the restore completed; its retained PVCs follow whenScaled, then the lock goes. */
function afterCompletion(input: PlanInput, lock: RestoreLock): RestoreLockAction {
  const retained = retainedBy(input, lock);
  const doomed = input.cluster.whenScaled === 'Delete' ? retained[0] : undefined;
  if (doomed) return { kind: 'DeleteRetainedPVC', pvc: doomed.name, restore: lock.name };
  return clear(lock, 'Completed', retained);
}

/** Steps 2.10-2.11: the restore was deleted before it completed; its retained PVCs are marked, then the lock goes. */
function afterAbandonment(input: PlanInput, lock: RestoreLock): RestoreLockAction {
  const retained = retainedBy(input, lock);
  const unmarked = retained.find((pvc) => pvc.abandonedBy !== lock.name);
  if (unmarked) return { kind: 'MarkAbandonedPVC', pvc: unmarked.name, restore: lock.name };
  return clear(lock, 'Abandoned', retained);
}

function clear(lock: RestoreLock, outcome: 'Completed' | 'Abandoned', retained: readonly PvcView[]) {
  return {
    kind: 'ClearRestoreLock' as const,
    restore: lock.name,
    outcome,
    retained: retained.map((pvc) => pvc.name),
  };
}

/** What a restore branch action does, for the status message. */
export function describeRestoreStep(action: RestoreLockAction): string {
  switch (action.kind) {
    case 'RetainPVC':
      return `retaining PVC ${action.pvc} of old member ${action.member} for EtcdRestore ${action.restore}`;
    case 'ReleaseToPlanner':
      return `the seed ${action.member} of EtcdRestore ${action.restore} serves; the cluster grows from it`;
    case 'DeleteRetainedPVC':
      return `deleting PVC ${action.pvc} retained by the completed EtcdRestore ${action.restore} (whenScaled: Delete)`;
    case 'MarkAbandonedPVC':
      return `marking PVC ${action.pvc} abandoned by the deleted EtcdRestore ${action.restore}`;
    case 'ClearRestoreLock':
      return `releasing the cluster from EtcdRestore ${action.restore} (${action.outcome})`;
  }
}
