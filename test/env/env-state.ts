// Where `npm run env:up` keeps the background environment: $ETCD_GITOPS_ENV_DIR, else
// ${XDG_RUNTIME_DIR:-/tmp}/etcd-gitops-env. Everything in it is removed by `npm run env:down`.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const stateDir =
  process.env.ETCD_GITOPS_ENV_DIR ?? join(process.env.XDG_RUNTIME_DIR ?? '/tmp', 'etcd-gitops-env');

export const statePaths = {
  /** Pid of the daemon process that holds the environment (written by `up` as soon as it spawns it). */
  pid: join(stateDir, 'daemon.pid'),
  /** The daemon's structured log. */
  log: join(stateDir, 'daemon.log'),
  /** Written by the daemon once the environment is ready: {@link EnvState}. */
  ready: join(stateDir, 'state.json'),
  /** A copy of the admin kubeconfig at a stable path. */
  kubeconfig: join(stateDir, 'kubeconfig'),
  /** The control plane's own directory (certificates, etcd data, component logs, nodes). */
  cluster: join(stateDir, 'cluster'),
};

export interface EnvState {
  pid: number;
  server: string;
  kubeconfig: string;
  kubectl: string;
  kubernetesVersion: string;
  /** Real nodes (0: control plane only). */
  nodes: number;
  minio?: { endpoint: string; accessKey: string; secretKey: string };
  logs: string;
}

export function readState(): EnvState | undefined {
  return existsSync(statePaths.ready)
    ? (JSON.parse(readFileSync(statePaths.ready, 'utf8')) as EnvState)
    : undefined;
}

/** The daemon's pid if it is alive and really is our daemon (not a reused pid). */
export function liveDaemonPid(): number | undefined {
  if (!existsSync(statePaths.pid)) return undefined;
  const pid = Number(readFileSync(statePaths.pid, 'utf8').trim());
  return isDaemon(pid) ? pid : undefined;
}

/**
 * Whether `pid` is a live daemon process (not a zombie, not a reused pid). Asked by pid, not through the pid file:
 * the daemon removes its state directory, pid file included, before it exits.
 */
export function isDaemon(pid: number): boolean {
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const zombie = stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
    return !zombie && cmdline.some((arg) => arg.endsWith('cli.js')) && cmdline.includes('daemon');
  } catch {
    return false;
  }
}
