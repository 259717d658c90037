// One child process in its own process group, logging to a file, stopped as a group.
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { groupAlive, killGroup } from './cleanup.js';

export interface ProcessSpec {
  /** Short name used in logs and error messages, e.g. `kube-apiserver`. */
  name: string;
  command: string;
  args: string[];
  /** Log file that receives stdout and stderr (appended). */
  logPath: string;
  /** Extra environment; proxy variables are always removed so every request stays on loopback. */
  env?: Record<string, string>;
  cwd?: string;
  /** Run inside this network namespace (a namespace file, see nodes/netns.ts). @default the caller's */
  netns?: string;
}

export interface ManagedProcess {
  readonly name: string;
  /** Process id, also the process group id. */
  readonly pid: number;
  readonly logPath: string;
  /** Resolves when the group leader exits. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** `undefined` while running, otherwise how it exited. */
  exitStatus(): string | undefined;
  /** The last `lines` lines of the log. */
  logTail(lines?: number): string;
  /** SIGTERM to the group, SIGKILL after `graceMs`; resolves once no process of the group is left. */
  stop(graceMs?: number): Promise<void>;
  /** SIGKILL to the group, synchronously (exit paths). */
  killNow(): void;
  /** SIGKILL to the group (a crash, not a shutdown); resolves once no process of the group is left. */
  kill(): Promise<void>;
}

const proxyVariables = [
  'http_proxy',
  'https_proxy',
  'all_proxy',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'ALL_PROXY',
  'grpc_proxy',
  'no_grpc_proxy',
];

/**
 * Environment for a child: ours plus `extra`, without proxies, with loopback exempt from any proxy; except the
 * gRPC proxy an environment with real nodes sets to its own loopback CONNECT proxy (environment.ts), so a
 * controller process started by a test reaches etcd members as the test does.
 */
export function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra, NO_PROXY: '*', no_proxy: '*' };
  const grpcProxy = env.grpc_proxy;
  const noGrpcProxy = env.no_grpc_proxy;
  for (const name of proxyVariables) delete env[name];
  if (grpcProxy?.startsWith('http://127.0.0.1:')) {
    env.grpc_proxy = grpcProxy;
    if (noGrpcProxy) env.no_grpc_proxy = noGrpcProxy;
  }
  return env;
}

export function startProcess(spec: ProcessSpec): ManagedProcess {
  const fd = openSync(spec.logPath, 'a');
  // nsenter enters the namespace and execs the command: same pid, same process group.
  const argv = spec.netns
    ? { command: 'nsenter', args: [`--net=${spec.netns}`, '--', spec.command, ...spec.args] }
    : { command: spec.command, args: spec.args };
  let child: ReturnType<typeof spawn>;
  try {
    child = spawn(argv.command, argv.args, {
      cwd: spec.cwd,
      env: childEnv(spec.env),
      detached: true,
      stdio: ['ignore', fd, fd],
    });
  } finally {
    closeSync(fd);
  }
  child.unref();
  let status: string | undefined;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('error', (error) => {
      status = `failed to start: ${error.message}`;
      resolve({ code: null, signal: null });
    });
    child.once('exit', (code, signal) => {
      status = signal ? `killed by ${signal}` : `exited with code ${code}`;
      resolve({ code, signal });
    });
  });
  const pid = child.pid ?? -1;
  const logTail = (lines = 40) => {
    try {
      return readFileSync(spec.logPath, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
    } catch {
      return '(no log)';
    }
  };
  const killNow = () => {
    if (pid > 0) killGroup(pid, 'SIGKILL');
  };
  const stop = async (graceMs = 5_000, signal: NodeJS.Signals = 'SIGTERM') => {
    if (pid <= 0) return;
    child.ref(); // keep the event loop alive until the group is gone
    killGroup(pid, signal);
    const deadline = Date.now() + graceMs;
    while (groupAlive(pid) && Date.now() < deadline) await sleep(50);
    killGroup(pid, 'SIGKILL');
    await exited;
    while (groupAlive(pid)) await sleep(20);
    child.unref();
  };
  return {
    name: spec.name,
    pid,
    logPath: spec.logPath,
    exited,
    exitStatus: () => status,
    logTail,
    stop: (graceMs?: number) => stop(graceMs),
    killNow,
    kill: () => stop(0, 'SIGKILL'),
  };
}

/** For a wait's `abortIf`: once `process` has exited, its name, exit status and log tail. */
export const whileRunning = (process: ManagedProcess) => () => {
  const status = process.exitStatus();
  return status && `${process.name} ${status}:\n${process.logTail(30)}`;
};
