// Set algebra over one observed snapshot: which member has which Pod and PVC, quorum arithmetic, free names.

import { memberIndex, memberName } from '../../constructs/conventions/index.js';
import type { EtcdMemberView, EtcdView, PlanInput, PodView, PvcView } from './types.js';

/**
 * A member has served at least once: it published its client URLs, which every member does when it first runs. Its
 * name is no such sign: a learner added by `member add` is nameless until it runs, but a static member of
 * `--initial-cluster` is named before it ever ran (docs/design/bootstrap.md).
 */
export function hasServed(member: { readonly clientURLs: readonly string[] }): boolean {
  return member.clientURLs.length > 0;
}

/** Votes needed for a decision among `voters` voting members. */
export function quorumOf(voters: number): number {
  return Math.floor(voters / 2) + 1;
}

/** Index of a member name, `Infinity` for a name that is not `<cluster>-<n>` (sorts last). */
export function indexOf(cluster: string, member: string | undefined): number {
  return (member === undefined ? undefined : memberIndex(cluster, member)) ?? Number.POSITIVE_INFINITY;
}

/** Members whose peer URL is ours, lowest index first. */
export function ourMembers(input: PlanInput, etcd: EtcdView): EtcdMemberView[] {
  return etcd.members
    .filter((member) => member.member !== undefined)
    .sort((a, b) => indexOf(input.cluster.name, a.member) - indexOf(input.cluster.name, b.member));
}

export function podOf(input: PlanInput, member: string): PodView | undefined {
  return input.pods.find((pod) => pod.member === member);
}

/** The member's PVC, whoever made it (a name is not taken again while a PVC holds it, see nextMemberName). */
export function pvcOf(input: PlanInput, member: string): PvcView | undefined {
  return input.pvcs.find((pvc) => pvc.member === member && !pvc.retained);
}

/** PVCs made by this incarnation of the cluster (never touch the others). */
export function ourPvcs(input: PlanInput): PvcView[] {
  return input.pvcs.filter(
    (pvc) => pvc.clusterUid === input.cluster.uid && !pvc.terminating && !pvc.retained,
  );
}

/** The lowest `<cluster>-<n>` used by no Pod, no etcd member, no PVC and none of `reserved`. */
export function nextMemberName(input: PlanInput, reserved: readonly string[] = []): string {
  const used = new Set<string>([
    ...reserved,
    ...input.pods.map((pod) => pod.member),
    ...input.pvcs.map((pvc) => pvc.member),
    ...(input.etcd?.members ?? []).flatMap((member) => (member.member ? [member.member] : [])),
  ]);
  let index = 0;
  while (used.has(memberName(input.cluster.name, index))) index += 1;
  return memberName(input.cluster.name, index);
}

/**
 * After removing `victim`, the healthy voters left still form a quorum of the voters left (and one is left). Voters
 * named in `stopping` (by member name) count as not healthy: they answer now, but are about to stop.
 */
export function canRemove(
  etcd: EtcdView,
  victim: EtcdMemberView,
  stopping: ReadonlySet<string> = new Set(),
): boolean {
  if (victim.learner) return true;
  const votersAfter = etcd.members.filter((member) => !member.learner && member.id !== victim.id);
  const healthyAfter = votersAfter.filter((member) => member.healthy && !stopping.has(member.member ?? ''));
  return votersAfter.length > 0 && healthyAfter.length >= quorumOf(votersAfter.length);
}

/** Why a doomed member is dead: its `RemoveMember`'s detail, so its Event and its `MemberDead` condition say it. */
export const DOOMED_DETAIL = 'its Pod and its PVC are being deleted';

/**
 * The member's Pod and its PVC are both being deleted: its data cannot outlive the Pod, so it is dead even while
 * etcd still answers (docs/design/membership.md, "Dead members"). Ephemeral members are not covered: they wait for
 * their Pod to go, as before.
 */
export function isDoomed(input: PlanInput, pod: PodView): boolean {
  if (!pod.terminating || input.cluster.storage.ephemeral) return false;
  return pvcOf(input, pod.member)?.terminating === true;
}

/** Members that are about to stop or to lose their data: their Pod or their PVC is terminating. */
export function stoppingMembers(input: PlanInput): Set<string> {
  return new Set([
    ...input.pods.filter((pod) => pod.terminating).map((pod) => pod.member),
    ...input.pvcs.filter((pvc) => pvc.terminating && !pvc.retained).map((pvc) => pvc.member),
  ]);
}

/**
 * Stopping `member` for a restart keeps quorum: the healthy, caught-up voters other than it are at least a quorum
 * of the voters, it included (it stays in the membership, unlike {@link canRemove}).
 */
export function canStop(etcd: EtcdView, member: EtcdMemberView): boolean {
  const voters = etcd.members.filter((candidate) => !candidate.learner);
  const others = voters.filter(
    (candidate) => candidate.id !== member.id && candidate.healthy && candidate.caughtUp,
  );
  return others.length >= quorumOf(voters.length);
}

/** A user marked the member's Pod `etcd.gitops.dev/evict=true`. */
export function isMarked(input: PlanInput, member: EtcdMemberView): boolean {
  return member.member !== undefined && podOf(input, member.member)?.evict === true;
}

/**
 * The membership to reach: `size`, plus one while a healthy marked voter waits to be replaced add-first
 * (docs/design/membership.md, "The member that leaves, and evict-and-replace").
 */
export function targetSize(input: PlanInput, etcd: EtcdView): number {
  const waiting = etcd.members.some((member) => !member.learner && member.healthy && isMarked(input, member));
  return input.cluster.size + (waiting ? 1 : 0);
}

/** The member scale-in removes: a marked one, else one that is not healthy, else the highest index. */
export function scaleInVictim(input: PlanInput, etcd: EtcdView): EtcdMemberView | undefined {
  const byIndexDown = [...etcd.members].sort(
    (a, b) => indexOf(input.cluster.name, b.member) - indexOf(input.cluster.name, a.member),
  );
  return (
    byIndexDown.find((member) => isMarked(input, member)) ??
    byIndexDown.find((member) => !member.healthy) ??
    byIndexDown[0]
  );
}

/** The Pod of `member` is not built from the current spec (no revision: made before rolling updates existed). */
export function isOutOfDate(input: PlanInput, pod: PodView): boolean {
  return pod.revision !== input.cluster.revision;
}

/** The cluster token of a new incarnation: `<cluster>-<uid prefix>-<random>`. */
export function newClusterToken(input: PlanInput): string {
  return `${input.cluster.name}-${input.cluster.uid.slice(0, 8)}-${input.nonce}`;
}

/** A Pod that is neither running, crash-looping, terminating nor lost: still being scheduled or started. */
export function isStarting(pod: PodView): boolean {
  return !pod.running && !pod.crashLooping && !pod.terminating && pod.lost === undefined;
}
