// The membership decision: one observed snapshot in, exactly one action out. Pure; see docs/design/membership.md.

import { CLIENT_PORT, clientServiceName, peerServiceName } from '../../constructs/conventions/index.js';
import { seedFailureStalls, stallWhen } from '../restore/facts.js';
import {
  canRemove,
  canStop,
  DOOMED_DETAIL,
  indexOf,
  isDoomed,
  isMarked,
  isOutOfDate,
  isStarting,
  newClusterToken,
  nextMemberName,
  ourMembers,
  ourPvcs,
  podOf,
  pvcOf,
  quorumOf,
  scaleInVictim,
  stoppingMembers,
  targetSize,
} from './plan-facts.js';
import { planRestoreLock } from './plan-restore.js';
import { CLUSTER_REASONS } from './reasons.js';
import { checkSpec } from './spec-checks.js';
import { checkTls } from './tls-checks.js';
import type {
  Action,
  CreatePodAction,
  CreatePvcAction,
  EtcdMemberView,
  EtcdView,
  JoinWrites,
  PlanInput,
  PodView,
  PvcView,
  RemoveReason,
} from './types.js';

/**
 * Requeue delays, in milliseconds. `now` follows a membership change etcd accepted: no Kubernetes event will wake
 * the controller for the next step (a Pod or PVC write does), and the member list read next is the leader's, which
 * already holds the change. `soon` is for a step in flight that has nothing to watch. `learner` is the look at a
 * learner whose Pod runs and whose etcd does not answer yet: it answers within about a second of its start, and
 * each look sooner is one sooner promotion (docs/design/membership.md, step 11). `busy` is the retry of a
 * membership change etcd refused for now (strict reconfiguration for a few seconds after the last change, a
 * learner not caught up, no leader): nothing tells when it clears, and each retry costs etcd one call, where 1 s
 * lost up to a second on every refusal against a script that retries every 100 ms (docs/design/membership.md,
 * "A change etcd refuses for now").
 */
export const REQUEUE = {
  now: 0,
  learner: 250,
  busy: 250,
  soon: 1_000,
  starting: 2_000,
  quorum: 5_000,
  steady: 30_000,
  /**
   * After a write the API server refused (`WriteRefused`): what clears it (a quota, a policy, a ServiceAccount) wakes
   * no watch of ours.
   */
  refused: 10_000,
} as const;

/**
 * The requeue of a wait on etcd itself once the member's process runs (an election, a member catching up): no
 * Kubernetes event follows it, so the next look comes `whenRunning` (`soon` unless told). Before the process runs (or while its node is not
 * Ready), the Pod's own status changes wake the controller and `starting` is only the fallback.
 */
const untilEtcd = (pod: PodView | undefined, whenRunning: number = REQUEUE.soon): number =>
  pod?.running && !pod.nodeNotReady ? whenRunning : REQUEUE.starting;

const wait = (
  reason: string,
  message: string,
  requeueAfterMs: number,
): Extract<Action, { kind: 'Wait' }> => ({
  kind: 'Wait',
  reason,
  message,
  requeueAfterMs,
});

