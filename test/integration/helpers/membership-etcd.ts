// Multi-member etcd clusters for the membership tests: each member a real etcd process on its own loopback
// ports and data dir, started with exactly the flags and `ETCD_INITIAL_*` environment the controller gives it. Everything is stopped and
// removed by stop(), on process exit, and (through a detached reaper) even if the test process is SIGKILLed.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { etcdBinary, etcdVersions } from '../../env/binaries.js';
import { onProcessExit, removeDir, startReaper } from '../../env/cleanup.js';
import { freePorts } from '../../env/ports.js';
import { type ManagedProcess, startProcess } from '../../env/process-group.js';

export interface TestMember {
  readonly name: string;
  readonly peerURL: string;
  readonly clientURL: string;
  process?: ManagedProcess;
}

export interface TestCluster {
  readonly version: string;
  readonly members: Map<string, TestMember>;
  /** Allocates ports for a member name (no process yet). */
  reserve(name: string): Promise<TestMember>;
  /** Starts a member with `ETCD_INITIAL_CLUSTER` of `initial` (names) and the given state, as the member Pod's
   *  environment gives them. */
  start(name: string, state: 'new' | 'existing', initial: readonly string[], token?: string): TestMember;
  /** SIGKILLs a member's process group (its data stays). */
  kill(name: string): Promise<void>;
  /** Deletes a member's data dir (the member must be stopped): lost PVC data. */
  wipe(name: string): Promise<void>;
  /** The member name of a peer URL of this cluster. */
  memberOf(peerURL: string): string | undefined;
  stop(): Promise<void>;
}

/** `extraArgs` go on every member's command line (e.g. `--quota-backend-bytes=...`). */
export async function createTestCluster(
  version: '3.4' | '3.5' | '3.6',
  extraArgs: readonly string[] = [],
): Promise<TestCluster> {
  const exact = etcdVersions[version];
  const dir = await mkdtemp(join(tmpdir(), 'etcd-gitops-membership-'));
  const reaper = startReaper(dir);
  const members = new Map<string, TestMember>();
  const processes = () => [...members.values()].flatMap((member) => (member.process ? [member.process] : []));
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      await Promise.all(processes().map((process) => process.stop(2_000)));
      reaper.stop();
      await rm(dir, { recursive: true, force: true, maxRetries: 3 });
      unregister();
    })();
    return stopping;
  };
  const unregister = onProcessExit({
    sync: () => {
      for (const process of processes()) process.killNow();
      reaper.stop();
      removeDir(dir);
    },
    graceful: stop,
  });
  return {
    version: exact,
    members,
    async reserve(name) {
      const [peer, client] = await freePorts(2);
      const member = { name, peerURL: `http://127.0.0.1:${peer}`, clientURL: `http://127.0.0.1:${client}` };
      members.set(name, member);
      await mkdir(join(dir, name), { recursive: true });
      return member;
    },
    start(name, state, initial, token) {
      const member = members.get(name);
      if (!member) throw new Error(`reserve ${name} first`);
      const initialCluster = initial.map((other) => `${other}=${members.get(other)?.peerURL}`).join(',');
      member.process = startProcess({
        name: `etcd-${exact}-${name}`,
        command: etcdBinary(exact, 'etcd'),
        args: [
          `--name=${name}`,
          `--data-dir=${join(dir, name, 'data')}`,
          `--listen-peer-urls=${member.peerURL}`,
          `--listen-client-urls=${member.clientURL}`,
          `--advertise-client-urls=${member.clientURL}`,
          `--initial-advertise-peer-urls=${member.peerURL}`,
          ...(token ? [`--initial-cluster-token=${token}`] : []),
          '--log-level=warn',
          ...extraArgs,
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
    stop,
  };
}
