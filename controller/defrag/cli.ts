// `etcd-gitops defrag`: flags → options → runDefrag; logs as JSON on stderr, the result as one JSON line on
// stdout, named exit codes (exit-codes.ts, docs/design/compaction-quota-defrag.md "The defrag job").
import pino, { type Logger } from 'pino';
import { parseDefragArgs } from './cli-args.js';
import { runDefrag } from './execute.js';
import { DefragError, ExitCode } from './exit-codes.js';

/** Runs the command; resolves the exit code. Never throws. */
export async function runDefragCli(
  args: string[],
  log: Logger,
  out: (text: string) => void,
): Promise<number> {
  try {
    const result = await runDefrag(parseDefragArgs(args), log);
    out(`${JSON.stringify(result)}\n`);
    const exitCode = ExitCode[result.exit];
    if (exitCode !== ExitCode.OK) log.error({ exitCode, code: result.exit }, 'Defrag did not finish cleanly');
    return exitCode;
  } catch (error) {
    if (error instanceof DefragError) {
      log.error({ exitCode: ExitCode[error.code], code: error.code, reason: error.message }, 'Defrag failed');
      return ExitCode[error.code];
    }
    log.error({ exitCode: ExitCode.INTERNAL, err: error }, 'Defrag failed unexpectedly');
    return ExitCode.INTERNAL;
  }
}

/** Process entry point: `etcd-gitops defrag ...`. */
export async function main(args: string[]): Promise<never> {
  const log = pino(
    { level: process.env.LOG_LEVEL ?? 'info', base: { command: 'defrag' } },
    pino.destination(2),
  );
  const code = await runDefragCli(args, log, (text) => process.stdout.write(text));
  log.flush();
  process.exit(code);
}