/**
 * Decides the one next membership action of a cluster. First match wins (docs/design/membership.md):
 *  1. cluster being deleted → Wait;  2. paused → Paused; an in-place restore's lock (`status.restore`) in phase
 *     Restoring, Completed or Abandoned → its steps 2.1-2.11 (plan-restore.ts);  3. refused spec → Refuse; then
 *     the peer or client Service missing 30 s after the cluster's creation → Wait ServiceMissing (Degraded);
 *  4. a member Pod terminating, not lost (docs/design/membership.md, "Lost members") and not deleted with its PVC
 *     ("Dead members") → Wait, or ReportQuorumLost (and nothing else) when quorum is lost as in 7;
 *  5. no member answers → seed a new cluster (docs/design/bootstrap.md: its whole initial membership, or a lone
 *     seed when ephemeral or restoring spec.bootstrap.backup; CreatePVCs, then CreatePods `new`), recreate
 *     a known member's Pod, wait for the seed members (Degraded `BootstrapRestoreFailed` while a seed's `restore
 *     fetch` fails), Degraded `MembersUnreachable` when
 *     every member Pod has long been Ready (the kubelets reach etcd, the controller does not: a NetworkPolicy or
 *     firewall between them), or ReportQuorumLost;
 *  6. a member in etcd without Pod: PVC → CreatePod; never started → CreatePVC (resume of an add);
 *  7. quorum lost → ReportQuorumLost (a majority healthy without the leader's member list: Wait LeaderChanging;
 *     a new cluster's initial members answering before their first election: Wait MembersStarting);
 *  8. a healthy started voter whose Pod still says `new` (a seed that has served) → MarkExisting;
 *  9. Pod without member, not yet terminating → DeletePod; PVC without member or Pod and whenScaled Delete → DeletePVC;
 *     a NOSPACE alarm of a member id not in the member list → DisarmAlarm;
 * 10. dead member (a lost Pod and no answer: reason `lost`; its Pod and PVC both terminating, answering or not), or a
 *     marked (`etcd.gitops.dev/evict`) one not healthy → RemoveMember if quorum survives it, counting every other
 *     member whose Pod or PVC terminates as stopped.
 *     A crash-looping member on a revision no healthy member runs is not dead (its spec is the likely cause):
 *     on the current revision → Wait `RollingUpdateFailed` (Degraded); on an older one → RollMember (delete);
 * 11. learner: more members than the target (size, +1 while a healthy marked voter waits to be replaced) →
 *     RemoveMember (undo); Pod running → PromoteLearner; else Wait;
 * 12. a. more members than size → MoveLeader off / RemoveMember the marked member, else one not healthy, else the
 *        highest index;  b. a member not healthy → Wait;
 * 13. fewer members than the target → AddLearner, with the joiner's PVC and Pod made in the same pass;
 * 14. (scale-in is 12a);
 * 15. roll (docs/design/rolling-update.md): members whose Pod is not at the spec's revision, once every Pod is
 *     Ready and every member caught up: followers by index, then the leader after MoveLeader; each only if
 *     stopping it keeps quorum → RollMember (evict); ephemeral members by RemoveMember (roll) and a new member;
 * 16. Steady.
 * Steps 5 and 7 also delete an out-of-date, crash-looping, PVC-backed Pod (RollMember without evict): its spec,
 * not its data, may be why no quorum is left.
 */
export function planMembership(input: PlanInput): Action {
  const { cluster } = input;
  if (cluster.deleting)
    return wait(CLUSTER_REASONS.clusterDeleting, 'the cluster is being deleted', REQUEUE.steady);
  if (cluster.paused) return { kind: 'Paused' };
  const restoring = planRestoreLock(input);
  if (restoring) return restoring;
  const refusal = checkSpec(cluster, input.pods, input.pvcs) ?? checkTls(input);
  if (refusal) return refusal;
  if (input.missingServices?.length) return serviceMissing(cluster.name, input.missingServices);
  // A lost Pod (its node died, or it is stuck) may never finish terminating: it does not block (see "Lost members").
  // Nor does a Pod deleted with its PVC: its member is dead already (step 10, "Dead members").
  // Waiting is no reason to hide a quorum loss: the status says it while the Pod terminates (nothing is done).
  const terminating = input.pods.find((pod) => pod.terminating && !pod.lost && !isDoomed(input, pod));
  if (terminating) {
    const lost = input.etcd && reportQuorumLoss(input, input.etcd, terminating);
    if (lost?.kind === 'ReportQuorumLost') return lost;
    return wait(
      CLUSTER_REASONS.podTerminating,
      `member Pod ${terminating.name} is terminating`,
      REQUEUE.soon,
    );
  }
  const etcd = input.etcd;
  if (!etcd) return planWithoutEtcd(input);
  return (
    resumeAdd(input, etcd) ??
    reportQuorumLoss(input, etcd) ??
    markSeedExisting(input, etcd) ??
    cleanUpRemoved(input, etcd) ??
    replaceDead(input, etcd) ??
    handleLearner(input, etcd) ??
    scaleIn(input, etcd) ??
    waitForHealth(input, etcd) ??
    scaleUp(input, etcd) ??
    roll(input, etcd) ?? { kind: 'Steady' }
  );
}

/** Step 3, then: the cluster's Services are missing past the bound; nothing else is done. */
function serviceMissing(cluster: string, services: readonly string[]): Action {
  const which =
    services.length === 1 ? `Service ${services[0]} is` : `Services ${services.join(' and ')} are`;
  return {
    kind: 'Wait',
    reason: CLUSTER_REASONS.serviceMissing,
    message:
      `${which} missing: members find each other through ${peerServiceName(cluster)} (headless, publishing ` +
      `not-ready addresses) and clients reach them through ${clientServiceName(cluster)}. The EtcdCluster construct ` +
      'synthesizes both beside the EtcdCluster (dist/ holds them): apply them; nothing else is done until they exist',
    requeueAfterMs: REQUEUE.quorum,
    degraded: true,
    ...stallWhen(true),
  };
}

