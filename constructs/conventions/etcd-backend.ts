// Compaction, the backend quota and the etcd flags the product owns (docs/design/compaction-quota-defrag.md).
// Pure: the constructs validate and emit from it, the controller writes member flags from it.
import { parseDuration } from './duration.js';
import { quantityBytes } from './quantity.js';

export const AUTO_COMPACTION_MODES = ['periodic', 'revision'] as const;
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

/** The quota in force: `quotaBackendBytes`, else derived from the volume, else etcd's default (no volume size). */
export function effectiveQuotaBytes(spec: BackendSpec, defaultVolume: string): number {
  if (spec.quotaBackendBytes !== undefined) {
    const bytes = quantityBytes(spec.quotaBackendBytes);
    if (bytes === undefined) throw new Error(quotaMessage(spec.quotaBackendBytes));
    return Math.floor(bytes);
  }
  if (spec.storage?.ephemeral === true) return ETCD_DEFAULT_QUOTA_BYTES;
  const volume = quantityBytes(spec.storage?.size ?? defaultVolume);
  if (volume === undefined) throw new Error(`spec.storage.size: '${spec.storage?.size}' is not a quantity`);
  return defaultQuotaBackendBytes(volume);
}

function quotaMessage(value: string | number): string {
  return `spec.quotaBackendBytes: '${value}' is not a quantity; allowed: bytes such as 536870912, 512Mi or 8Gi`;
}

/** A Go duration (`24h0m0s` style, what etcd parses) for a whole number of milliseconds. */
export function goDuration(ms: number): string {
  const hours = Math.floor(ms / 3_600_000);
  const minutes = Math.floor((ms % 3_600_000) / 60_000);
  const seconds = (ms % 60_000) / 1000;
  return `${hours}h${minutes}m${seconds}s`;
}

/**
 * Why a retention does not fit its mode, or undefined when it does: `periodic` takes our duration grammar (at
 * least one second), `revision` a whole number of revisions (at least 1).
 */
export function retentionProblem(mode: string, retention: string): string | undefined {
  if (mode === 'revision') {
    return /^[1-9][0-9]*$/.test(retention)
      ? undefined
      : `spec.autoCompaction.retention: '${retention}' is not allowed in revision mode; allowed: a whole number of revisions such as 10000`;
  }
  const ms = parseDuration(retention);
  return ms !== undefined && ms >= 1000 && Number.isInteger(ms)
    ? undefined
    : `spec.autoCompaction.retention: '${retention}' is not allowed in periodic mode; allowed: a duration of at least 1s such as 30m, 1h or 1d`;
}

/** `--auto-compaction-mode`, `--auto-compaction-retention` and (with a known quota) `--quota-backend-bytes`. */
export function backendFlags(spec: BackendSpec, defaultVolume: string): string[] {
  const mode = spec.autoCompaction?.mode ?? DEFAULT_AUTO_COMPACTION_MODE;
  const retention = spec.autoCompaction?.retention ?? DEFAULT_AUTO_COMPACTION_RETENTION;
  const problem = retentionProblem(mode, retention);
  if (problem) throw new Error(problem);
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
  'cert-file': 'spec.tls (reserved)',
  'key-file': 'spec.tls (reserved)',
  'trusted-ca-file': 'spec.tls (reserved)',
  'client-cert-auth': 'spec.tls (reserved)',
  'auto-tls': 'spec.tls (reserved)',
  'peer-cert-file': 'spec.tls (reserved)',
  'peer-key-file': 'spec.tls (reserved)',
  'peer-trusted-ca-file': 'spec.tls (reserved)',
  'peer-client-cert-auth': 'spec.tls (reserved)',
  'peer-auto-tls': 'spec.tls (reserved)',
};

/** An etcd flag name as `spec.extraFlags` keys take it: lower-case words joined by `-`, no leading `--`. */
export const EXTRA_FLAG_NAME_PATTERN = '^[a-z0-9]+(-[a-z0-9]+)*$';

/** Why `spec.extraFlags[name]` is refused, or undefined when it is allowed. */
export function extraFlagProblem(name: string): string | undefined {
  if (!new RegExp(EXTRA_FLAG_NAME_PATTERN).test(name)) {
    return `spec.extraFlags: '${name}' is not an etcd flag name; allowed: the flag without its leading --, such as 'snapshot-count' or 'heartbeat-interval'`;
  }
  const owner = OWNED_ETCD_FLAGS[name];
  return owner
    ? `spec.extraFlags: '${name}' is set by ${owner} and cannot be passed as an extra flag`
    : undefined;
}

/** `--name=value` for each extra flag, by name; throws with the first refused flag. */
export function extraFlags(flags: Readonly<Record<string, string>> | undefined): string[] {
  return Object.keys(flags ?? {})
    .sort()
    .map((name) => {
      const problem = extraFlagProblem(name);
      if (problem) throw new Error(problem);
      return `--${name}=${flags?.[name]}`;
    });
}
