// `etcd-gitops restore fetch`: flags → options → fetch; logs as JSON on stderr, the result as JSON on stdout,
// named exit codes (exit-codes.ts; docs/design/restore.md).
import pino, { type Logger } from 'pino';
import { RestoreVerb } from '../../constructs/conventions/cli/commands.js';
import { restoreFetch } from '../../constructs/conventions/cli/restore-fetch.js';
import { restoreFromMember } from '../../constructs/conventions/cli/restore-from-member.js';
import { parseFetchArgs, parseFromMemberArgs } from './cli-args.js';
import { RestoreError, RestoreExitCode } from './exit-codes.js';
import { fetchBackup } from './fetch.js';
import { fetchFromMember } from './from-member.js';

const usageText = `usage: ${restoreFetch.usage}
       (exactly one of --key and --latest-under-prefix)
       ${restoreFromMember.usage}
flags and exit codes: docs/design/restore.md`;

async function runVerb(verb: string | undefined, rest: string[], log: Logger): Promise<object> {
  if (verb === RestoreVerb.FETCH) return fetchBackup(parseFetchArgs(rest), log);
  if (verb === RestoreVerb.FROM_MEMBER) return fetchFromMember(parseFromMemberArgs(rest), log);
  throw new RestoreError('InvalidArguments', `unknown verb '${verb ?? ''}'\n${usageText}`);
}

/** Runs one verb; resolves the exit code. Never throws. */
export async function runRestore(args: string[], log: Logger, out: (text: string) => void): Promise<number> {
  const [verb, ...rest] = args;
  try {
    const result = await runVerb(verb, rest, log);
    out(`${JSON.stringify(result)}\n`);
    return RestoreExitCode.OK;
  } catch (error) {
    if (error instanceof RestoreError) {
      log.error(
        { exitCode: error.exitCode, code: error.reason, reason: error.message },
        `Restore ${verb} failed; no data dir was created`,
      );
      return error.exitCode;
    }
    log.error({ exitCode: RestoreExitCode.INTERNAL, err: error }, `Restore ${verb} failed unexpectedly`);
    return RestoreExitCode.INTERNAL;
  }
}

/** Process entry point: `etcd-gitops restore ...`. */
export async function main(args: string[]): Promise<never> {
  const log = pino(
    { level: process.env.LOG_LEVEL ?? 'info', base: { command: 'restore' } },
    pino.destination(2),
  );
  const code = await runRestore(args, log, (text) => process.stdout.write(text));
  log.flush();
  process.exit(code);
}