/** Step 5: no member answered. */
function planWithoutEtcd(input: PlanInput): Action {
  const { cluster } = input;
  const known = [...cluster.knownMembers].sort((a, b) => indexOf(cluster.name, a) - indexOf(cluster.name, b));
  if (known.length === 0) {
    const failed = input.pods.find((pod) => pod.restoreFailure);
    if (failed) return bootstrapRestoreFailed(failed);
    return seed(input) ?? unreachable(input.pods) ?? seedStarting(input);
  }
  const recoverable = known.find((member) => !podOf(input, member) && pvcOf(input, member));
  if (recoverable) {
    return {
      kind: 'CreatePod',
      member: recoverable,
      reason: 'recreate',
      state: 'existing',
      initialCluster: known,
    };
  }
  if (input.pods.some(isStarting)) {
    return wait(CLUSTER_REASONS.membersStarting, 'waiting for member Pods to start', REQUEUE.starting);
  }
  return (
    rollBrokenPod(input) ??
    (known.every((member) => podOf(input, member)) ? unreachable(input.pods) : undefined) ?? {
      kind: 'ReportQuorumLost',
      message: `no member of ${known.length} answers`,
    }
  );
}

/**
 * Step 5.6: every member Pod has long been Ready, so the kubelets' probes (made from each member's node) find etcd
 * healthy, yet none answers the controller: the path between them is cut. Not a quorum loss.
 */
function unreachable(pods: readonly PodView[]): Action | undefined {
  if (pods.length === 0 || !pods.every((pod) => pod.readySettled)) return undefined;
  return {
    kind: 'Wait',
    reason: CLUSTER_REASONS.membersUnreachable,
    message:
      `${pods.length} member Pod${pods.length === 1 ? ' is' : 's are'} Ready (the kubelet's health checks pass) ` +
      `but none answers the controller on client port ${CLIENT_PORT}: a NetworkPolicy that does not admit the ` +
      `controller's Pods (the cluster's own policy admits them by namespace and labels), a firewall or DNS stands ` +
      'between them',
    requeueAfterMs: REQUEUE.quorum,
    degraded: true,
    ...stallWhen(true),
  };
}

/** Step 5.4: the seed's `restore fetch` failed; the kubelet retries it, nothing else is done (Degraded). */
function bootstrapRestoreFailed(pod: PodView): Action {
  return {
    kind: 'Wait',
    reason: CLUSTER_REASONS.bootstrapRestoreFailed,
    message: `the seed ${pod.name} could not restore spec.bootstrap.backup: ${pod.restoreFailure}; it is retried, the seed's PVC is kept`,
    requeueAfterMs: REQUEUE.quorum,
    degraded: true,
    ...stallWhen(seedFailureStalls({ transient: pod.restoreFailureTransient === true })),
  };
}

/**
 * Steps 5.1-5.3 (docs/design/bootstrap.md): a new cluster's initial membership is chosen once, with a fresh token,
 * and recorded on its seed PVCs, all made in one pass (`CreatePVCs`; `CreatePVC` for a lone seed or when one is
 * left); then every initial member without a Pod gets its Pod with `new`: in the same pass once every PVC of
 * `CreatePVCs` is made (its `pods`), else all in one later pass (`CreatePods`; `CreatePod` when one is left). Once
 * recorded, the membership and token are read from the PVCs, never chosen again. `undefined` once every initial
 * member has its Pod.
 */
