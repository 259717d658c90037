// `etcd-gitops defrag`: the thin executor of plan.ts. One etcd3 client per member's own client URL; members are
// defragmented one at a time in the plan's order; then the alarms are listed and disarmed as the plan says.
import type { Etcd3 } from 'etcd3';
import type { Logger } from 'pino';
import type { EtcdTls } from '../etcd/connection-options.js';
import { DEFAULT_MEMBER_WAIT_MS, untilAnswered } from '../etcd/until-answered.js';
import { createEtcdClient } from './etcd-client.js';
import { DefragError, type ExitCodeName } from './exit-codes.js';
import {
  type Alarm,
  alarmDecision,
  defragOrder,
  type MemberStatus,
  NOSPACE,
  type PlanMember,
  type SizeAfter,
} from './plan.js';

export interface DefragOptions {
  /** Client URLs to ask for the member list, tried in turn. */
  readonly endpoints: readonly string[];
  readonly namespace: string;
  readonly cluster: string;
  readonly quotaBackendBytes: number;
  readonly tls: EtcdTls;
  /** Deadline of one member's Defragment (it blocks the member for seconds per GiB). @default 5 minutes */
  readonly defragTimeoutMs?: number;
  /** How long to keep asking when no endpoint answers the member list, and when a voting member does not answer
   *  Status (a NetworkPolicy enforcer may admit the Job's Pod node by node). @default `DEFAULT_MEMBER_WAIT_MS` */
  readonly memberWaitMs?: number;
}

export const DEFAULT_DEFRAG_TIMEOUT_MS = 5 * 60_000;

interface Sizes {
  readonly dbSize: number;
  readonly dbSizeInUse: number;
}

export interface MemberResult {
  readonly id: string;
  readonly name: string;
  readonly clientURL?: string;
  /** `not-run`: a Defragment before it failed, so it was left alone. */
  readonly outcome: 'defragmented' | 'failed' | 'skipped' | 'not-run';
  readonly before?: Sizes;
  readonly after?: Sizes;
  readonly durationMs?: number;
  readonly reason?: string;
}

export interface DefragResult {
  readonly namespace: string;
  readonly cluster: string;
  readonly quotaBackendBytes: number;
  readonly members: readonly MemberResult[];
  readonly alarms: {
    readonly disarmed: readonly Alarm[];
    readonly kept: readonly (Alarm & { readonly reason: string })[];
  };
  /** The exit code this result means. */
  readonly exit: ExitCodeName;
}

const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** What the job logs each time it asks again a voting member that did not answer Status. */
export const STATUS_ASKED_AGAIN = 'Not every voting member answered Status yet; asking again';

const memberWaitOf = (options: DefragOptions): number => options.memberWaitMs ?? DEFAULT_MEMBER_WAIT_MS;

/** The member list from the first endpoint that answers, asking again for up to the member wait when none does
 *  (the Job's Pod may not be admitted by the cluster's network yet). */
async function listMembers(options: DefragOptions, log: Logger): Promise<PlanMember[]> {
  let failures: string[] = [];
  const members = await untilAnswered(memberWaitOf(options), log, async () => {
    failures = [];
    return listMembersOnce(options, log, failures);
  });
  if (members) return members;
  throw new DefragError('ETCD_UNAVAILABLE', `no endpoint answered MemberList (${failures.join('; ')})`);
}

async function listMembersOnce(
  options: DefragOptions,
  log: Logger,
  failures: string[],
): Promise<PlanMember[] | undefined> {
  for (const endpoint of options.endpoints) {
    const client = await createEtcdClient(endpoint, options.tls);
    try {
      const response = await client.cluster.memberList({ linearizable: false });
      return response.members.map((member) => ({
        id: String(member.ID),
        name: member.name ?? '',
        clientURLs: member.clientURLs ?? [],
        isLearner: member.isLearner === true,
      }));
    } catch (error) {
      log.warn({ endpoint, err: errorText(error) }, 'Endpoint did not answer MemberList');
      failures.push(`${endpoint}: ${errorText(error)}`);
    } finally {
      client.close();
    }
  }
  return undefined;
}

