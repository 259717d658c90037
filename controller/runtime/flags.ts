// The `controller` subcommand's flags, named as controller-runtime names them.
import { type BindAddress, parseBindAddress } from './bind-address.js';
import { parseDuration } from './duration.js';

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
  /** Watch only this namespace. @default - every namespace */
  readonly namespace: string | undefined;
  readonly logLevel: string;
  /** How long shutdown waits for running reconciles before aborting them. */
  readonly shutdownTimeoutMs: number;
}

type Parser = (flags: Record<string, unknown>, value: string, flag: string) => void;

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function positiveInt(flag: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`'${flag}' must be a positive integer, got '${value}'`);
  return n;
}

function bool(flag: string, value: string): boolean {
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new Error(`'${flag}' must be true or false, got '${value}'`);
}

const parsers: Record<string, Parser> = {
  'leader-elect': (f, v, flag) => (f.leaderElect = bool(flag, v)),
  'leader-election-namespace': (f, v) => (f.leaderElectionNamespace = v),
  'leader-election-id': (f, v) => (f.leaderElectionId = v),
  'lease-duration': (f, v, flag) => (f.leaseDurationMs = parseDuration(flag, v)),
  'renew-deadline': (f, v, flag) => (f.renewDeadlineMs = parseDuration(flag, v)),
  'retry-period': (f, v, flag) => (f.retryPeriodMs = parseDuration(flag, v)),
  'metrics-bind-address': (f, v, flag) => (f.metricsBindAddress = parseBindAddress(flag, v)),
  'health-probe-bind-address': (f, v, flag) => (f.healthProbeBindAddress = parseBindAddress(flag, v)),
  concurrency: (f, v, flag) => (f.concurrency = positiveInt(flag, v)),
  'resync-period': (f, v, flag) => (f.resyncPeriodMs = parseDuration(flag, v)),
  namespace: (f, v) => (f.namespace = v === '' ? undefined : v),
  'log-level': (f, v, flag) => {
    if (!logLevels.includes(v))
      throw new Error(`'${flag}' must be one of ${logLevels.join(', ')}, got '${v}'`);
    f.logLevel = v;
  },
  'shutdown-timeout': (f, v, flag) => (f.shutdownTimeoutMs = parseDuration(flag, v)),
};
const booleanFlags = new Set(['leader-elect']);

function defaults(env: NodeJS.ProcessEnv): ControllerFlags {
  return {
    leaderElect: false,
    leaderElectionNamespace: env.POD_NAMESPACE || 'etcd-gitops-system',
    leaderElectionId: 'etcd-gitops-controller',
    leaseDurationMs: 15_000,
    renewDeadlineMs: 10_000,
    retryPeriodMs: 2_000,
    metricsBindAddress: { host: undefined, port: 8080 },
    healthProbeBindAddress: { host: undefined, port: 8081 },
    concurrency: 4,
    resyncPeriodMs: 300_000,
    namespace: undefined,
    logLevel: 'info',
    shutdownTimeoutMs: 20_000,
  };
}

/** Parses `--flag=value`, `--flag value` and bare boolean `--flag`; throws on unknown flags and bad values. */
export function parseControllerFlags(argv: readonly string[], env: NodeJS.ProcessEnv = {}): ControllerFlags {
  const flags: Record<string, unknown> = { ...defaults(env) };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    const match = /^--([a-z-]+)(?:=(.*))?$/s.exec(arg);
    const name = match?.[1] ?? '';
    const parse = parsers[name];
    if (!match || !parse)
      throw new Error(
        `unknown argument '${arg}'; flags: ${Object.keys(parsers)
          .map((n) => `--${n}`)
          .join(', ')}`,
      );
    let value = match[2];
    if (value === undefined && booleanFlags.has(name)) value = 'true';
    if (value === undefined) {
      i += 1;
      value = argv[i];
      if (value === undefined) throw new Error(`'--${name}' needs a value`);
    }
    parse(flags, value, `--${name}`);
  }
  return validate(flags as unknown as ControllerFlags);
}

function validate(flags: ControllerFlags): ControllerFlags {
  if (!(flags.leaseDurationMs > flags.renewDeadlineMs && flags.renewDeadlineMs > flags.retryPeriodMs)) {
    throw new Error(
      `leader election needs --lease-duration > --renew-deadline > --retry-period, got ${flags.leaseDurationMs} ms, ${flags.renewDeadlineMs} ms, ${flags.retryPeriodMs} ms`,
    );
  }
  return flags;
}