function seed(input: PlanInput): Action | undefined {
  const recorded = seedPvcs(input)[0];
  if (!recorded?.token) {
    if (input.pods.length > 0) return undefined; // an ephemeral seed: its record is its Pod
    const members = initialMembership(input);
    const token = newClusterToken(input);
    if (input.cluster.storage.ephemeral) return seedPod(members[0] as string, members, token);
    if (members.length === 1) return { kind: 'CreatePVC', member: members[0] as string, token };
    return {
      kind: 'CreatePVCs',
      pvcs: members.map((member) => seedPvc(member, members, token)),
      pods: members.map((member) => seedPod(member, members, token)),
    };
  }
  const { token } = recorded;
  const members = recorded.initialCluster ?? [recorded.member];
  const made = new Set(ourPvcs(input).map((pvc) => pvc.member));
  const withoutPvc = members.filter((member) => !made.has(member));
  const terminating = withoutPvc.map((member) => pvcOf(input, member)).find((pvc) => pvc?.terminating);
  if (terminating)
    return wait(CLUSTER_REASONS.pvcTerminating, `PVC ${terminating.name} is terminating`, REQUEUE.soon);
  if (withoutPvc.length > 0)
    return together(
      withoutPvc.map((member) => seedPvc(member, members, token)),
      (pvcs) => ({
        kind: 'CreatePVCs',
        pvcs,
        pods: members
          .filter((member) => !podOf(input, member))
          .map((member) => seedPod(member, members, token)),
      }),
    );
  return together(
    members.filter((member) => !podOf(input, member)).map((member) => seedPod(member, members, token)),
    (pods) => ({ kind: 'CreatePods', pods }),
  );
}

/** One action alone, several as one batch (`CreatePVCs`, `CreatePods`), none as `undefined`. */
function together<T extends Action>(
  actions: readonly T[],
  batch: (all: readonly T[]) => Action,
): Action | undefined {
  return actions.length <= 1 ? actions[0] : batch(actions);
}

/**
 * The members a new cluster starts with: all `size` of them at once (a static bootstrap), or a lone seed when its
 * data is ephemeral (the record would live on Pods only) or it restores `spec.bootstrap.backup` (only one member can
 * carry restored data); the others then join as learners.
 */
function initialMembership(input: PlanInput): string[] {
  const { cluster } = input;
  const count = cluster.storage.ephemeral || cluster.bootstrapsFromBackup ? 1 : cluster.size;
  const members: string[] = [];
  while (members.length < count) members.push(nextMemberName(input, members));
  return members;
}

/** This incarnation's PVCs that record a seed (a cluster token), lowest index first. */
function seedPvcs(input: PlanInput): PvcView[] {
  return ourPvcs(input)
    .filter((pvc) => pvc.token !== undefined)
    .sort((a, b) => indexOf(input.cluster.name, a.member) - indexOf(input.cluster.name, b.member));
}

function seedPvc(member: string, initialCluster: readonly string[], token: string): CreatePvcAction {
  return { kind: 'CreatePVC', member, token, initialCluster };
}

function seedPod(member: string, initialCluster: readonly string[], token: string): CreatePodAction {
  return { kind: 'CreatePod', member, reason: 'seed', state: 'new', initialCluster, token };
}

/** Step 5.3: every initial member has its Pod; none answers yet. */
function seedStarting(input: PlanInput): Action {
  const recorded = seedPvcs(input)[0];
  const members = recorded?.initialCluster;
  if (!members) {
    const seedPod = recorded ? podOf(input, recorded.member) : input.pods[0];
    return wait(CLUSTER_REASONS.seedStarting, 'waiting for the seed member to answer', untilEtcd(seedPod));
  }
  const notRunning = members.filter((member) => !podOf(input, member)?.running);
  return wait(
    CLUSTER_REASONS.membersStarting,
    `waiting for a majority of the ${members.length} initial members to start and elect a leader` +
      (notRunning.length > 0 ? `; not running yet: ${notRunning.join(', ')}` : ''),
    notRunning.length === 0 ? REQUEUE.soon : REQUEUE.starting,
  );
}

function memberNames(input: PlanInput, etcd: EtcdView): string[] {
  return ourMembers(input, etcd).flatMap((member) => (member.member ? [member.member] : []));
}

/**
 * The writes that give a member in etcd its PVC and Pod (`existing`, `--initial-cluster` of `members`): steps 6.2
 * and 6.1 make one per pass, step 13 all of them in the pass of the `AddLearner` (membership.md, "A joiner in one
 * pass"). The one derivation of a joiner's PVC and Pod.
 */
function joinerWrites(
  input: PlanInput,
  member: string,
  reason: 'join' | 'recreate',
  members: readonly string[],
): JoinWrites {
  const pod: CreatePodAction = {
    kind: 'CreatePod',
    member,
    reason,
    state: 'existing',
    initialCluster: members,
  };
  return input.cluster.storage.ephemeral ? { pod } : { pvc: { kind: 'CreatePVC', member }, pod };
}

