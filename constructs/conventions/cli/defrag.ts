// `defrag` (the `<cluster>-defrag` CronJob's args): docs/design/compaction-quota-defrag.md, "The defrag job".
import { Subcommand } from './commands.js';
import { FlagError, type FlagTable, type FlagValues } from './flag-table.js';
import { defineVerb } from './verb.js';

export const DEFRAG_FLAGS = {
  /** Any client URL of the cluster (the client Service): the member list and each member's own URL come from it. */
  endpoints: { name: 'endpoints', kind: 'list', required: true, format: 'url' },
  namespace: { name: 'namespace', kind: 'string', required: true },
  cluster: { name: 'cluster', kind: 'string', required: true },
  /** The cluster's effective quota: a NOSPACE alarm is disarmed only when every member's DB is below it. */
  quotaBackendBytes: { name: 'quota-backend-bytes', kind: 'integer', min: 1, required: true },
  cacert: { name: 'cacert', kind: 'string' },
  cert: { name: 'cert', kind: 'string' },
  key: { name: 'key', kind: 'string' },
  /** How long to keep asking when no member answers the member list or a voting member does not answer Status. */
  memberWait: { name: 'member-wait', kind: 'string', format: 'duration' },
} as const satisfies FlagTable;

export type DefragArgs = FlagValues<typeof DEFRAG_FLAGS>;

function checkDefrag(args: DefragArgs): void {
  if ((args.cert === undefined) !== (args.key === undefined)) {
    throw new FlagError('--cert', "'--cert' and '--key' go together (a client certificate and its key)");
  }
}

export const defrag = defineVerb([Subcommand.DEFRAG], DEFRAG_FLAGS, checkDefrag);
