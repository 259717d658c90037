// Flags of `drill fetch` and `drill check` → options, with the documented defaults (the flag tables:
// constructs/conventions/cli/drill.ts, the same the drill CronJob's args are written from).
import { DEFAULT_KEY_TEMPLATE } from '../../constructs/conventions/backup.js';
import {
  type DrillCheckArgs,
  type DrillFetchArgs,
  drillCheck,
  drillFetch,
} from '../../constructs/conventions/cli/drill.js';
import { FlagError } from '../../constructs/conventions/cli/flag-table.js';
import {
  DEFAULT_DRILL_WAIT,
  DRILL_CLIENT_URL,
  DRILL_DATA_DIR,
  DRILL_RESTORED_FILE,
} from '../../constructs/conventions/drill.js';
import { parseDuration } from '../../constructs/conventions/duration.js';
import { s3Options } from '../backup/cli-args.js';
import { defaultToolsDir, toolsDirEnv } from '../restore/cli-args.js';
import { restoreToolPath } from '../restore/etcd-version.js';
import type { DrillCheckOptions } from './check.js';
import { DrillError } from './exit-codes.js';
import type { DrillFetchOptions } from './fetch.js';

export interface WithReport {
  /** Where the one-line report goes as the command ends (`--termination-log`). */
  readonly terminationLogPath?: string;
}

function decoded<T>(decode: () => T): T {
  try {
    return decode();
  } catch (error) {
    if (error instanceof FlagError) throw new DrillError('USAGE', error.message);
    throw error;
  }
}

export function fetchOptionsOf(
  args: DrillFetchArgs,
  env: NodeJS.ProcessEnv = process.env,
): DrillFetchOptions {
  return {
    namespace: args.namespace,
    cluster: args.cluster,
    bucket: args.bucket,
    keyTemplate: args.keyTemplate ?? DEFAULT_KEY_TEMPLATE,
    s3: s3Options(args),
    etcdVersion: args.etcdVersion,
    dataDir: args.dataDir ?? DRILL_DATA_DIR,
    restoredFile: args.restoredFile ?? DRILL_RESTORED_FILE,
    restoreTool: args.etcdutl || restoreToolPath(env[toolsDirEnv] || defaultToolsDir, args.etcdVersion),
  };
}

export function parseDrillFetchArgs(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): DrillFetchOptions & WithReport {
  const args = decoded(() => drillFetch.decode(argv));
  return { ...fetchOptionsOf(args, env), terminationLogPath: args.terminationLog };
}

export function checkOptionsOf(args: DrillCheckArgs): DrillCheckOptions {
  return {
    restoredFile: args.restoredFile ?? DRILL_RESTORED_FILE,
    endpoint: args.endpoint ?? DRILL_CLIENT_URL,
    waitMs: parseDuration(args.wait ?? DEFAULT_DRILL_WAIT) as number,
  };
}

export function parseDrillCheckArgs(argv: readonly string[]): DrillCheckOptions & WithReport {
  const args = decoded(() => drillCheck.decode(argv));
  return { ...checkOptionsOf(args), terminationLogPath: args.terminationLog };
}
