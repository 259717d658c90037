// `etcd-gitops backup save|status`: flags → options → verb; logs as JSON on stderr, results on stdout,
// named exit codes (exit-codes.ts, README "## Backups").
import pino, { type Logger } from 'pino';
import { backupSave } from '../../constructs/conventions/cli/backup-save.js';
import { backupStatus } from '../../constructs/conventions/cli/backup-status.js';
import { BackupVerb } from '../../constructs/conventions/cli/commands.js';
import { parseSaveArgs, parseStatusArgs } from './cli-args.js';
import { BackupError, ExitCode, type ExitCodeName } from './exit-codes.js';
import { formatTable } from './format.js';
import { save } from './save.js';
import { status } from './status.js';
import { type BackupReport, encodeBackupReport, REPORT_VERSION, writeReport } from './termination-report.js';

const usageText = `usage: ${backupSave.usage}
       ${backupStatus.usage}
flags: docs/design/conventions.md ("backup save flags"); exit codes: README.md ("Backups")`;

/** Runs one verb; resolves the exit code. Never throws. `signal` interrupts `save` (exit `INTERRUPTED`). */
export async function runBackup(
  args: string[],
  log: Logger,
  out: (text: string) => void,
  signal?: AbortSignal,
): Promise<number> {
  const [verb, ...rest] = args;
  try {
    if (verb === BackupVerb.SAVE) return await runSave(rest, log, out, signal);
    if (verb === BackupVerb.STATUS || verb === 'list') {
      const { output, ...options } = parseStatusArgs(rest);
      const report = await status(options, log);
      out(output === 'json' ? `${JSON.stringify(report, null, 2)}\n` : formatTable(report));
      const bad = report.backups.filter((b) => b.verified !== undefined && b.verified !== 'ok');
      if (bad.some((b) => b.verified === 'mismatch')) {
        log.error({ mismatched: bad.map((b) => b.key) }, 'Backups do not match their recorded checksums');
        return ExitCode.CHECKSUM_MISMATCH;
      }
      if (bad.length > 0) {
        log.error({ unreadable: bad.map((b) => b.key) }, 'Backups could not be read');
        return ExitCode.S3_ERROR;
      }
      return ExitCode.OK;
    }
    throw new BackupError('USAGE', `unknown verb '${verb ?? ''}'\n${usageText}`);
  } catch (error) {
    if (error instanceof BackupError) {
      log.error(
        { exitCode: ExitCode[error.code], code: error.code, reason: error.message },
        `Backup ${verb} failed`,
      );
      return ExitCode[error.code];
    }
    log.error({ exitCode: ExitCode.INTERNAL, err: error }, `Backup ${verb} failed unexpectedly`);
    return ExitCode.INTERNAL;
  }
}

/**
 * `backup save`: the result on stdout and, with `--termination-log`, the report the controller reads from the Pod
 * (termination-report.ts), written whatever the outcome; a failure is rethrown for `runBackup` to log and map.
 */
async function runSave(
  argv: string[],
  log: Logger,
  out: (text: string) => void,
  signal: AbortSignal | undefined,
): Promise<number> {
  const { terminationLogPath, ...options } = parseSaveArgs(argv);
  const started = Date.now();
  const tell = (report: BackupReport) => {
    if (terminationLogPath) writeReport(terminationLogPath, encodeBackupReport(report), log);
  };
  try {
    const result = await save(options, log, signal);
    out(`${JSON.stringify({ bucket: result.bucket, key: result.key, ...result.metadata })}\n`);
    tell({
      v: REPORT_VERSION,
      outcome: 'Succeeded',
      key: result.key,
      revision: result.metadata.revision,
      sizeBytes: result.metadata.objectSize,
      durationMs: Date.now() - started,
    });
    return ExitCode.OK;
  } catch (error) {
    const code: ExitCodeName = error instanceof BackupError ? error.code : 'INTERNAL';
    tell({ v: REPORT_VERSION, outcome: 'Failed', code, reason: (error as Error).message ?? String(error) });
    throw error;
  }
}

/** Process entry point: `etcd-gitops backup ...`. */
export async function main(args: string[]): Promise<never> {
  const log = pino(
    { level: process.env.LOG_LEVEL ?? 'info', base: { command: 'backup' } },
    pino.destination(2),
  );
  const interrupt = args[0] === BackupVerb.SAVE ? interruptOnSignals(log) : undefined;
  const code = await runBackup(args, log, (text) => process.stdout.write(text), interrupt);
  log.flush();
  process.exit(code);
}

/**
 * SIGTERM (a Job's deadline or deletion) or SIGINT aborts a running `save`: the upload is aborted and the command
 * exits `INTERRUPTED`. A second signal exits at once (an upload still open is then left to the bucket's
 * `AbortIncompleteMultipartUpload` rule; it is never an object).
 */
function interruptOnSignals(log: Logger): AbortSignal {
  const controller = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => {
    if (controller.signal.aborted) {
      log.error({ exitCode: ExitCode.INTERRUPTED, signal }, 'Interrupted again; exiting at once');
      log.flush();
      process.exit(ExitCode.INTERRUPTED);
    }
    log.warn({ signal }, 'Interrupted; aborting the backup');
    controller.abort(signal);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  return controller.signal;
}