/** Step 6: a member in etcd without a Pod gets its PVC and Pod (the resume of an add, or a Pod that vanished). */
function resumeAdd(input: PlanInput, etcd: EtcdView): Action | undefined {
  const ephemeral = input.cluster.storage.ephemeral;
  for (const member of ourMembers(input, etcd)) {
    const name = member.member as string;
    if (podOf(input, name)) continue;
    const pvc = pvcOf(input, name);
    const reason = member.started ? 'recreate' : 'join';
    if (member.started && (ephemeral || !pvc || pvc.terminating)) continue; // data gone: dead, step 10
    const writes = joinerWrites(input, name, reason, memberNames(input, etcd));
    if (ephemeral || (pvc && !pvc.terminating)) return writes.pod;
    if (pvc?.terminating)
      return wait(CLUSTER_REASONS.pvcTerminating, `PVC ${pvc.name} is terminating`, REQUEUE.soon);
    return writes.pvc;
  }
  return undefined;
}

/**
 * Step 7. A leader change is not a loss. A majority of voters healthy (answering and naming one leader) without
 * quorum: the member list did not come from the leader they name, which has just gone (the followers have not
 * elected the next one yet) or did not answer. A status recording of a killed leader showed "2 of 3 voting members
 * are healthy" reported as quorum lost for a pass. Once the followers' election timeout passes they name no leader
 * at all while they elect: see `electing`.
 */
function reportQuorumLoss(input: PlanInput, etcd: EtcdView, terminating?: PodView): Action | undefined {
  if (etcd.quorum) return undefined;
  if (input.pods.some(isStarting))
    return wait(CLUSTER_REASONS.membersStarting, 'waiting for member Pods to start', REQUEUE.starting);
  const voters = etcd.members.filter((member) => !member.learner);
  const healthy = voters.filter((member) => member.healthy).length;
  if (healthy >= quorumOf(voters.length)) {
    return wait(
      CLUSTER_REASONS.leaderChanging,
      `${healthy} of ${voters.length} voting members are healthy, but the leader they name did not answer; waiting for the next leader`,
      REQUEUE.soon,
    );
  }
  const election = electing(input, voters);
  if (healthy + election.length >= quorumOf(voters.length)) {
    return wait(
      CLUSTER_REASONS.leaderChanging,
      `${election.join(', ')} answer${election.length === 1 ? 's' : ''} without a leader while ${election.length === 1 ? 'its Pod is' : 'their Pods are'} still Ready: ` +
        `an election is under way (${healthy + election.length} of ${voters.length} voting members answer); waiting for the next leader`,
      REQUEUE.soon,
    );
  }
  if (forming(input, etcd)) return seedStarting(input);
  const message = `${healthy} of ${voters.length} voting members are healthy`;
  // Step 4: while a Pod terminates nothing is rolled; the loss is only reported.
  if (terminating)
    return { kind: 'ReportQuorumLost', message: `${message}; member Pod ${terminating.name} is terminating` };
  return rollBrokenPod(input) ?? { kind: 'ReportQuorumLost', message };
}

/**
 * Step 7: the voters that answer as themselves but name no leader, while their Pods are still Ready. Raft clears a
 * follower's leader when its election timeout passes without one (pre-vote), so right after a leader dies its
 * followers answer like this until they elect the next; a CI run saw a pass there report quorum lost after the
 * seed, which led, lost its data. The Pods bound how long this is called an election: the readiness check
 * (`memberProbes`: `/readyz`, or `/health?exclude=NOSPACE` before 3.6) needs a leader, so the kubelet turns a member that stays
 * without one NotReady within its failure budget (3 × 5 s), and from then on it counts as lost.
 */
function electing(input: PlanInput, voters: readonly EtcdMemberView[]): string[] {
  return voters
    .filter((member) => member.electing && member.member !== undefined && podOf(input, member.member)?.ready)
    .map((member) => member.member as string);
}

/**
 * Step 7: the initial members of a new cluster run and answer but have not elected their first leader yet. Every
 * voter's Pod still says `new` (step 8 marks a seed `existing` the first pass it is seen healthy), none crash-loops
 * or is lost: a cluster that never formed has lost nothing. A CI run on a loaded machine saw all three seeds of a
 * static bootstrap answer a pass before they elected, and that pass reported quorum lost.
 */
