// The controller process's life cycle (controller-runtime's manager):
//   1. serve /healthz, /readyz and /metrics at once (a standby is alive and ready, it just does not lead);
//   2. with leader election, wait for the Lease; without, lead at once;
//   3. as leader: start the informers, then the controllers (their workers wait for the caches to sync);
//   4. on shutdown (signal aborted): drain the queues up to the shutdown timeout, stop the informers, release
//      the Lease, close the servers → exit code 0;
//   5. on a lost Lease: abort running reconciles at once and return exit code 1, so the process restarts
//      clean instead of acting beside a new leader.
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { Controller } from './controller.js';
import type { ControllerFlags } from './flags.js';
import { healthRoutes, metricsRoutes, type ReadinessCheck, type RunningServer, serveHttp } from './http.js';
import type { SharedInformers } from './informers.js';
import { LeaderElector } from './leader-election.js';
import type { Metrics } from './metrics.js';

export interface ManagerOptions {
  readonly flags: ControllerFlags;
  readonly log: Logger;
  readonly kubeConfig: KubeConfig;
  readonly metrics: Metrics;
  readonly informers: SharedInformers;
  /** Builds the controllers once this process leads. */
  readonly controllers: () => Controller[];
  /** Aborted on SIGTERM/SIGINT. */
  readonly shutdown: AbortSignal;
  /** Leader identity. @default - `<$POD_NAME or hostname>_<random uuid>` */
  readonly identity?: string;
}

/** Exit codes of the `controller` subcommand. */
export const ExitCode = { ok: 0, leaseLost: 1, badArguments: 2, failed: 3 } as const;

export async function runManager(options: ManagerOptions): Promise<number> {
  const { flags, log, metrics, informers } = options;
  let leading = false;
  const ready: ReadinessCheck = () => {
    if (!leading) return flags.leaderElect ? undefined : 'starting';
    const unsynced = informers.unsynced();
    return unsynced.length > 0 ? `informers not synced: ${unsynced.join(', ')}` : undefined;
  };
  const servers = await startServers(flags, metrics, ready, log);
  try {
    const elector = flags.leaderElect ? electorFor(options) : undefined;
    if (elector && !(await acquired(elector, options.shutdown))) return ExitCode.ok;
    leading = true;
    metrics.setLeader(true);
    informers.start();
    const controllers = options.controllers();
    if (controllers.length === 0) log.warn('No reconcilers are wired: watching only');
    for (const controller of controllers) {
      controller.start().catch((error: unknown) => log.error({ err: error }, 'Controller failed to start'));
    }
    const outcome = elector
      ? await elector.holdLeadership(options.shutdown)
      : await aborted(options.shutdown);
    leading = false;
    metrics.setLeader(false);
    if (outcome === 'lost') {
      await Promise.all(controllers.map((controller) => controller.stop(0)));
      return ExitCode.leaseLost;
    }
    log.info({ timeoutMs: flags.shutdownTimeoutMs }, 'Shutting down');
    const results = await Promise.all(
      controllers.map((controller) => controller.stop(flags.shutdownTimeoutMs)),
    );
    await informers.stop();
    await elector?.release();
    log.info({ drained: results.every((result) => result.drained) }, 'Stopped');
    return ExitCode.ok;
  } finally {
    await Promise.all(servers.map((server) => server.close()));
  }
}

function electorFor(options: ManagerOptions): LeaderElector {
  const { flags } = options;
  return new LeaderElector({
    kubeConfig: options.kubeConfig,
    log: options.log,
    namespace: flags.leaderElectionNamespace,
    name: flags.leaderElectionId,
    identity: options.identity,
    leaseDurationMs: flags.leaseDurationMs,
    renewDeadlineMs: flags.renewDeadlineMs,
    retryPeriodMs: flags.retryPeriodMs,
  });
}

/** True once leading; false when shutdown came first. */
async function acquired(elector: LeaderElector, shutdown: AbortSignal): Promise<boolean> {
  try {
    await elector.acquire(shutdown);
    return true;
  } catch (error) {
    if (shutdown.aborted) return false;
    throw error;
  }
}

function aborted(signal: AbortSignal): Promise<'stopped'> {
  if (signal.aborted) return Promise.resolve('stopped');
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve('stopped'), { once: true }));
}

/** The health and metrics servers; one server when both flags name the same address. */
async function startServers(
  flags: ControllerFlags,
  metrics: Metrics,
  ready: ReadinessCheck,
  log: Logger,
): Promise<RunningServer[]> {
  const health = flags.healthProbeBindAddress;
  const metricsAt = flags.metricsBindAddress;
  const same =
    health &&
    metricsAt &&
    health.host === metricsAt.host &&
    health.port === metricsAt.port &&
    health.port !== 0;
  if (same) return [await serveHttp(health, { ...healthRoutes(ready), ...metricsRoutes(metrics) }, log)];
  const servers: RunningServer[] = [];
  if (health) servers.push(await serveHttp(health, healthRoutes(ready), log));
  if (metricsAt) servers.push(await serveHttp(metricsAt, metricsRoutes(metrics), log));
  return servers;
}
