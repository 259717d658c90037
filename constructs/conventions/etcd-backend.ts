// Compaction, the backend quota and the etcd flags the product owns (docs/design/compaction-quota-defrag.md).
// Pure: the constructs validate and emit from it, the controller writes member flags from it.
import { parseDuration } from './duration.js';
import { quantityBytes } from './quantity.js';

/** etcd's `--auto-compaction-mode` values: keep a time window (`periodic`) or a number of revisions (`revision`). */
export const AUTO_COMPACTION_MODES = ['periodic', 'revision'] as const;
/** One of {@link AUTO_COMPACTION_MODES}. */
export type AutoCompactionMode = (typeof AUTO_COMPACTION_MODES)[number];

/** `--auto-compaction-mode` unless `spec.autoCompaction.mode` says otherwise. */
export const DEFAULT_AUTO_COMPACTION_MODE: AutoCompactionMode = 'periodic';
/** `--auto-compaction-retention` in `periodic` mode unless `spec.autoCompaction.retention` says otherwise. */
export const DEFAULT_AUTO_COMPACTION_RETENTION = '1h';

/** etcd's recommended largest backend. */
export const MAX_DEFAULT_QUOTA_BYTES = 8 * 2 ** 30;
/** What the WAL and snapshot files get before the quota is derived: at most this, at most a quarter of the volume. */
export const WAL_RESERVE_BYTES = 256 * 2 ** 20;
/** etcd's own `--quota-backend-bytes` default, in force when the volume has no size (ephemeral storage). */
export const ETCD_DEFAULT_QUOTA_BYTES = 2 * 2 ** 30;

/**
 * The backend quota a volume of `volumeBytes` gets: half of what the WAL reserve leaves (defragmentation writes
 * the compacted database into a second file before swapping it in), at most {@link MAX_DEFAULT_QUOTA_BYTES}.
 */
export function defaultQuotaBackendBytes(volumeBytes: number): number {
  const reserve = Math.min(WAL_RESERVE_BYTES, Math.floor(volumeBytes / 4));
  return Math.min(MAX_DEFAULT_QUOTA_BYTES, Math.floor((volumeBytes - reserve) / 2));
}

/** What a cluster's spec says about its backend, as the constructs and the controller both read it. */
export interface BackendSpec {
  readonly storage?: { readonly size?: string | number; readonly ephemeral?: boolean };
  readonly quotaBackendBytes?: string | number;
  readonly autoCompaction?: { readonly mode?: string; readonly retention?: string };
}

/** A spec value the product refuses: the field, the value and what is allowed. */
export interface SpecProblem {
  readonly field: string;
  readonly value: string;
  readonly allowed: string;
}

/** `<field>: '<value>' is not allowed; allowed: <allowed>` */
export function describeProblem(problem: SpecProblem): string {
  return `${problem.field}: '${problem.value}' is not allowed; allowed: ${problem.allowed}`;
}

function volumeBytes(spec: BackendSpec, defaultVolume: string): number | undefined {
  return spec.storage?.ephemeral === true ? undefined : quantityBytes(spec.storage?.size ?? defaultVolume);
}

/** The smallest `quotaBackendBytes`. */
export const MIN_QUOTA_BACKEND = '1Mi';

/** What `quotaBackendBytes` may be, with the member volume's size when it has one (not ephemeral). */
export function quotaAllowed(volumeSize?: string): string {
  return `bytes such as 536870912, 512Mi or 8Gi, from ${MIN_QUOTA_BACKEND}${volumeSize ? ` to the volume size (${volumeSize})` : ''}`;
}

/** Why `quotaBackendBytes` is refused: not a quantity, below 1 MiB, or larger than the member volume. */
export function quotaProblem(spec: BackendSpec, defaultVolume: string): SpecProblem | undefined {
  if (spec.quotaBackendBytes === undefined) return undefined;
  const value = String(spec.quotaBackendBytes);
  const bytes = quantityBytes(spec.quotaBackendBytes);
  const volume = volumeBytes(spec, defaultVolume);
  const allowed = quotaAllowed(volume ? String(spec.storage?.size ?? defaultVolume) : undefined);
  if (
    bytes === undefined ||
    bytes < (quantityBytes(MIN_QUOTA_BACKEND) as number) ||
    (volume !== undefined && bytes > volume)
  ) {
    return { field: 'spec.quotaBackendBytes', value, allowed };
  }
  return undefined;
}

