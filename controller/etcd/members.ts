// The etcd member API the membership controller uses: list, status, add learner, promote, remove, move leader.
// Ids are 64-bit decimal strings as etcd3 returns them. "Already done" outcomes are results, not errors.
import { type Endpoint, withClient } from './client.js';

export interface EtcdMember {
  readonly id: string;
  /** Empty until a learner added by `member add` started once; a static member of `--initial-cluster` is named
   *  before it ever ran. Whether a member ever served: `hasServed` (plan-facts.ts). */
  readonly name: string;
  readonly peerURLs: readonly string[];
  readonly clientURLs: readonly string[];
  readonly isLearner: boolean;
}

export interface EtcdStatus {
  readonly memberId: string;
  readonly clusterId: string;
  /** `'0'` when the member knows no leader. */
  readonly leaderId: string;
  readonly version: string;
  readonly isLearner: boolean;
  readonly raftIndex: string;
  /** The store revision this member has applied (`header.revision`; served without quorum). */
  readonly revision: string;
  /** The member's current raft term (at most one leader per term). */
  readonly raftTerm: string;
  /** Size of the backend file in bytes: what the quota counts. */
  readonly dbSize: number;
  /** Bytes of the backend in use; the rest is what defragmentation gives back. */
  readonly dbSizeInUse: number;
}

/** An active etcd alarm: `NOSPACE` (backend quota reached, writes refused) or `CORRUPT`. */
export interface EtcdAlarm {
  readonly memberId: string;
  readonly alarm: 'NOSPACE' | 'CORRUPT';
}

/** Each alarm kind as etcd3's `AlarmType` names it. */
const ALARM_TYPE = { NOSPACE: 'Nospace', CORRUPT: 'Corrupt' } as const;

const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * etcd's strict reconfiguration checks refuse a change for a while after the previous one ("unhealthy cluster"
 * until the leader has been connected to the members for 5 s, "not enough started members", a leader change in
 * between). Such a refusal is "not yet", not a failure.
 */
export function isEtcdBusy(error: unknown): boolean {
  return /unhealthy cluster|not enough started members|leader changed|too many learner|timed out|no leader/i.test(
    errorText(error),
  );
}

function toMember(member: {
  ID: string;
  name: string;
  peerURLs: string[];
  clientURLs: string[];
  isLearner?: boolean;
}): EtcdMember {
  return {
    id: String(member.ID),
    name: member.name ?? '',
    peerURLs: member.peerURLs ?? [],
    clientURLs: member.clientURLs ?? [],
    isLearner: member.isLearner === true,
  };
}

export function listMembers(endpoint: Endpoint): Promise<{ clusterId: string; members: EtcdMember[] }> {
  return withClient(endpoint, async (client) => {
    const response = await client.cluster.memberList({ linearizable: false });
    return { clusterId: String(response.header.cluster_id), members: response.members.map(toMember) };
  });
}

export function memberStatus(endpoint: Endpoint): Promise<EtcdStatus> {
  return withClient(endpoint, async (client) => {
    const status = await client.maintenance.status();
    return {
      memberId: String(status.header.member_id),
      clusterId: String(status.header.cluster_id),
      leaderId: String(status.leader),
      version: status.version,
      isLearner: status.isLearner === true,
      raftIndex: String(status.raftIndex),
      revision: String(status.header.revision),
      raftTerm: String(status.raftTerm ?? status.header.raft_term),
      dbSize: Number(status.dbSize),
      dbSizeInUse: Number(status.dbSizeInUse ?? status.dbSize),
    };
  });
}

/** The cluster's active alarms, as any member knows them (alarms are replicated through raft). */
export function listAlarms(endpoint: Endpoint): Promise<EtcdAlarm[]> {
  return withClient(endpoint, async (client) => {
    const response = await client.maintenance.alarm({ action: 'Get', memberID: 0, alarm: 'None' });
    return (response.alarms ?? []).flatMap((member): EtcdAlarm[] => {
      const alarm = String(member.alarm).toUpperCase();
      return alarm === 'NOSPACE' || alarm === 'CORRUPT' ? [{ memberId: String(member.memberID), alarm }] : [];
    });
  });
}

