// Why a seed Pod's `restore fetch` init container failed, read from the Pod's status (pure). The container runs with
// `terminationMessagePolicy: FallbackToLogsOnError`, so the kubelet puts the tail of its log in the terminated
// state's `message`; the command's last log line is JSON with `code` (the failure reason) and `reason` (what
// failed). Without that line (an older kubelet, a log cut short) the exit code names the possible reasons.
import type { V1Pod } from '@kubernetes/client-node';
import { type FailureReason, failureExitCodes, RestoreExitCode } from './exit-codes.js';
import { RESTORE_INIT_CONTAINER } from './seed-init-container.js';

export interface RestoreInitFailure {
  readonly exitCode: number;
  /** The failure reason of the command's last log line, e.g. `BackupNotFound`. */
  readonly code?: FailureReason | string;
  /** What failed, in the command's words. */
  readonly detail?: string;
  readonly restarts: number;
}

interface FailureLine {
  readonly code?: unknown;
  readonly reason?: unknown;
  readonly msg?: unknown;
}

/** The last JSON line of a termination message that names a failure `code`. */
function lastFailureLine(message: string | undefined): FailureLine | undefined {
  const lines = (message ?? '').split('\n').reverse();
  for (const line of lines) {
    if (!line.trim().startsWith('{')) continue;
    try {
      const parsed = JSON.parse(line) as FailureLine;
      if (typeof parsed.code === 'string') return parsed;
    } catch {
      // a line cut by the kubelet's byte limit: look further up
    }
  }
  return undefined;
}

/** The restore init container's most recent failure, or `undefined` while it has not failed (or succeeded). */
export function restoreInitFailure(pod: V1Pod): RestoreInitFailure | undefined {
  const status = pod.status?.initContainerStatuses?.find((init) => init.name === RESTORE_INIT_CONTAINER);
  const terminated = status?.state?.terminated ?? status?.lastState?.terminated;
  if (!terminated || terminated.exitCode === 0) return undefined;
  const line = lastFailureLine(terminated.message);
  return {
    exitCode: terminated.exitCode,
    ...(typeof line?.code === 'string' ? { code: line.code } : {}),
    ...(typeof line?.reason === 'string' ? { detail: line.reason } : {}),
    restarts: status?.restartCount ?? 0,
  };
}

/** Reasons a retry of the same command can get past by itself: the store or the survivor did not answer. */
const TRANSIENT_REASONS: ReadonlySet<FailureReason> = new Set<FailureReason>([
  'S3Unavailable',
  'MemberUnavailable',
]);

/** The failure reasons whose exit code this is (none for an internal error or a signal). */
function reasonsWithExitCode(exitCode: number): FailureReason[] {
  return (Object.entries(failureExitCodes) as [FailureReason, number][])
    .filter(([, code]) => code === exitCode)
    .map(([reason]) => reason);
}

/**
 * Whether the kubelet's next retry of the init container may succeed with nothing changed: the reason the command
 * named is transient, or, when its status names none of ours, any reason its exit code allows is (an internal
 * error or a kill allows anything). The other reasons (a missing backup, refused credentials, a checksum, a
 * snapshot that is not ours…) fail the same way until the user changes something (docs/design/conventions.md,
 * "Conditions and health").
 */
export function isTransientRestoreFailure(failure: RestoreInitFailure): boolean {
  const possible =
    failure.code !== undefined && failure.code in failureExitCodes
      ? [failure.code as FailureReason]
      : reasonsWithExitCode(failure.exitCode);
  return possible.length === 0 || possible.some((reason) => TRANSIENT_REASONS.has(reason));
}

/** The failure reasons an exit code stands for (`4` → BackupNotFound, AccessDenied or S3Unavailable). */
export function reasonsOfExitCode(exitCode: number): string {
  const reasons = reasonsWithExitCode(exitCode);
  if (reasons.length === 0) {
    if (exitCode === RestoreExitCode.INTERNAL) return 'an unexpected error';
    return exitCode >= 128 ? `killed by signal ${exitCode - 128}` : 'an unknown failure';
  }
  return reasons.length === 1
    ? (reasons[0] as string)
    : `${reasons.slice(0, -1).join(', ')} or ${reasons[reasons.length - 1]}`;
}

/** One line for conditions and Events: `exit code 4 (BackupNotFound: no object ...) after 2 restart(s)`. */
export function describeRestoreInitFailure(failure: RestoreInitFailure): string {
  const why = failure.code
    ? `${failure.code}${failure.detail ? `: ${failure.detail}` : ''}`
    : reasonsOfExitCode(failure.exitCode);
  return `exit code ${failure.exitCode} (${why}) after ${failure.restarts} restart(s)`;
}

/** What both controllers read of a seed Pod's failed restore: one line, and whether the kubelet's retry may clear it. */
export interface SeedRestoreFailure {
  readonly description: string;
  readonly transient: boolean;
}

export function seedRestoreFailure(pod: V1Pod): SeedRestoreFailure | undefined {
  const failure = restoreInitFailure(pod);
  if (!failure) return undefined;
  return { description: describeRestoreInitFailure(failure), transient: isTransientRestoreFailure(failure) };
}
