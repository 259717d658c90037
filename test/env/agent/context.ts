// What every Pod worker shares with the agent.
import type { CoreV1Api } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { AddressPool } from './addresses.js';
import type { BackoffPolicy } from './backoff.js';
import type { ConfigSources } from './env.js';
import type { ImageRule } from './images.js';
import type { MountPoints } from './mounts.js';
import type { IdentitySources } from './volumes.js';

export interface AgentContext {
  nodeName: string;
  hostIP: string;
  stateDir: string;
  log: Logger;
  core: CoreV1Api;
  config: ConfigSources;
  identity: IdentitySources;
  addresses: AddressPool;
  mountPoints: MountPoints;
  imageRules: readonly ImageRule[];
  backoff: BackoffPolicy;
  /** KUBERNETES_SERVICE_HOST/PORT and the like, under every container's own env. */
  baseEnv: Record<string, string>;
  /** A Pod's address, readiness or liveness changed: recompute DNS. */
  onEndpointsChanged(): void;
  /** Records a container's process group with the agent's reaper (killed even if this process is SIGKILLed). */
  recordProcessGroup(pid: number): void;
  /** A worker finished (its Pod is gone from this node). */
  onWorkerGone(uid: string): void;
}

/** `<stateDir>/logs/<ns>_<pod>_<container>.log` */
export function containerLogPath(
  stateDir: string,
  namespace: string,
  pod: string,
  container: string,
): string {
  return `${stateDir}/logs/${namespace}_${pod}_${container}.log`;
}
