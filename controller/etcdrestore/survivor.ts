// `spec.survivor` (docs/design/restore.md, "Recovery from a surviving member"): which member a restore recovers
// from, decided from the members' own Status answers (served without quorum). Pure.
import { snapshotVersionProblem } from '../restore/etcd-version.js';
import type { RestoreAction, RestoreView, SurvivorView } from './types.js';

const byRaftIndex = (a: SurvivorView, b: SurvivorView) => {
  const [x, y] = [BigInt(a.raftIndex), BigInt(b.raftIndex)];
  if (x !== y) return x > y ? -1 : 1;
  const [r, s] = [BigInt(a.revision), BigInt(b.revision)];
  if (r !== s) return r > s ? -1 : 1;
  return a.member.localeCompare(b.member, 'en', { numeric: true });
};

/** Why `survivor` cannot seed the cluster, or `undefined`. */
function unfit(survivor: SurvivorView, clusterVersion: string | undefined): string | undefined {
  if (!survivor.sameCluster) return `${survivor.member} answers as another member or another cluster`;
  if (survivor.learner) return `${survivor.member} is a learner (it may not have every committed write)`;
  return clusterVersion ? snapshotVersionProblem(survivor.version, clusterVersion) : undefined;
}

/**
 * The survivor to record (`ChooseSurvivor`), a refusal (`InvalidSurvivor`: the named member can never be one), or a
 * wait (`SurvivorUnavailable`, Degraded: no fit member answers now; a member restarting may answer later).
 * `withData` names the members that have a Pod or a volume: a named member with neither (a typo, a member of
 * another cluster, one whose volume is gone) has no data to recover from and never will.
 */
export function chooseSurvivor(
  restore: RestoreView,
  survivors: readonly SurvivorView[],
  clusterVersion: string | undefined,
  withData: readonly string[],
): RestoreAction {
  const wanted = restore.survivor?.member;
  const answering = survivors.map((s) => `${s.member} (revision ${s.revision})`).join(', ') || 'none';
  if (wanted) {
    const named = survivors.find((s) => s.member === wanted);
    if (!named && !withData.includes(wanted)) {
      const members = [...new Set(withData)].sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
      return {
        kind: 'Refuse',
        reason: 'InvalidSurvivor',
        message: `spec.survivor.member: ${wanted} has no member Pod or volume in cluster ${restore.clusterName}, so it has no data to recover from; allowed: a voting member of this cluster that answers (members with a Pod or volume: ${members.join(', ') || 'none'}); nothing was changed`,
      };
    }
    const problem = named && unfit(named, clusterVersion);
    if (problem) {
      return {
        kind: 'Refuse',
        reason: 'InvalidSurvivor',
        message: `spec.survivor.member: ${wanted} cannot seed the cluster: ${problem}; allowed: a voting member of this cluster that answers (answering: ${answering}); nothing was changed`,
      };
    }
    if (!named) return unavailable(`member ${wanted} does not answer`, answering);
    return chosen(named, survivors);
  }
  const fit = survivors.filter((s) => unfit(s, clusterVersion) === undefined).sort(byRaftIndex);
  const newest = fit[0];
  return newest
    ? chosen(newest, survivors)
    : unavailable('no voting member of this cluster answers', answering);
}

function unavailable(why: string, answering: string): RestoreAction {
  return {
    kind: 'Wait',
    reason: 'SurvivorUnavailable',
    message: `${why} (answering: ${answering}); a survivor restore copies a member that still runs with its data; nothing was changed`,
    requeueAfterMs: 5_000,
    degraded: true,
  };
}

function chosen(survivor: SurvivorView, all: readonly SurvivorView[]): RestoreAction {
  const others = all
    .filter((s) => s.member !== survivor.member)
    .map((s) => `${s.member} at revision ${s.revision}`);
  return {
    kind: 'ChooseSurvivor',
    member: survivor.member,
    id: survivor.id,
    revision: survivor.revision,
    message: `recovering from member ${survivor.member} at revision ${survivor.revision} (raft index ${survivor.raftIndex}): every write it has applied is kept; writes it had not applied are lost${others.length > 0 ? ` (other members answering: ${others.join(', ')})` : ''}`,
  };
}
