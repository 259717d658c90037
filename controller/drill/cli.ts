// `etcd-gitops drill fetch|check`: flags → options → verb; logs as JSON on stderr, the result as JSON on stdout,
// the report in `--termination-log` whatever the outcome, named exit codes (exit-codes.ts;
// docs/design/restore-drill.md).
import pino, { type Logger } from 'pino';
import { DrillVerb } from '../../constructs/conventions/cli/commands.js';
import {
  drillCheck as drillCheckVerb,
  drillFetch as drillFetchVerb,
} from '../../constructs/conventions/cli/drill.js';
import { encodeReport, REPORT_VERSION, writeReport } from '../backup/termination-report.js';
import { RestoreError } from '../restore/exit-codes.js';
import { drillCheck } from './check.js';
import { parseDrillCheckArgs, parseDrillFetchArgs } from './cli-args.js';
import { DrillError, DrillExitCode, type DrillExitCodeName, drillExitCodeName } from './exit-codes.js';
import { drillFetch } from './fetch.js';
import type { DrillReport } from './report.js';

const usageText = `usage: ${drillFetchVerb.usage}
       ${drillCheckVerb.usage}
docs/design/restore-drill.md`;

/** The exit code's name of any error a verb rejects with. */
function codeOf(error: unknown): DrillExitCodeName {
  if (error instanceof DrillError) return error.code;
  if (error instanceof RestoreError) return drillExitCodeName(error.exitCode) ?? 'INTERNAL';
  return 'INTERNAL';
}

/** `fetch` reports only a failure (`check` ends the drill and reports either way). */
async function runVerb(verb: string | undefined, rest: string[], log: Logger): Promise<object> {
  if (verb === DrillVerb.FETCH) {
    const { terminationLogPath, ...options } = parseDrillFetchArgs(rest);
    return withReport(terminationLogPath, log, () => drillFetch(options, log));
  }
  if (verb === DrillVerb.CHECK) {
    const { terminationLogPath, ...options } = parseDrillCheckArgs(rest);
    const report: DrillReport = await withReport(terminationLogPath, log, () => drillCheck(options, log));
    if (terminationLogPath) writeReport(terminationLogPath, encodeReport(report), log);
    return report;
  }
  throw new DrillError('USAGE', `unknown verb '${verb ?? ''}'\n${usageText}`);
}

/** Runs `verb`; on failure writes the failure report to `path` (when given) and rethrows. */
async function withReport<T>(path: string | undefined, log: Logger, verb: () => Promise<T>): Promise<T> {
  try {
    return await verb();
  } catch (error) {
    if (path) {
      const reason = (error as Error).message ?? String(error);
      writeReport(
        path,
        encodeReport({ v: REPORT_VERSION, outcome: 'Failed', code: codeOf(error), reason }),
        log,
      );
    }
    throw error;
  }
}

/** Runs one verb; resolves the exit code. Never throws. */
export async function runDrill(args: string[], log: Logger, out: (text: string) => void): Promise<number> {
  const [verb, ...rest] = args;
  try {
    out(`${JSON.stringify(await runVerb(verb, rest, log))}\n`);
    return DrillExitCode.OK;
  } catch (error) {
    const code = codeOf(error);
    const fields = { exitCode: DrillExitCode[code], code, reason: (error as Error).message };
    if (code === 'INTERNAL') log.error({ ...fields, err: error }, `Drill ${verb} failed unexpectedly`);
    else log.error(fields, `Drill ${verb} failed`);
    return DrillExitCode[code];
  }
}

/** Process entry point: `etcd-gitops drill ...`. */
export async function main(args: string[]): Promise<never> {
  const log = pino(
    { level: process.env.LOG_LEVEL ?? 'info', base: { command: 'drill' } },
    pino.destination(2),
  );
  const code = await runDrill(args, log, (text) => process.stdout.write(text));
  log.flush();
  process.exit(code);
}