/** Disarms one alarm: `alarm` raised for member `memberId` only (every other alarm stays). */
export function disarmAlarm(endpoint: Endpoint, memberId: string, alarm: EtcdAlarm['alarm']): Promise<void> {
  return withClient(endpoint, async (client) => {
    await client.maintenance.alarm({ action: 'Deactivate', memberID: memberId, alarm: ALARM_TYPE[alarm] });
  });
}

/** `added`: the learner and the member list etcd holds after the add. */
export type AddLearnerResult =
  | { outcome: 'added'; member: EtcdMember; members: EtcdMember[] }
  | { outcome: 'already-exists' };

/** `member add --learner`; a member with that peer URL already there is `already-exists`. */
export function addLearner(endpoint: Endpoint, peerURL: string): Promise<AddLearnerResult> {
  return withClient(endpoint, async (client) => {
    try {
      const response = await client.cluster.memberAdd({ peerURLs: [peerURL], isLearner: true });
      return {
        outcome: 'added',
        member: toMember(response.member),
        members: response.members.map(toMember),
      };
    } catch (error) {
      if (/peer ?urls? already exists|member id already exist/i.test(errorText(error)))
        return { outcome: 'already-exists' };
      throw error;
    }
  });
}

export type PromoteResult = 'promoted' | 'not-ready' | 'not-learner' | 'not-found';

/** `member promote`; etcd refuses until the learner caught up with the leader: that is `not-ready`. */
export function promoteMember(endpoint: Endpoint, id: string): Promise<PromoteResult> {
  return withClient(endpoint, async (client) => {
    try {
      await client.cluster.memberPromote({ ID: id });
      return 'promoted';
    } catch (error) {
      const text = errorText(error);
      if (/in sync with leader|not ready/i.test(text)) return 'not-ready';
      if (/not a learner|can only promote a learner member$/i.test(text)) return 'not-learner';
      if (/member not found/i.test(text)) return 'not-found';
      throw error;
    }
  });
}

export type RemoveResult = 'removed' | 'not-found';

/** `member remove`; a member already gone is `not-found`. */
export function removeMember(endpoint: Endpoint, id: string): Promise<RemoveResult> {
  return withClient(endpoint, async (client) => {
    try {
      await client.cluster.memberRemove({ ID: id });
      return 'removed';
    } catch (error) {
      if (/member not found/i.test(errorText(error))) return 'not-found';
      throw error;
    }
  });
}

/** `move-leader`; must be sent to the current leader's endpoint. */
export function moveLeader(leaderEndpoint: Endpoint, targetId: string): Promise<void> {
  return withClient(leaderEndpoint, async (client) => {
    await client.maintenance.moveLeader({ targetID: targetId });
  });
}

/** Deadline of the caught-up read. @default 5000 */
export const CAUGHT_UP_TIMEOUT_MS = 5_000;

/**
 * The member has applied everything the cluster had committed when this read arrived: a linearizable Range
 * (`keys_only`, `limit 1`) sent to that member's own client URL answers only after the member asked the leader for
 * its commit index (ReadIndex) and applied up to it (docs/design/rolling-update.md, "The decision"). `false` when
 * it does not answer within `timeoutMs`, or refuses (a learner, no leader).
 */
export async function isCaughtUp(endpoint: Endpoint, timeoutMs = CAUGHT_UP_TIMEOUT_MS): Promise<boolean> {
  try {
    await withClient(
      endpoint,
      (client) =>
        client.kv.range({ key: Buffer.from([0]), range_end: Buffer.from([0]), limit: 1, keys_only: true }),
      timeoutMs,
    );
    return true;
  } catch {
    return false;
  }
}
