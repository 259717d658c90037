// The exit codes of `etcd-gitops backup`, documented in README.md ("## Backups") and docs/design/backup.md.

/** Named process exit codes; scripts and the CronJob's failed-Job reason rely on them. */
export const ExitCode = {
  /** Done. */
  OK: 0,
  /** A bug: an error nobody anticipated. */
  INTERNAL: 1,
  /** Bad flags; nothing was contacted. */
  USAGE: 2,
  /** No healthy etcd member answered, or the snapshot stream failed; nothing was written. */
  ETCD_UNAVAILABLE: 3,
  /** S3 endpoint, credentials, bucket, or an upload/list/copy failed; no backup written, nothing deleted. */
  S3_ERROR: 4,
  /** A snapshot or object does not match its checksum. */
  CHECKSUM_MISMATCH: 5,
  /** The new backup is stored and complete, but retention or the staging sweep could not delete old objects. */
  RETENTION_FAILED: 6,
  /** `save` got SIGTERM or SIGINT (Job deadline or deletion): the upload was aborted, nothing written or deleted. */
  INTERRUPTED: 9,
} as const;

export type ExitCodeName = keyof typeof ExitCode;

/** An expected failure: carries the exit code and what was left untouched, for the log line. */
export class BackupError extends Error {
  constructor(
    readonly code: ExitCodeName,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'BackupError';
  }
}
