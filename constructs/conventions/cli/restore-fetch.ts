// `restore fetch` (the seed member's init container): docs/design/restore.md, "The restore command".
import { RestoreVerb, Subcommand } from './commands.js';
import { FlagError, type FlagTable, type FlagValues } from './flag-table.js';
import { S3_FLAGS } from './s3-flags.js';
import { defineVerb } from './verb.js';

export const RESTORE_FETCH_FLAGS = {
  bucket: S3_FLAGS.bucket,
  key: { name: 'key', kind: 'string' },
  latestUnderPrefix: { name: 'latest-under-prefix', kind: 'string' },
  s3Endpoint: S3_FLAGS.s3Endpoint,
  region: S3_FLAGS.region,
  forcePathStyle: S3_FLAGS.forcePathStyle,
  checksumMode: S3_FLAGS.checksumMode,
  etcdVersion: { name: 'etcd-version', kind: 'string', required: true, format: 'semver' },
  dataDir: { name: 'data-dir', kind: 'string' },
  name: { name: 'name', kind: 'string', required: true },
  initialAdvertisePeerUrls: {
    name: 'initial-advertise-peer-urls',
    kind: 'string',
    required: true,
    format: 'url',
  },
  initialCluster: { name: 'initial-cluster', kind: 'string' },
  initialClusterToken: { name: 'initial-cluster-token', kind: 'string', required: true },
  etcdutl: { name: 'etcdutl', kind: 'string' },
  /** The cluster's `status.revisionFloor` (decimal): the restore's bump counts from it too. */
  revisionFloor: { name: 'revision-floor', kind: 'string' },
} as const satisfies FlagTable;

export type RestoreFetchArgs = FlagValues<typeof RESTORE_FETCH_FLAGS>;

/** `--revision-floor` is a decimal revision when given. */
export function checkRevisionFloor(floor: string | undefined): void {
  if (floor !== undefined && !/^(0|[1-9][0-9]*)$/.test(floor)) {
    throw new FlagError('--revision-floor', `'--revision-floor' is a decimal etcd revision, got '${floor}'`);
  }
}

function checkRestoreFetch(args: RestoreFetchArgs): void {
  checkRevisionFloor(args.revisionFloor);
  if ((args.key === undefined) === (args.latestUnderPrefix === undefined)) {
    throw new FlagError(
      '--key',
      `exactly one of '--key' (one backup) and '--latest-under-prefix' (the newest under a prefix) is required, got ${args.key === undefined ? 'neither' : 'both'}`,
    );
  }
}

export const restoreFetch = defineVerb(
  [Subcommand.RESTORE, RestoreVerb.FETCH],
  RESTORE_FETCH_FLAGS,
  checkRestoreFetch,
);
