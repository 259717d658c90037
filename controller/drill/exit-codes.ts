// The exit codes of `etcd-gitops drill` (docs/design/restore-drill.md): `fetch` fails with the restore command's
// codes (controller/restore/exit-codes.ts); `check` adds one of its own.
import { RestoreExitCode } from '../restore/exit-codes.js';

export const DrillExitCode = {
  ...RestoreExitCode,
  /** The restored etcd answered, but with a revision below the backup's recorded one plus the bump. */
  REVISION_MISMATCH: 10,
} as const;

export type DrillExitCodeName = keyof typeof DrillExitCode;

/** The name of an exit code of ours, or undefined. */
export function drillExitCodeName(code: number): DrillExitCodeName | undefined {
  return (Object.keys(DrillExitCode) as DrillExitCodeName[]).find((name) => DrillExitCode[name] === code);
}

/** A failed check: its exit code's name and what was found. */
export class DrillError extends Error {
  constructor(
    readonly code: DrillExitCodeName,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'DrillError';
  }
}