/** The quota in force: `quotaBackendBytes`, else derived from the volume, else etcd's default (no volume size). */
export function effectiveQuotaBytes(spec: BackendSpec, defaultVolume: string): number {
  const problem = quotaProblem(spec, defaultVolume);
  if (problem) throw new Error(describeProblem(problem));
  if (spec.quotaBackendBytes !== undefined)
    return Math.floor(quantityBytes(spec.quotaBackendBytes) as number);
  const volume = volumeBytes(spec, defaultVolume);
  if (spec.storage?.ephemeral === true) return ETCD_DEFAULT_QUOTA_BYTES;
  if (volume === undefined) throw new Error(`spec.storage.size: '${spec.storage?.size}' is not a quantity`);
  return defaultQuotaBackendBytes(volume);
}

/** A Go duration (`24h0m0s` style, what etcd parses) for a whole number of milliseconds. */
export function goDuration(ms: number): string {
  const hours = Math.floor(ms / 3_600_000);
  const minutes = Math.floor((ms % 3_600_000) / 60_000);
  const seconds = (ms % 60_000) / 1000;
  return `${hours}h${minutes}m${seconds}s`;
}

/**
 * Why a compaction setting is refused: `mode` is `periodic` or `revision`; `periodic` takes our duration grammar
 * (at least one second, whole milliseconds), `revision` a whole number of revisions (at least 1).
 */
export function compactionProblem(mode: string, retention: string): SpecProblem | undefined {
  if (!(AUTO_COMPACTION_MODES as readonly string[]).includes(mode)) {
    return { field: 'spec.autoCompaction.mode', value: mode, allowed: AUTO_COMPACTION_MODES.join(' or ') };
  }
  const field = 'spec.autoCompaction.retention';
  if (mode === 'revision') {
    return /^[1-9][0-9]*$/.test(retention)
      ? undefined
      : { field, value: retention, allowed: 'in revision mode, a whole number of revisions such as 10000' };
  }
  const ms = parseDuration(retention);
  return ms !== undefined && ms >= 1000 && Number.isInteger(ms)
    ? undefined
    : {
        field,
        value: retention,
        allowed: 'in periodic mode, a duration of at least 1s such as 30m, 1h or 1d',
      };
}

/** `--auto-compaction-mode`, `--auto-compaction-retention` and (with a known quota) `--quota-backend-bytes`. */
export function backendFlags(spec: BackendSpec, defaultVolume: string): string[] {
  const mode = spec.autoCompaction?.mode ?? DEFAULT_AUTO_COMPACTION_MODE;
  const retention = spec.autoCompaction?.retention ?? DEFAULT_AUTO_COMPACTION_RETENTION;
  const problem = compactionProblem(mode, retention);
  if (problem) throw new Error(describeProblem(problem));
  const value = mode === 'revision' ? retention : goDuration(parseDuration(retention) as number);
  const flags = [`--auto-compaction-mode=${mode}`, `--auto-compaction-retention=${value}`];
  if (spec.quotaBackendBytes !== undefined || spec.storage?.ephemeral !== true) {
    flags.push(`--quota-backend-bytes=${effectiveQuotaBytes(spec, defaultVolume)}`);
  }
  return flags;
}