async function readStatus(client: Etcd3): Promise<MemberStatus> {
  try {
    const status = await client.maintenance.status();
    return {
      ok: true,
      dbSize: Number(status.dbSize),
      dbSizeInUse: Number(status.dbSizeInUse),
      leaderId: String(status.leader),
      raftIndex: String(status.raftIndex),
    };
  } catch (error) {
    return { ok: false, error: errorText(error) };
  }
}

/**
 * Every voting member's status, each from a client of its own put in `clients`. Members that did not answer are
 * asked again, each through a new client, for up to the member wait: an enforcer programs a new Pod's address on
 * each node in its own time, so the member that answered the member list may be the only one admitting the Job yet.
 * What the last round left unanswered stays a failure (the plan skips it).
 */
async function readStatuses(
  members: readonly PlanMember[],
  options: DefragOptions,
  clients: Map<string, Etcd3>,
  log: Logger,
): Promise<Map<string, MemberStatus>> {
  const voters = members.filter((member) => member.clientURLs[0] && !member.isLearner);
  const statuses = new Map<string, MemberStatus>();
  const ask = async (member: PlanMember): Promise<void> => {
    clients.get(member.id)?.close();
    const client = await createEtcdClient(member.clientURLs[0] as string, options.tls);
    clients.set(member.id, client);
    statuses.set(member.id, await readStatus(client));
  };
  await untilAnswered(
    memberWaitOf(options),
    log,
    async () => {
      await Promise.all(voters.filter((member) => !statuses.get(member.id)?.ok).map(ask));
      return voters.every((member) => statuses.get(member.id)?.ok) ? statuses : undefined;
    },
    STATUS_ASKED_AGAIN,
  );
  return statuses;
}

const sizesOf = (status: MemberStatus | undefined): Sizes | undefined =>
  status?.ok ? { dbSize: status.dbSize, dbSizeInUse: status.dbSizeInUse } : undefined;

/** Defragments `member` with its own client; the member result, sizes before and after. */
async function defragmentOne(
  member: PlanMember,
  client: Etcd3,
  before: Sizes | undefined,
  timeoutMs: number,
  log: Logger,
): Promise<MemberResult> {
  const clientURL = member.clientURLs[0];
  const started = Date.now();
  log.info({ member: member.name, id: member.id, clientURL, before }, `Defragmenting ${member.name}`);
  try {
    await client.maintenance.defragment({ deadline: Date.now() + timeoutMs });
  } catch (error) {
    const reason = `Defragment of ${member.name} at ${clientURL} failed after ${Date.now() - started} ms (deadline ${timeoutMs} ms): ${errorText(error)}`;
    log.error(
      { member: member.name, id: member.id, clientURL, reason },
      `Defragment of ${member.name} failed`,
    );
    return { id: member.id, name: member.name, clientURL, outcome: 'failed', before, reason };
  }
  const durationMs = Date.now() - started;
  const after = sizesOf(await readStatus(client));
  log.info(
    { member: member.name, id: member.id, clientURL, before, after, durationMs },
    `Defragmented ${member.name}`,
  );
  return { id: member.id, name: member.name, clientURL, outcome: 'defragmented', before, after, durationMs };
}

