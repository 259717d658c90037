// Flags of `defrag` → options. The flags are the table in constructs/conventions/cli/defrag.ts, the same the
// `<cluster>-defrag` CronJob's args are written from.
import { type DefragArgs, defrag } from '../../constructs/conventions/cli/defrag.js';
import { FlagError } from '../../constructs/conventions/cli/flag-table.js';
import { parseDuration } from '../../constructs/conventions/duration.js';
import type { DefragOptions } from './execute.js';
import { DefragError } from './exit-codes.js';

export function defragOptionsOf(args: DefragArgs): DefragOptions {
  return {
    endpoints: args.endpoints,
    namespace: args.namespace,
    cluster: args.cluster,
    quotaBackendBytes: args.quotaBackendBytes,
    tls: { caFile: args.cacert, certFile: args.cert, keyFile: args.key },
    memberWaitMs: args.memberWait === undefined ? undefined : parseDuration(args.memberWait),
  };
}

/** The options of `defrag` flags; a bad flag is exit code `USAGE`. */
export function parseDefragArgs(argv: readonly string[]): DefragOptions {
  try {
    return defragOptionsOf(defrag.decode(argv));
  } catch (error) {
    if (error instanceof FlagError) throw new DefragError('USAGE', error.message);
    throw error;
  }
}
