// The etcd half of the observed state: every member Pod's Status, the member list from the leader, and from
// those the planner's EtcdView (health, identity, quorum). See docs/design/membership.md, "The etcd view".

import type { ClientTls, Endpoint } from '../etcd/client.js';
import {
  type EtcdAlarm,
  type EtcdMember,
  type EtcdStatus,
  isCaughtUp,
  listAlarms,
  listMembers,
  memberStatus,
} from '../etcd/members.js';
import { hasServed, quorumOf } from './plan-facts.js';
import type { EtcdMemberView, EtcdView } from './types.js';

/** A member Pod's client URL, and the client certificate its `https` needs. */
export interface MemberEndpoint {
  readonly member: string;
  readonly clientURL: string;
  readonly tls?: ClientTls;
}

/** What a call to the member goes to. */
function dial(endpoint: MemberEndpoint): Endpoint {
  return endpoint.tls ? { url: endpoint.clientURL, tls: endpoint.tls } : endpoint.clientURL;
}

export interface EtcdObservation {
  readonly view: EtcdView;
  readonly clusterId: string;
  readonly members: readonly EtcdMember[];
  /** Status of each member that answered, by member name. */
  readonly statuses: ReadonlyMap<string, EtcdStatus>;
  /** The leader's client endpoint, when it answered. */
  readonly leaderEndpoint?: Endpoint;
  /** Client endpoints of healthy members, the leader first. */
  readonly healthyEndpoints: readonly Endpoint[];
  /**
   * Active alarms with the member name each is raised for; undefined when no member answered the question, or when
   * the healthy voters are no quorum (none is asked then: etcd answers the alarm list through raft).
   */
  readonly alarms?: readonly (EtcdAlarm & { readonly member?: string })[];
}

/** The alarms as the first healthy endpoint that answers knows them. */
async function readAlarms(
  endpoints: readonly Endpoint[],
  members: readonly EtcdMember[],
  memberOf: (peerURL: string) => string | undefined,
): Promise<EtcdObservation['alarms']> {
  for (const endpoint of endpoints) {
    try {
      const alarms = await listAlarms(endpoint);
      return alarms.map((alarm) => {
        const peerURLs = members.find((member) => member.id === alarm.memberId)?.peerURLs ?? [];
        const member = peerURLs.map(memberOf).find((name) => name !== undefined);
        return member ? { ...alarm, member } : alarm;
      });
    } catch {
      // next one
    }
  }
  return undefined;
}

function mostCommon(values: readonly string[]): string | undefined {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
}

interface Answer {
  readonly endpoint: MemberEndpoint;
  readonly status: EtcdStatus;
}

async function askAll(endpoints: readonly MemberEndpoint[]): Promise<Answer[]> {
  const answers = await Promise.all(
    endpoints.map(async (endpoint) => {
      try {
        return { endpoint, status: await memberStatus(dial(endpoint)) };
      } catch {
        return undefined;
      }
    }),
  );
  return answers.filter((answer): answer is Answer => answer !== undefined);
}

async function readMembers(
  answers: readonly Answer[],
  leaderId: string | undefined,
): Promise<{ members: EtcdMember[]; fromLeader: boolean } | undefined> {
  const ordered = [...answers].sort(
    (a, b) => Number(b.status.memberId === leaderId) - Number(a.status.memberId === leaderId),
  );
  for (const answer of ordered) {
    try {
      const { members } = await listMembers(dial(answer.endpoint));
      return { members, fromLeader: answer.status.memberId === leaderId };
    } catch {
      // next one
    }
  }
  return undefined;
}

/** The cluster's leader as its members report it, and the highest raft term any of them is in. */
export interface ClusterLeader {
  readonly leaderId: string | undefined;
  readonly term: bigint;
}

/**
 * The leader named by the members in the highest term (raft elects at most one leader per term), else the leader
 * most members name. A member elected in a newer term wins over members that have not heard of the election yet
 * (right after a MoveLeader, or during any election), so a fresh leader is never outvoted by stale followers.
 */
export function clusterLeader(statuses: readonly EtcdStatus[]): ClusterLeader {
  const term = statuses.reduce((max, status) => {
    const current = BigInt(status.raftTerm);
    return current > max ? current : max;
  }, 0n);
  const named = (among: readonly EtcdStatus[]) =>
    mostCommon(among.map((status) => status.leaderId).filter((id) => id !== '0'));
  const leaderId = named(statuses.filter((status) => BigInt(status.raftTerm) === term)) ?? named(statuses);
  return { leaderId, term };
}

/**
 * A member whose answer is not this member of this cluster: another member id, another cluster id, or a claim to
 * lead in an older term than the cluster's while the cluster follows another leader (a wiped seed restarted with
 * `new` bootstraps a one-member cluster under the same ids; the real cluster is in a newer term). A leader in the
 * cluster's newest term is never an impostor: that is how a just-elected leader looks to stale followers.
 */
