// The decisions of `etcd-gitops defrag`, pure (docs/design/compaction-quota-defrag.md, "The defrag job"):
// which members to defragment and in what order, and which alarms to disarm afterwards.
import { hasServed, quorumOf } from '../etcdcluster/plan-facts.js';

export interface PlanMember {
  /** 64-bit decimal string, as etcd3 returns it. */
  readonly id: string;
  /** Empty until a learner added by `member add` started once. */
  readonly name: string;
  readonly clientURLs: readonly string[];
  readonly isLearner: boolean;
}

export type MemberStatus =
  | {
      readonly ok: true;
      /** Bytes of the backend file. */
      readonly dbSize: number;
      /** Bytes of the backend file in use (the rest is free pages a defragmentation gives back). */
      readonly dbSizeInUse: number;
      /** `'0'` when the member knows no leader. */
      readonly leaderId: string;
      readonly raftIndex: string;
    }
  | { readonly ok: false; readonly error: string };

/** An active alarm; `alarm` as etcd3 names it (`Nospace`, `Corrupt`). */
export interface Alarm {
  readonly memberId: string;
  readonly alarm: string;
}

export interface SkippedMember {
  readonly id: string;
  readonly name: string;
  readonly reason: string;
}

export type DefragOrder =
  | {
      readonly action: 'defragment';
      readonly order: readonly PlanMember[];
      readonly skipped: SkippedMember[];
    }
  | { readonly action: 'stop'; readonly message: string; readonly skipped: SkippedMember[] };

const byName = (a: PlanMember, b: PlanMember): number =>
  a.name < b.name ? -1 : a.name > b.name ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;

/** Why `member` is not defragmented, or undefined when it is. */
function skipReason(member: PlanMember, status: MemberStatus | undefined): string | undefined {
  // etcd serves learners Status and serializable reads only; a learner costs no quorum and is not in the
  // alarm rule either. Its backend is defragmented once it is a voter.
  if (member.isLearner) return 'a learner (etcd refuses Defragment on learners)';
  if (!hasServed(member)) return 'not started (no client URL)';
  if (!status) return 'no status';
  if (!status.ok) return `did not answer Status: ${status.error}`;
  return undefined;
}

/**
 * The members to defragment, one at a time: answering voting followers by name, then the leader (a member whose
 * own status names itself leader). Members that did not answer are skipped and reported. With fewer than a
 * quorum of voting members answering, `stop`: one more blocked member could cost quorum.
 */
export function defragOrder(
  members: readonly PlanMember[],
  statuses: ReadonlyMap<string, MemberStatus>,
): DefragOrder {
  const skipped: SkippedMember[] = [];
  const answering: PlanMember[] = [];
  for (const member of members) {
    const reason = skipReason(member, statuses.get(member.id));
    if (reason) skipped.push({ id: member.id, name: member.name, reason });
    else answering.push(member);
  }
  const voters = members.filter((member) => !member.isLearner).length;
  const needed = quorumOf(voters);
  if (answering.length < needed) {
    return {
      action: 'stop',
      message: `${answering.length} of ${voters} voting members answered Status; a quorum of ${needed} must answer before any member is defragmented, so none was touched`,
      skipped,
    };
  }
  const isLeader = (member: PlanMember) => {
    const status = statuses.get(member.id);
    return status?.ok === true && status.leaderId === member.id;
  };
  const followers = answering.filter((member) => !isLeader(member)).sort(byName);
  const leaders = answering.filter(isLeader).sort(byName);
  return { action: 'defragment', order: [...followers, ...leaders], skipped };
}

export interface AlarmDecision {
  readonly disarm: readonly Alarm[];
  readonly keep: readonly (Alarm & { readonly reason: string })[];
}

/** Size of a member after defragmentation, or undefined when it did not answer Status again. */
export interface SizeAfter {
  readonly id: string;
  readonly name: string;
  readonly dbSize?: number;
}

export const NOSPACE = 'Nospace';

/**
 * etcd admits a write when its DB size plus the write's size is below the quota; a disarmed `NOSPACE` that the
 * next write raises again frees nothing. So the DB must be below the quota by etcd's default largest request
 * (`--max-request-bytes`, 1.5 MiB).
 */
export const DISARM_HEADROOM_BYTES = 1.5 * 2 ** 20;

/**
 * Which alarms to disarm after defragmentation. A `Nospace` alarm goes only when every member in `after` (those
 * that answered before defragmentation) answered again with a DB size below `quotaBytes` less
 * {@link DISARM_HEADROOM_BYTES}; any other alarm (`Corrupt`) is never disarmed.
 */
export function alarmDecision(
  alarms: readonly Alarm[],
  after: readonly SizeAfter[],
  quotaBytes: number,
): AlarmDecision {
  const limit = quotaBytes - DISARM_HEADROOM_BYTES;
  const problems = after.flatMap((member) => {
    const label = member.name || member.id;
    if (member.dbSize === undefined) return [`${label} did not answer Status after defragmentation`];
    return member.dbSize >= limit ? [`${label} is at ${member.dbSize} bytes`] : [];
  });
  const nospaceReason =
    problems.length === 0
      ? undefined
      : `compaction freed too little: ${problems.join(', ')}; allowed: below ${limit} bytes (the quota of ${quotaBytes} bytes less ${DISARM_HEADROOM_BYTES} bytes for one largest write); raise spec.quotaBackendBytes or delete data`;
  const disarm: Alarm[] = [];
  const keep: (Alarm & { reason: string })[] = [];
  for (const alarm of alarms) {
    if (alarm.alarm !== NOSPACE) {
      keep.push({ ...alarm, reason: `a ${alarm.alarm} alarm is never disarmed by the defrag job` });
    } else if (nospaceReason) {
      keep.push({ ...alarm, reason: nospaceReason });
    } else {
      disarm.push(alarm);
    }
  }
  return { disarm, keep };
}