function forming(input: PlanInput, etcd: EtcdView): boolean {
  const voters = ourMembers(input, etcd).filter((member) => !member.learner);
  return (
    voters.length > 0 &&
    voters.every((member) => {
      const pod = podOf(input, member.member as string);
      return pod?.initialState === 'new' && !pod.crashLooping && pod.lost === undefined;
    })
  );
}

/** Steps 5 and 7: an out-of-date Pod crash-looping on its PVC is deleted (data untouched) and recreated from the
 *  current spec; a bad flag in an older spec must not keep a cluster down once the spec is fixed. */
function rollBrokenPod(input: PlanInput): Action | undefined {
  if (input.cluster.storage.ephemeral) return undefined;
  const pod = input.pods.find(
    (candidate) => candidate.crashLooping && isOutOfDate(input, candidate) && pvcOf(input, candidate.member),
  );
  return pod ? rollAction(input, pod, false) : undefined;
}

function rollAction(input: PlanInput, pod: PodView, evict: boolean): Action {
  return {
    kind: 'RollMember',
    member: pod.member,
    pod: pod.name,
    ...(pod.revision ? { fromRevision: pod.revision } : {}),
    toRevision: input.cluster.revision,
    evict,
  };
}

/** Step 8: once the seed has served, a restart on lost data must fail rather than bootstrap an empty cluster
 *  with the same ids (docs/design/membership.md, "The member record"). */
function markSeedExisting(input: PlanInput, etcd: EtcdView): Action | undefined {
  for (const member of ourMembers(input, etcd)) {
    if (!member.healthy || !member.started || member.learner) continue;
    const pod = podOf(input, member.member as string);
    if (pod?.initialState === 'new') return { kind: 'MarkExisting', member: pod.member, pod: pod.name };
  }
  return undefined;
}

/** Step 9: the Pod, then the PVC, then a `NOSPACE` alarm, of a member that is no longer in etcd. */
function cleanUpRemoved(input: PlanInput, etcd: EtcdView): Action | undefined {
  const members = new Set(memberNames(input, etcd));
  const pod = input.pods.find((candidate) => !members.has(candidate.member) && !candidate.terminating);
  if (pod) return { kind: 'DeletePod', member: pod.member, pod: pod.name };
  const pvc =
    input.cluster.whenScaled === 'Delete'
      ? ourPvcs(input).find((candidate) => !members.has(candidate.member) && !podOf(input, candidate.member))
      : undefined;
  if (pvc) return { kind: 'DeletePVC', member: pvc.member, pvc: pvc.name };
  return goneMemberAlarm(etcd);
}

/**
 * Step 9.3 (docs/design/compaction-quota-defrag.md, "Alarms of removed members"): a `NOSPACE` alarm raised for a
 * member id the member list no longer holds. etcd keeps it after the member left, and refuses writes under it.
 */
function goneMemberAlarm(etcd: EtcdView): Action | undefined {
  if (!etcd.quorum) return undefined;
  const ids = new Set(etcd.members.map((member) => member.id));
  const stale = etcd.alarms?.find((alarm) => alarm.alarm === 'NOSPACE' && !ids.has(alarm.memberId));
  return stale ? { kind: 'DisarmAlarm', memberId: stale.memberId, alarm: 'NOSPACE' } : undefined;
}

function isDead(input: PlanInput, member: EtcdMemberView): boolean {
  if (member.wrongIdentity) return true;
  const name = member.member as string;
  const pod = podOf(input, name);
  if (pod) return isDoomed(input, pod) || ((pod.crashLooping || pod.lost !== undefined) && !member.healthy);
  const pvc = pvcOf(input, name);
  return member.started && (input.cluster.storage.ephemeral || !pvc || pvc.terminating);
}

/** A crash-looping Pod on a revision that no healthy member runs: the spec, not the data, is the likely cause. */
function failsOnItsRevision(input: PlanInput, etcd: EtcdView, member: EtcdMemberView): PodView | undefined {
  const pod = podOf(input, member.member as string);
  if (!pod?.crashLooping || member.wrongIdentity) return undefined;
  const runsIt = ourMembers(input, etcd).some(
    (other) => other.healthy && podOf(input, other.member as string)?.revision === pod.revision,
  );
  return runsIt ? undefined : pod;
}

/** Step 10: remove a dead member (or a marked one that is not healthy) from etcd first; its Pod and PVC follow in
 *  step 9, its replacement in 13. */