/** etcd flags the product sets itself, each with the field or part that owns it. */
export const OWNED_ETCD_FLAGS: Readonly<Record<string, string>> = {
  name: 'the controller (member identity)',
  'data-dir': 'the controller (the member volume)',
  'wal-dir': 'the controller (the member volume)',
  'listen-peer-urls': 'the controller (member addresses)',
  'listen-client-urls': 'the controller (member addresses)',
  'listen-metrics-urls': 'the controller (member addresses)',
  'advertise-client-urls': 'the controller (member addresses)',
  'initial-advertise-peer-urls': 'the controller (member addresses)',
  'initial-cluster': 'the controller (membership)',
  'initial-cluster-state': 'the controller (membership)',
  'initial-cluster-token': 'the controller (membership)',
  'force-new-cluster': 'the controller (membership and restore)',
  discovery: 'the controller (membership)',
  'discovery-srv': 'the controller (membership)',
  'auto-compaction-mode': 'spec.autoCompaction.mode',
  'auto-compaction-retention': 'spec.autoCompaction.retention',
  'quota-backend-bytes': 'spec.quotaBackendBytes',
  'cert-file': 'spec.tls.client',
  'key-file': 'spec.tls.client',
  'trusted-ca-file': 'spec.tls.client',
  'client-cert-auth': 'spec.tls.client',
  'auto-tls': 'spec.tls.client',
  // They point at files only spec.tls mounts, or switch off a check spec.tls relies on (docs/design/tls.md).
  'client-cert-file': 'spec.tls.client',
  'client-key-file': 'spec.tls.client',
  'client-crl-file': 'spec.tls.client',
  'client-cert-allowed-hostname': 'spec.tls.client',
  'peer-cert-file': 'spec.tls.peer',
  'peer-key-file': 'spec.tls.peer',
  'peer-trusted-ca-file': 'spec.tls.peer',
  'peer-client-cert-auth': 'spec.tls.peer',
  'peer-auto-tls': 'spec.tls.peer',
  'peer-client-cert-file': 'spec.tls.peer',
  'peer-client-key-file': 'spec.tls.peer',
  'peer-crl-file': 'spec.tls.peer',
  'peer-cert-allowed-cn': 'spec.tls.peer',
  'peer-cert-allowed-hostname': 'spec.tls.peer',
  'peer-skip-client-san-verification': 'spec.tls.peer',
  'experimental-peer-skip-client-san-verification': 'spec.tls.peer',
  'self-signed-cert-validity': 'spec.tls',
};

/** An etcd flag name as `spec.extraFlags` keys take it: lower-case words joined by `-`, no leading `--`. */
export const EXTRA_FLAG_NAME_PATTERN = '^[a-z0-9]+(-[a-z0-9]+)*$';

/** Why `spec.extraFlags[name]` is refused, or undefined when it is allowed. */
export function extraFlagProblem(name: string): SpecProblem | undefined {
  const field = 'spec.extraFlags';
  if (!new RegExp(EXTRA_FLAG_NAME_PATTERN).test(name)) {
    return {
      field,
      value: name,
      allowed: "an etcd flag name without its leading --, such as 'snapshot-count' or 'heartbeat-interval'",
    };
  }
  const owner = OWNED_ETCD_FLAGS[name];
  return owner
    ? { field, value: name, allowed: `a flag the product does not set (${owner} sets it)` }
    : undefined;
}

/** `--name=value` for each extra flag, by name; throws with the first refused flag. */
export function extraFlags(flags: Readonly<Record<string, string>> | undefined): string[] {
  return Object.keys(flags ?? {})
    .sort()
    .map((name) => {
      const problem = extraFlagProblem(name);
      if (problem) throw new Error(describeProblem(problem));
      return `--${name}=${flags?.[name]}`;
    });
}

/** The first refused backend setting of a spec: compaction, quota, extra flags. */
export function backendProblem(
  spec: BackendSpec & { readonly extraFlags?: Readonly<Record<string, string>> },
  defaultVolume: string,
): SpecProblem | undefined {
  const compaction = compactionProblem(
    spec.autoCompaction?.mode ?? DEFAULT_AUTO_COMPACTION_MODE,
    spec.autoCompaction?.retention ?? DEFAULT_AUTO_COMPACTION_RETENTION,
  );
  return (
    compaction ??
    quotaProblem(spec, defaultVolume) ??
    Object.keys(spec.extraFlags ?? {})
      .sort()
      .map(extraFlagProblem)
      .find((problem) => problem !== undefined)
  );
}