/** Lists the alarms through `client`, decides, disarms; alarms problems are logged and returned as `PARTIAL`. */
async function settleAlarms(
  client: Etcd3,
  after: readonly SizeAfter[],
  quotaBytes: number,
  log: Logger,
): Promise<{ disarmed: Alarm[]; kept: (Alarm & { reason: string })[]; failed: boolean }> {
  let alarms: Alarm[];
  try {
    const response = await client.maintenance.alarm({ action: 'Get', alarm: 'None', memberID: 0 });
    alarms = response.alarms.map((alarm) => ({
      memberId: String(alarm.memberID),
      alarm: String(alarm.alarm),
    }));
  } catch (error) {
    log.error({ err: errorText(error) }, 'Could not list the alarms; none disarmed');
    return { disarmed: [], kept: [], failed: true };
  }
  const decision = alarmDecision(alarms, after, quotaBytes);
  const disarmed: Alarm[] = [];
  const kept = [...decision.keep];
  let failed = false;
  for (const alarm of decision.disarm) {
    try {
      await client.maintenance.alarm({ action: 'Deactivate', memberID: alarm.memberId, alarm: NOSPACE });
      disarmed.push(alarm);
      log.info({ alarm }, `Disarmed the ${alarm.alarm} alarm of member ${alarm.memberId}`);
    } catch (error) {
      failed = true;
      kept.push({ ...alarm, reason: `AlarmDisarm failed: ${errorText(error)}` });
      log.error({ alarm, err: errorText(error) }, `Could not disarm the ${alarm.alarm} alarm`);
    }
  }
  for (const alarm of kept) log.error({ alarm }, `Kept the ${alarm.alarm} alarm of member ${alarm.memberId}`);
  return { disarmed, kept, failed };
}

function exitOf(
  members: readonly MemberResult[],
  alarmsFailed: boolean,
  kept: readonly Alarm[],
): ExitCodeName {
  if (alarmsFailed || members.some((member) => member.outcome === 'failed')) return 'PARTIAL';
  if (kept.some((alarm) => alarm.alarm === NOSPACE)) return 'NOSPACE_KEPT';
  return 'OK';
}

/**
 * Runs the defrag job (docs/design/compaction-quota-defrag.md, "The defrag job"). Throws a `DefragError`
 * (`ETCD_UNAVAILABLE`) before touching any member when the member list or a quorum of statuses is missing.
 */
export async function runDefrag(options: DefragOptions, log: Logger): Promise<DefragResult> {
  const timeoutMs = options.defragTimeoutMs ?? DEFAULT_DEFRAG_TIMEOUT_MS;
  const members = await listMembers(options, log);
  const clients = new Map<string, Etcd3>();
  try {
    const statuses = await readStatuses(members, options, clients, log);
    const plan = defragOrder(members, statuses);
    for (const skip of plan.skipped)
      log.warn({ member: skip }, `Skipping ${skip.name || skip.id}: ${skip.reason}`);
    if (plan.action === 'stop') throw new DefragError('ETCD_UNAVAILABLE', plan.message);

    const results: MemberResult[] = plan.skipped.map((skip) => ({ ...skip, outcome: 'skipped' }));
    let failed = false;
    for (const member of plan.order) {
      const client = clients.get(member.id) as Etcd3;
      const before = sizesOf(statuses.get(member.id));
      if (failed) {
        results.push({ id: member.id, name: member.name, outcome: 'not-run', before });
        continue;
      }
      const result = await defragmentOne(member, client, before, timeoutMs, log);
      failed = result.outcome === 'failed';
      results.push(result);
    }

    const after = await Promise.all(
      plan.order.map(async (member): Promise<SizeAfter> => {
        const done = results.find((result) => result.id === member.id && result.after);
        const sizes = done?.after ?? sizesOf(await readStatus(clients.get(member.id) as Etcd3));
        return { id: member.id, name: member.name, dbSize: sizes?.dbSize };
      }),
    );
    const leader = plan.order.at(-1) as PlanMember;
    const alarms = await settleAlarms(clients.get(leader.id) as Etcd3, after, options.quotaBackendBytes, log);
    return {
      namespace: options.namespace,
      cluster: options.cluster,
      quotaBackendBytes: options.quotaBackendBytes,
      members: results,
      alarms: { disarmed: alarms.disarmed, kept: alarms.kept },
      exit: exitOf(results, alarms.failed, alarms.kept),
    };
  } finally {
    for (const client of clients.values()) client.close();
  }
}
