// The etcd half of the observed state: every member Pod's Status, the member list from the leader, and from
// those the planner's EtcdView (health, identity, quorum). See docs/design/membership.md, "The etcd view".
import { type EtcdMember, type EtcdStatus, listMembers, memberStatus } from '../etcd/members.js';
import { quorumOf } from './plan-facts.js';
import type { EtcdMemberView, EtcdView } from './types.js';

/** A member Pod's client URL. */
export interface MemberEndpoint {
  readonly member: string;
  readonly clientURL: string;
}

export interface EtcdObservation {
  readonly view: EtcdView;
  readonly clusterId: string;
  readonly members: readonly EtcdMember[];
  /** Status of each member that answered, by member name. */
  readonly statuses: ReadonlyMap<string, EtcdStatus>;
  /** Client URL of the leader, when it answered. */
  readonly leaderEndpoint?: string;
  /** Client URLs of healthy members, the leader first. */
  readonly healthyEndpoints: readonly string[];
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
        return { endpoint, status: await memberStatus(endpoint.clientURL) };
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
      const { members } = await listMembers(answer.endpoint.clientURL);
      return { members, fromLeader: answer.status.memberId === leaderId };
    } catch {
      // next one
    }
  }
  return undefined;
}

function memberView(
  member: EtcdMember,
  name: string | undefined,
  answer: Answer | undefined,
  majority: { clusterId: string; leaderId: string | undefined },
): EtcdMemberView {
  const status = answer?.status;
  const impostor =
    status !== undefined &&
    (status.memberId !== member.id ||
      status.clusterId !== majority.clusterId ||
      (status.leaderId === status.memberId &&
        majority.leaderId !== undefined &&
        status.leaderId !== majority.leaderId));
  const healthy =
    status !== undefined && !impostor && status.leaderId !== '0' && status.leaderId === majority.leaderId;
  return {
    id: member.id,
    member: name,
    started: member.name !== '',
    learner: member.isLearner,
    healthy,
    wrongIdentity: impostor,
  };
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
  const leaderId = mostCommon(sameCluster.map((answer) => answer.status.leaderId).filter((id) => id !== '0'));
  const list = await readMembers(sameCluster, leaderId);
  if (!list) return undefined;
  const byMember = new Map(answers.map((answer) => [answer.endpoint.member, answer]));
  const views = list.members
    .map((member) => {
      const name = member.peerURLs.map(memberOf).find((found) => found !== undefined);
      return memberView(member, name, name ? byMember.get(name) : undefined, { clusterId, leaderId });
    })
    .sort((a, b) => (a.member ?? '~').localeCompare(b.member ?? '~', 'en', { numeric: true }));
  const voters = views.filter((view) => !view.learner);
  const healthyVoters = voters.filter((view) => view.healthy).length;
  const quorum = list.fromLeader && leaderId !== undefined && healthyVoters >= quorumOf(voters.length);
  const healthyNames = new Set(views.filter((view) => view.healthy).map((view) => view.member));
  const leaderAnswer = sameCluster.find((answer) => answer.status.memberId === leaderId);
  const healthyEndpoints = sameCluster
    .filter((answer) => healthyNames.has(answer.endpoint.member))
    .sort((a, b) => Number(b === leaderAnswer) - Number(a === leaderAnswer))
    .map((answer) => answer.endpoint.clientURL);
  return {
    view: { members: views, leaderId, quorum },
    clusterId,
    members: list.members,
    statuses: new Map(answers.map((answer) => [answer.endpoint.member, answer.status])),
    leaderEndpoint: leaderAnswer?.endpoint.clientURL,
    healthyEndpoints,
  };
}
