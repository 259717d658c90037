// Why a restore fails, as a condition reason (EtcdRestore status, Events) and as the exit code of
// `etcd-gitops restore fetch`: the backup command's codes (controller/backup/exit-codes.ts, README "Backups")
// plus two of its own. Documented in docs/design/restore.md ("Failure reasons and exit codes").
import { ExitCode } from '../backup/exit-codes.js';

export const RestoreExitCode = {
  ...ExitCode,
  /** The object is not a backup of ours, or its snapshot comes from a newer etcd minor than the cluster's. */
  BACKUP_REFUSED: 7,
  /** `etcdutl`/`etcdctl snapshot restore` failed or could not be found; no data dir was created. */
  RESTORE_FAILED: 8,
} as const;

/** Condition reasons of a refused or failed restore, each with its exit code. */
export const failureExitCodes = {
  InvalidArguments: RestoreExitCode.USAGE,
  /** `from-member`: the surviving member did not answer, or its snapshot stream broke off. */
  MemberUnavailable: RestoreExitCode.ETCD_UNAVAILABLE,
  /** `from-member`: the URL answered as another member than the one chosen. */
  WrongMember: RestoreExitCode.BACKUP_REFUSED,
  BackupNotFound: RestoreExitCode.S3_ERROR,
  AccessDenied: RestoreExitCode.S3_ERROR,
  S3Unavailable: RestoreExitCode.S3_ERROR,
  ChecksumMismatch: RestoreExitCode.CHECKSUM_MISMATCH,
  NotABackup: RestoreExitCode.BACKUP_REFUSED,
  SnapshotFromNewerEtcd: RestoreExitCode.BACKUP_REFUSED,
  RestoreFailed: RestoreExitCode.RESTORE_FAILED,
  DataDirNotEmpty: RestoreExitCode.RESTORE_FAILED,
} as const;

export type FailureReason = keyof typeof failureExitCodes;

/** An expected failure: a reason, and a message naming what failed and what was left untouched. */
export class RestoreError extends Error {
  constructor(
    readonly reason: FailureReason,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'RestoreError';
  }

  get exitCode(): number {
    return failureExitCodes[this.reason];
  }
}
