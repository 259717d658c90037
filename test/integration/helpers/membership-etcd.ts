// Multi-member etcd clusters for the membership tests: each member a real etcd process on its own loopback
// ports and data dir, started with exactly the flags and `ETCD_INITIAL_*` environment the controller gives it. Everything is stopped and
// removed by stop(), on process exit, and (through a detached reaper) even if the test process is SIGKILLed.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { memberStatus } from '../../../controller/etcd/members.js';
import { etcdBinary, etcdVersions } from '../../env/binaries.js';
import { fixtureTeardown, startReaper } from '../../env/cleanup.js';
import { freePorts } from '../../env/ports.js';
import { type ManagedProcess, startProcess } from '../../env/process-group.js';
import { waitFor } from '../../env/wait.js';

export type EtcdMinor = '3.4' | '3.5' | '3.6';

export interface TestMember {
  readonly name: string;
  readonly peerURL: string;
  readonly clientURL: string;
  /** `--listen-metrics-urls` (as the member Pod has): `/metrics` and `/health`, served before the client API. */
  readonly metricsURL: string;
  process?: ManagedProcess;
}

export interface StartOptions {
  /** The etcd binary of this start, e.g. a member restarted on its data dir by the next minor. @default the
   *  cluster's version */
  version?: EtcdMinor;
  /** Flags of this member only, after the cluster's (e.g. a smaller `--quota-backend-bytes`). @default none */
  extraArgs?: readonly string[];
}

export interface TestCluster {
  readonly version: string;
  readonly members: Map<string, TestMember>;
  /** Allocates ports for a member name (no process yet). */
  reserve(name: string): Promise<TestMember>;
  /** Starts a member with `ETCD_INITIAL_CLUSTER` of `initial` (names) and the given state, as the member Pod's
   *  environment gives them. */
  start(
    name: string,
    state: 'new' | 'existing',
    initial: readonly string[],
    token?: string,
    options?: StartOptions,
  ): TestMember;
  /** SIGKILLs a member's process group (its data stays). */
  kill(name: string): Promise<void>;
  /** Deletes a member's data dir (the member must be stopped): lost PVC data. */
  wipe(name: string): Promise<void>;
  /** The member name of a peer URL of this cluster. */
  memberOf(peerURL: string): string | undefined;
  /** Waits until each of `names` (the leader among them) answers Status and all name the same leader; resolves
   *  that leader. */
  waitForLeader(names: readonly string[], timeoutMs?: number): Promise<{ name: string; id: string }>;
  stop(): Promise<void>;
}

/** `extraArgs` go on every member's command line (e.g. `--quota-backend-bytes=...`). */
export async function createTestCluster(
  version: EtcdMinor,
  extraArgs: readonly string[] = [],
): Promise<TestCluster> {
  const exact = etcdVersions[version];
  const dir = await mkdtemp(join(tmpdir(), 'etcd-gitops-membership-'));
  const reaper = startReaper(dir);
  const members = new Map<string, TestMember>();
  const processes = () => [...members.values()].flatMap((member) => (member.process ? [member.process] : []));
  const stop = fixtureTeardown({ dir, reaper, processes, graceMs: 2_000 });
  return {
    version: exact,
    members,
    async reserve(name) {
      const [peer, client, metrics] = await freePorts(3);
      const member = {
        name,
        peerURL: `http://127.0.0.1:${peer}`,
        clientURL: `http://127.0.0.1:${client}`,
        metricsURL: `http://127.0.0.1:${metrics}`,
      };
      members.set(name, member);
      await mkdir(join(dir, name), { recursive: true });
      return member;
    },
    start(name, state, initial, token, options = {}) {
      const member = members.get(name);
      if (!member) throw new Error(`reserve ${name} first`);
      const initialCluster = initial.map((other) => `${other}=${members.get(other)?.peerURL}`).join(',');
      const binaryVersion = options.version ? etcdVersions[options.version] : exact;
      member.process = startProcess({
        name: `etcd-${binaryVersion}-${name}`,
        command: etcdBinary(binaryVersion, 'etcd'),
        args: [
          `--name=${name}`,
          `--data-dir=${join(dir, name, 'data')}`,
          `--listen-peer-urls=${member.peerURL}`,
          `--listen-client-urls=${member.clientURL}`,
          `--advertise-client-urls=${member.clientURL}`,
          `--initial-advertise-peer-urls=${member.peerURL}`,
          `--listen-metrics-urls=${member.metricsURL}`,
          ...(token ? [`--initial-cluster-token=${token}`] : []),
          '--log-level=warn',
          ...extraArgs,
          ...(options.extraArgs ?? []),
        ],
        env: { ETCD_INITIAL_CLUSTER: initialCluster, ETCD_INITIAL_CLUSTER_STATE: state },
        logPath: join(dir, `${name}.log`),
      });
      reaper.record(member.process.pid);
      return member;
    },
    async kill(name) {
      const member = members.get(name);
      await member?.process?.stop(0); // SIGKILL at once; stop() keeps the event loop alive until it is gone
    },
    async wipe(name) {
      await rm(join(dir, name, 'data'), { recursive: true, force: true });
    },
    memberOf(peerURL) {
      return [...members.values()].find((member) => member.peerURL === peerURL)?.name;
    },
    waitForLeader(names, timeoutMs = 30_000) {
      return waitFor(
        async () => {
          const statuses = await Promise.all(
            names.map((name) => memberStatus(members.get(name)?.clientURL as string)),
          );
          const leaderId = statuses[0]?.leaderId;
          if (!leaderId || leaderId === '0' || statuses.some((status) => status.leaderId !== leaderId))
            return;
          const leader = names[statuses.findIndex((status) => status.memberId === leaderId)];
          return leader === undefined ? undefined : { name: leader, id: leaderId };
        },
        {
          what: `${names.join(', ')} (etcd ${exact}) to agree on a leader`,
          timeoutMs,
          abortIf: () => {
            const gone = names
              .map((name) => members.get(name)?.process)
              .find((process) => process?.exitStatus());
            return gone && `${gone.name} ${gone.exitStatus()}:\n${gone.logTail(10)}`;
          },
        },
      );
    },
    stop,
  };
}