function replaceDead(input: PlanInput, etcd: EtcdView): Action | undefined {
  const dead = ourMembers(input, etcd).find(
    (member) => isDead(input, member) || (isMarked(input, member) && !member.healthy && !member.learner),
  );
  if (!dead) return undefined;
  const failed = failsOnItsRevision(input, etcd, dead);
  if (failed && !isOutOfDate(input, failed)) {
    return {
      ...wait(
        CLUSTER_REASONS.rollingUpdateFailed,
        `member ${failed.member} does not start on revision ${input.cluster.revision} (version ${input.cluster.version}): ${failed.lastFailure ?? 'etcd exits with an error'}; nothing else is rolled until the spec is fixed`,
        REQUEUE.quorum,
      ),
      degraded: true,
      ...stallWhen(true),
    };
  }
  if (failed) return rollAction(input, failed, false);
  const pod = podOf(input, dead.member as string);
  const lost = dead.wrongIdentity ? undefined : pod?.lost;
  const doomed = pod !== undefined && !dead.wrongIdentity && isDoomed(input, pod);
  const detail = lost ?? (doomed ? DOOMED_DETAIL : undefined);
  // The voters left must keep a quorum once every other member that is stopping or losing its data (its Pod or
  // PVC terminating) has stopped: a majority deleted together is a quorum loss, whatever order the passes saw the
  // deletions in, never a race between the removals and the Pods' ends.
  const stopping = stoppingMembers(input);
  const removal = removeKeepingQuorum(
    etcd,
    dead,
    lost ? 'lost' : 'dead',
    CLUSTER_REASONS.replacementWouldLoseQuorum,
    `removing ${lost ? 'lost' : 'dead'} member ${dead.member}${detail ? ` (${detail})` : ''}${alsoStopping(stopping, dead)}`,
    stopping,
  );
  return removal.kind === 'RemoveMember' && detail ? { ...removal, detail } : removal;
}

/** The other members stopping or losing their data, counted as stopped by a dead member's removal. */
function alsoStopping(stopping: ReadonlySet<string>, dead: EtcdMemberView): string {
  const others = [...stopping].filter((member) => member !== dead.member).sort();
  return others.length === 0 ? '' : `, counting ${others.join(', ')} as stopped,`;
}

/** `RemoveMember` (etcd first) if the healthy voters left are a quorum of the voters left, else `Wait` naming why. */
function removeKeepingQuorum(
  etcd: EtcdView,
  member: EtcdMemberView,
  reason: RemoveReason,
  waitReason: string,
  what: string,
  stopping?: ReadonlySet<string>,
): Action {
  if (!canRemove(etcd, member, stopping))
    return wait(waitReason, `${what} would lose quorum`, REQUEUE.quorum);
  return { kind: 'RemoveMember', member: member.member ?? member.id, id: member.id, reason };
}

/**
 * Step 11: at most one learner; promote it once its Pod runs and it answers as a healthy member (etcd refuses until
 * it caught up). A voter the controller cannot reach yet would count against quorum at once: promoting a learner
 * that does not answer made a 1 → 2 growth report quorum lost for a pass (test/e2e/cluster-scale.test.ts, status
 * recording).
 */
function handleLearner(input: PlanInput, etcd: EtcdView): Action | undefined {
  const learner = ourMembers(input, etcd).find((member) => member.learner);
  if (!learner) return undefined;
  const name = learner.member as string;
  if (etcd.members.length > targetSize(input, etcd)) {
    return { kind: 'RemoveMember', member: name, id: learner.id, reason: 'undo' };
  }
  const pod = podOf(input, name);
  if (pod?.running && learner.healthy) return { kind: 'PromoteLearner', member: name, id: learner.id };
  return wait(
    CLUSTER_REASONS.learnerStarting,
    `waiting for learner ${name} to start`,
    untilEtcd(pod, REQUEUE.learner),
  );
}

/** Step 12. */
function waitForHealth(input: PlanInput, etcd: EtcdView): Action | undefined {
  const unhealthy = ourMembers(input, etcd).find((member) => !member.healthy);
  if (!unhealthy) return undefined;
  const pod = podOf(input, unhealthy.member as string);
  const node = pod?.nodeNotReady;
  return wait(
    CLUSTER_REASONS.membersNotReady,
    `waiting for member ${unhealthy.member} to be healthy${node ? `: ${node}` : ''}`,
    untilEtcd(pod),
  );
}

