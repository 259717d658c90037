// `etcd-gitops backup save|status`: flags → options → verb; logs as JSON on stderr, results on stdout,
// named exit codes (exit-codes.ts, README "## Backups").
import pino, { type Logger } from 'pino';
import { parseSaveArgs, parseStatusArgs } from './cli-args.js';
import { BackupError, ExitCode } from './exit-codes.js';
import { formatTable } from './format.js';
import { save } from './save.js';
import { status } from './status.js';

const usageText = `usage: etcd-gitops backup save --endpoints URL[,URL] --namespace NS --cluster NAME --bucket B [flags]
       etcd-gitops backup status --bucket B [--prefix P] [--verify] [--output table|json] [flags]
flags: docs/design/conventions.md ("backup save flags"); exit codes: README.md ("Backups")`;

/** Runs one verb; resolves the exit code. Never throws. */
export async function runBackup(args: string[], log: Logger, out: (text: string) => void): Promise<number> {
  const [verb, ...rest] = args;
  try {
    if (verb === 'save') {
      const result = await save(parseSaveArgs(rest), log);
      out(`${JSON.stringify({ bucket: result.bucket, key: result.key, ...result.metadata })}\n`);
      return ExitCode.OK;
    }
    if (verb === 'status' || verb === 'list') {
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

/** Process entry point: `etcd-gitops backup ...`. */
export async function main(args: string[]): Promise<never> {
  const log = pino(
    { level: process.env.LOG_LEVEL ?? 'info', base: { command: 'backup' } },
    pino.destination(2),
  );
  const code = await runBackup(args, log, (text) => process.stdout.write(text));
  log.flush();
  process.exit(code);
}
