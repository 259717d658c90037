// The `controller` subcommand's flags, named as controller-runtime names them. The flags are the table in
// constructs/conventions/cli/controller.ts, the same the operator Deployment's args are written from.
import { CONTROLLER_FLAGS, controllerCommand } from '../../constructs/conventions/cli/controller.js';
import { parseDuration } from '../../constructs/conventions/duration.js';
import { CONTROLLER_NAME, DEFAULT_OPERATOR_NAMESPACE } from '../../constructs/conventions/names.js';
import { HEALTH_PORT, METRICS_PORT } from '../../constructs/conventions/ports.js';
import { type BindAddress, parseBindAddress } from './bind-address.js';

/**
 * `--resync-period` when not given: every object is passed again at least this often, and the EtcdCluster
 * reconciler's readings of a cluster at rest are reused at most this long (its quiet passes).
 */
export const DEFAULT_RESYNC_PERIOD_MS = 300_000;

export interface ControllerFlags {
  readonly leaderElect: boolean;
  readonly leaderElectionNamespace: string;
  readonly leaderElectionId: string;
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
  /** undefined = disabled (`0`). */
  readonly metricsBindAddress: BindAddress | undefined;
  readonly healthProbeBindAddress: BindAddress | undefined;
  readonly concurrency: number;
  readonly resyncPeriodMs: number;
  /** Watch only these namespaces (the operator's `watchNamespaces`). @default - every namespace */
  readonly watchNamespaces: readonly string[] | undefined;
  readonly logLevel: string;
  /** How long shutdown waits for running reconciles before aborting them. */
  readonly shutdownTimeoutMs: number;
}

function durationMs(value: string | undefined, fallback: number): number {
  return value === undefined ? fallback : (parseDuration(value) ?? fallback);
}

function bindAddress(
  flag: { readonly name: string },
  value: string | undefined,
  port: number,
): BindAddress | undefined {
  return value === undefined ? { host: undefined, port } : parseBindAddress(`--${flag.name}`, value);
}

/**
 * Parses `--flag=value`, `--flag value`, bare booleans and `--flag=true|false`; throws on unknown flags and bad
 * values. Defaults are controller-runtime's timings, the Pod's namespace for the Lease, and our ports.
 */
export function parseControllerFlags(argv: readonly string[], env: NodeJS.ProcessEnv = {}): ControllerFlags {
  const args = controllerCommand.decode(argv);
  return validate({
    leaderElect: args.leaderElect ?? false,
    leaderElectionNamespace:
      args.leaderElectionNamespace ?? (env.POD_NAMESPACE || DEFAULT_OPERATOR_NAMESPACE),
    leaderElectionId: args.leaderElectionId ?? CONTROLLER_NAME,
    leaseDurationMs: durationMs(args.leaseDuration, 15_000),
    renewDeadlineMs: durationMs(args.renewDeadline, 10_000),
    retryPeriodMs: durationMs(args.retryPeriod, 2_000),
    metricsBindAddress: bindAddress(
      CONTROLLER_FLAGS.metricsBindAddress,
      args.metricsBindAddress,
      METRICS_PORT,
    ),
    healthProbeBindAddress: bindAddress(
      CONTROLLER_FLAGS.healthProbeBindAddress,
      args.healthProbeBindAddress,
      HEALTH_PORT,
    ),
    concurrency: args.concurrency ?? 4,
    resyncPeriodMs: durationMs(args.resyncPeriod, DEFAULT_RESYNC_PERIOD_MS),
    watchNamespaces: args.watchNamespaces?.length ? args.watchNamespaces : undefined,
    logLevel: args.logLevel ?? 'info',
    shutdownTimeoutMs: durationMs(args.shutdownTimeout, 20_000),
  });
}

function validate(flags: ControllerFlags): ControllerFlags {
  if (!(flags.leaseDurationMs > flags.renewDeadlineMs && flags.renewDeadlineMs > flags.retryPeriodMs)) {
    throw new Error(
      `leader election needs --lease-duration > --renew-deadline > --retry-period, got ${flags.leaseDurationMs} ms, ${flags.renewDeadlineMs} ms, ${flags.retryPeriodMs} ms`,
    );
  }
  return flags;
}