/** Step 12a: one member less: the marked one, else one that is not healthy, else the highest index. */
function scaleIn(input: PlanInput, etcd: EtcdView): Action | undefined {
  if (etcd.members.length <= input.cluster.size) return undefined;
  const victim = scaleInVictim(input, etcd);
  if (!victim) return undefined;
  if (victim.id === etcd.leaderId) {
    const target = ourMembers(input, etcd).find(
      (member) => member.id !== victim.id && !member.learner && member.healthy,
    );
    if (!target)
      return wait(CLUSTER_REASONS.noLeaderTarget, 'no healthy voter to move leadership to', REQUEUE.quorum);
    return {
      kind: 'MoveLeader',
      fromId: victim.id,
      toId: target.id,
      toMember: target.member as string,
      purpose: 'scale-in',
    };
  }
  const reason = isMarked(input, victim) ? 'evict' : 'scale-in';
  return removeKeepingQuorum(
    etcd,
    victim,
    reason,
    CLUSTER_REASONS.removalWouldLoseQuorum,
    `removing ${victim.member ?? victim.id}`,
  );
}

/**
 * Step 13: one member more (a new name), up to `size`, or `size + 1` while a marked member waits to be replaced;
 * with its PVC and Pod as 6.2 and 6.1 would plan them once the learner is in etcd.
 */
function scaleUp(input: PlanInput, etcd: EtcdView): Action | undefined {
  if (etcd.members.length >= targetSize(input, etcd)) return undefined;
  const member = nextMemberName(input);
  // In index order, as memberNames gives them once the learner is in etcd (a new name may fill a gap).
  const members = [...memberNames(input, etcd), member].sort(
    (a, b) => indexOf(input.cluster.name, a) - indexOf(input.cluster.name, b),
  );
  return { kind: 'AddLearner', member, join: joinerWrites(input, member, 'join', members) };
}

/** Step 15: one member of a rolling change, only at rest (docs/design/rolling-update.md, "The decision"). */
function roll(input: PlanInput, etcd: EtcdView): Action | undefined {
  const members = ourMembers(input, etcd);
  const outdated = members.filter((member) => {
    const pod = podOf(input, member.member as string);
    return pod !== undefined && isOutOfDate(input, pod);
  });
  if (outdated.length === 0) return undefined;
  const notReady = members.find((member) => !podOf(input, member.member as string)?.ready);
  if (notReady)
    return wait(
      CLUSTER_REASONS.memberPodNotReady,
      `waiting for Pod ${notReady.member} to be Ready`,
      REQUEUE.starting,
    );
  const behind = members.find((member) => !member.caughtUp);
  if (behind)
    return wait(
      CLUSTER_REASONS.memberCatchingUp,
      `waiting for member ${behind.member} to catch up`,
      REQUEUE.soon,
    );
  const followers = outdated.filter((member) => member.id !== etcd.leaderId);
  const chosen = followers[0] ?? (outdated[0] as EtcdMemberView);
  const name = chosen.member as string;
  if (input.cluster.storage.ephemeral) return rollEphemeral(etcd, chosen);
  if (chosen.id === etcd.leaderId && members.length > 1) {
    const target = members.find(
      (member) =>
        member.id !== chosen.id &&
        !member.learner &&
        !isOutOfDate(input, podOf(input, member.member as string) as PodView),
    );
    if (!target)
      return wait(CLUSTER_REASONS.noLeaderTarget, 'no updated voter to move leadership to', REQUEUE.quorum);
    return {
      kind: 'MoveLeader',
      fromId: chosen.id,
      toId: target.id,
      toMember: target.member as string,
      purpose: 'roll',
    };
  }
  if (members.length > 1 && !canStop(etcd, chosen)) {
    const advice = members.length === 2 ? ' (a size-2 cluster cannot roll: scale to 3 first)' : '';
    return wait(
      CLUSTER_REASONS.rollWouldLoseQuorum,
      `restarting member ${name} would lose quorum${advice}`,
      REQUEUE.quorum,
    );
  }
  return rollAction(input, podOf(input, name) as PodView, true);
}

/** An ephemeral member loses its data with its Pod: it is rolled by replacement, as a dead member is. */
function rollEphemeral(etcd: EtcdView, chosen: EtcdMemberView): Action {
  return removeKeepingQuorum(
    etcd,
    chosen,
    'roll',
    CLUSTER_REASONS.rollWouldLoseQuorum,
    `replacing ephemeral member ${chosen.member}`,
  );
}