export function isImpostor(
  member: EtcdMember,
  status: EtcdStatus,
  cluster: { readonly clusterId: string; readonly leader: ClusterLeader },
): boolean {
  if (status.memberId !== member.id || status.clusterId !== cluster.clusterId) return true;
  const { leaderId, term } = cluster.leader;
  const claimsLead = status.leaderId === status.memberId;
  return (
    claimsLead && leaderId !== undefined && status.leaderId !== leaderId && BigInt(status.raftTerm) < term
  );
}

function memberView(
  member: EtcdMember,
  name: string | undefined,
  answer: Answer | undefined,
  majority: { clusterId: string; leader: ClusterLeader },
): EtcdMemberView {
  const status = answer?.status;
  const impostor = status !== undefined && isImpostor(member, status, majority);
  const answers = status !== undefined && !impostor;
  const healthy = answers && status.leaderId !== '0' && status.leaderId === majority.leader.leaderId;
  return {
    id: member.id,
    member: name,
    started: hasServed(member),
    learner: member.isLearner,
    healthy,
    wrongIdentity: impostor,
    electing: answers && status.leaderId === '0',
    caughtUp: false,
  };
}

/**
 * Each healthy voter gets one linearizable read through its own client URL (docs/design/rolling-update.md). Only
 * asked while the healthy voters are a quorum: the read needs the leader to hear from a quorum (ReadIndex), so
 * without one it could only wait out its deadline (docs/design/membership.md, "The etcd view").
 */
async function withCaughtUp(
  views: readonly EtcdMemberView[],
  byMember: ReadonlyMap<string, Answer>,
): Promise<EtcdMemberView[]> {
  return Promise.all(
    views.map(async (view) => {
      const answer = view.member ? byMember.get(view.member) : undefined;
      if (!view.healthy || view.learner || !answer) return view;
      return { ...view, caughtUp: await isCaughtUp(dial(answer.endpoint)) };
    }),
  );
}

/**
 * Asks every endpoint for Status, reads the member list (from the leader when there is one) and judges each
 * member. `memberOf` maps a peer URL to our member name. `undefined` when no member answered.
 *
 * `knownClusterId` (`status.clusterID`) pins the cluster: a member answering with another cluster id is an
 * impostor even when impostors outnumber the members that answer (a wiped seed restarted with `new` forms a
 * one-member cluster of its own; without the pin, a 1-to-1 tie could make the impostor "the cluster" and every
 * real member a stray Pod). Without it (a new cluster, or an in-place restore seeding a new cluster id), the
 * most common cluster id wins.
 */
export async function observeEtcd(
  endpoints: readonly MemberEndpoint[],
  memberOf: (peerURL: string) => string | undefined,
  knownClusterId?: string,
): Promise<EtcdObservation | undefined> {
  const answers = await askAll(endpoints);
  const clusterId = knownClusterId ?? mostCommon(answers.map((answer) => answer.status.clusterId));
  if (clusterId === undefined || !answers.some((answer) => answer.status.clusterId === clusterId))
    return undefined;
  const sameCluster = answers.filter((answer) => answer.status.clusterId === clusterId);
  const leader = clusterLeader(sameCluster.map((answer) => answer.status));
  const { leaderId } = leader;
  const list = await readMembers(sameCluster, leaderId);
  if (!list) return undefined;
  const byMember = new Map(answers.map((answer) => [answer.endpoint.member, answer]));
  const judged = list.members
    .map((member) => {
      const name = member.peerURLs.map(memberOf).find((found) => found !== undefined);
      return memberView(member, name, name ? byMember.get(name) : undefined, { clusterId, leader });
    })
    .sort((a, b) => (a.member ?? '~').localeCompare(b.member ?? '~', 'en', { numeric: true }));
  const voters = judged.filter((view) => !view.learner);
  const healthyVoters = voters.filter((view) => view.healthy).length;
  const quorumAnswered = healthyVoters >= quorumOf(voters.length);
  // Without a quorum no member is caught up and no alarm can be read (etcd answers the alarm list through raft):
  // neither is asked.
  const quorum = list.fromLeader && leaderId !== undefined && quorumAnswered;
  const healthyNames = new Set(judged.filter((view) => view.healthy).map((view) => view.member));
  const leaderAnswer = sameCluster.find((answer) => answer.status.memberId === leaderId);
  const healthyEndpoints = sameCluster
    .filter((answer) => healthyNames.has(answer.endpoint.member))
    .sort((a, b) => Number(b === leaderAnswer) - Number(a === leaderAnswer))
    .map((answer) => dial(answer.endpoint));
  // The two questions are independent (neither changes who is healthy): asked at once.
  const [views, alarms] = quorumAnswered
    ? await Promise.all([
        withCaughtUp(judged, byMember),
        readAlarms(healthyEndpoints, list.members, memberOf),
      ])
    : [judged, undefined];
  return {
    ...(alarms ? { alarms } : {}),
    view: { members: views, leaderId, quorum, ...(alarms ? { alarms } : {}) },
    clusterId,
    members: list.members,
    statuses: new Map(answers.map((answer) => [answer.endpoint.member, answer.status])),
    ...(leaderAnswer ? { leaderEndpoint: dial(leaderAnswer.endpoint) } : {}),
    healthyEndpoints,
  };
}
