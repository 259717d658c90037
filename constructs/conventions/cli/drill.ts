// `drill fetch` and `drill check` (a restore drill's init container and check container):
// docs/design/restore-drill.md, "The drill Pod".
import { DrillVerb, Subcommand } from './commands.js';
import type { FlagTable, FlagValues } from './flag-table.js';
import { S3_FLAGS } from './s3-flags.js';
import { defineVerb } from './verb.js';

/** A file the command writes its one-line report to as it ends: the CronJob passes `TERMINATION_LOG_PATH`. */
const terminationLog = { name: 'termination-log', kind: 'string' } as const;

export const DRILL_FETCH_FLAGS = {
  namespace: { name: 'namespace', kind: 'string', required: true },
  cluster: { name: 'cluster', kind: 'string', required: true },
  bucket: S3_FLAGS.bucket,
  /** The drilled schedule's key template: the newest backup is looked for under its fixed prefix. */
  keyTemplate: { name: 'key-template', kind: 'string' },
  s3Endpoint: S3_FLAGS.s3Endpoint,
  region: S3_FLAGS.region,
  forcePathStyle: S3_FLAGS.forcePathStyle,
  checksumMode: S3_FLAGS.checksumMode,
  etcdVersion: { name: 'etcd-version', kind: 'string', required: true, format: 'semver' },
  dataDir: { name: 'data-dir', kind: 'string' },
  restoredFile: { name: 'restored-file', kind: 'string' },
  etcdutl: { name: 'etcdutl', kind: 'string' },
  terminationLog,
} as const satisfies FlagTable;

export type DrillFetchArgs = FlagValues<typeof DRILL_FETCH_FLAGS>;

export const drillFetch = defineVerb([Subcommand.DRILL, DrillVerb.FETCH], DRILL_FETCH_FLAGS);

export const DRILL_CHECK_FLAGS = {
  restoredFile: { name: 'restored-file', kind: 'string' },
  endpoint: { name: 'endpoint', kind: 'string', format: 'url' },
  wait: { name: 'wait', kind: 'string', format: 'duration' },
  terminationLog,
} as const satisfies FlagTable;

export type DrillCheckArgs = FlagValues<typeof DRILL_CHECK_FLAGS>;

export const drillCheck = defineVerb([Subcommand.DRILL, DrillVerb.CHECK], DRILL_CHECK_FLAGS);
