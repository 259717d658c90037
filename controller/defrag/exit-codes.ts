// The exit codes of `etcd-gitops defrag`, documented in docs/design/compaction-quota-defrag.md ("The defrag job").

/** Named process exit codes; the CronJob's failed-Job reason relies on them. */
export const ExitCode = {
  /** Every answering member was defragmented; any `NOSPACE` alarm was disarmed. */
  OK: 0,
  /** A bug: an error nobody anticipated. */
  INTERNAL: 1,
  /** Bad flags; nothing was contacted. */
  USAGE: 2,
  /** No endpoint answered the member list, or fewer than a quorum of members answered Status; nothing touched. */
  ETCD_UNAVAILABLE: 3,
  /** Every answering member was defragmented, but a member's DB is still not below the quota: `NOSPACE` kept. */
  NOSPACE_KEPT: 4,
  /** A Defragment failed (the members after it were not touched), or the alarms could not be listed or disarmed. */
  PARTIAL: 5,
} as const;

export type ExitCodeName = keyof typeof ExitCode;

/** An expected failure that ends the command before it touched anything. */
export class DefragError extends Error {
  constructor(
    readonly code: ExitCodeName,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'DefragError';
  }
}
