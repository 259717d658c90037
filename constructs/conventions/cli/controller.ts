// `controller`: the operator Deployment's args, named as controller-runtime names them (README, "The controller").
import { HEALTH_PORT, METRICS_PORT } from '../ports.js';
import { Subcommand } from './commands.js';
import type { FlagTable, FlagValues } from './flag-table.js';
import { defineVerb } from './verb.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export const CONTROLLER_FLAGS = {
  leaderElect: { name: 'leader-elect', kind: 'boolean' },
  leaderElectionNamespace: { name: 'leader-election-namespace', kind: 'string' },
  leaderElectionId: { name: 'leader-election-id', kind: 'string' },
  leaseDuration: { name: 'lease-duration', kind: 'string', format: 'duration' },
  renewDeadline: { name: 'renew-deadline', kind: 'string', format: 'duration' },
  retryPeriod: { name: 'retry-period', kind: 'string', format: 'duration' },
  metricsBindAddress: { name: 'metrics-bind-address', kind: 'string' },
  healthProbeBindAddress: { name: 'health-probe-bind-address', kind: 'string' },
  concurrency: { name: 'concurrency', kind: 'integer', min: 1 },
  resyncPeriod: { name: 'resync-period', kind: 'string', format: 'duration' },
  watchNamespaces: { name: 'watch-namespaces', kind: 'list' },
  logLevel: { name: 'log-level', kind: 'string', allowed: LOG_LEVELS },
  shutdownTimeout: { name: 'shutdown-timeout', kind: 'string', format: 'duration' },
} as const satisfies FlagTable;

export type ControllerArgs = FlagValues<typeof CONTROLLER_FLAGS>;

export const controllerCommand = defineVerb([Subcommand.CONTROLLER], CONTROLLER_FLAGS);

/** What the operator Deployment runs, and so the image's default command (without `watchNamespaces`): leader
 *  election on, metrics and probes on their ports on every address, every namespace or only `watchNamespaces`. */
export function operatorControllerArgs(watchNamespaces?: readonly string[]): string[] {
  return controllerCommand.args({
    leaderElect: true,
    metricsBindAddress: `:${METRICS_PORT}`,
    healthProbeBindAddress: `:${HEALTH_PORT}`,
    ...(watchNamespaces ? { watchNamespaces } : {}),
  });
}
