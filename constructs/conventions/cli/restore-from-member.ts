// `restore from-member` (the seed's init container of a survivor restore): docs/design/restore.md, "Recovery from a
// surviving member". The seed's identity flags are those of `restore fetch`.
import { RestoreVerb, Subcommand } from './commands.js';
import { FlagError, type FlagTable, type FlagValues } from './flag-table.js';
import { checkRevisionFloor, RESTORE_FETCH_FLAGS } from './restore-fetch.js';
import { defineVerb } from './verb.js';

export const RESTORE_FROM_MEMBER_FLAGS = {
  memberUrl: { name: 'member-url', kind: 'string', required: true, format: 'url' },
  /** The member id (decimal) the URL must answer as: the survivor chosen and verified by the controller. */
  memberId: { name: 'member-id', kind: 'string', required: true },
  cacert: { name: 'cacert', kind: 'string' },
  cert: { name: 'cert', kind: 'string' },
  key: { name: 'key', kind: 'string' },
  etcdVersion: RESTORE_FETCH_FLAGS.etcdVersion,
  dataDir: RESTORE_FETCH_FLAGS.dataDir,
  name: RESTORE_FETCH_FLAGS.name,
  initialAdvertisePeerUrls: RESTORE_FETCH_FLAGS.initialAdvertisePeerUrls,
  initialClusterToken: RESTORE_FETCH_FLAGS.initialClusterToken,
  etcdutl: RESTORE_FETCH_FLAGS.etcdutl,
  revisionFloor: RESTORE_FETCH_FLAGS.revisionFloor,
} as const satisfies FlagTable;

export type RestoreFromMemberArgs = FlagValues<typeof RESTORE_FROM_MEMBER_FLAGS>;

function checkRestoreFromMember(args: RestoreFromMemberArgs): void {
  checkRevisionFloor(args.revisionFloor);
  if ((args.cert === undefined) !== (args.key === undefined)) {
    throw new FlagError('--cert', "'--cert' and '--key' go together (a client certificate and its key)");
  }
  if (!/^[1-9][0-9]*$/.test(args.memberId)) {
    throw new FlagError('--member-id', `'--member-id' is a decimal etcd member id, got '${args.memberId}'`);
  }
}

export const restoreFromMember = defineVerb(
  [Subcommand.RESTORE, RestoreVerb.FROM_MEMBER],
  RESTORE_FROM_MEMBER_FLAGS,
  checkRestoreFromMember,
);
