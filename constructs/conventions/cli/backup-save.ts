// `backup save` (the `<cluster>-backup` CronJob's args): docs/design/conventions.md, "backup save flags".
import { COMPRESSIONS, PART_SIZE_MIB, QUEUE_SIZE } from '../backup.js';
import { SSE_ALGORITHMS } from '../s3.js';
import { BackupVerb, Subcommand } from './commands.js';
import { FlagError, type FlagTable, type FlagValues } from './flag-table.js';
import { S3_FLAGS } from './s3-flags.js';
import { defineVerb } from './verb.js';

export const BACKUP_SAVE_FLAGS = {
  endpoints: { name: 'endpoints', kind: 'list', required: true, format: 'url' },
  namespace: { name: 'namespace', kind: 'string', required: true },
  cluster: { name: 'cluster', kind: 'string', required: true },
  bucket: S3_FLAGS.bucket,
  keyTemplate: { name: 'key-template', kind: 'string' },
  s3Endpoint: S3_FLAGS.s3Endpoint,
  region: S3_FLAGS.region,
  forcePathStyle: S3_FLAGS.forcePathStyle,
  checksumMode: S3_FLAGS.checksumMode,
  compression: { name: 'compression', kind: 'string', allowed: COMPRESSIONS },
  sse: { name: 'sse', kind: 'string', allowed: SSE_ALGORITHMS },
  sseKmsKeyId: { name: 'sse-kms-key-id', kind: 'string' },
  keepLast: { name: 'keep-last', kind: 'integer', min: 1 },
  maxAge: { name: 'max-age', kind: 'string', format: 'positive-duration' },
  cacert: { name: 'cacert', kind: 'string' },
  cert: { name: 'cert', kind: 'string' },
  key: { name: 'key', kind: 'string' },
  partSizeMiB: { name: 'part-size-mib', kind: 'integer', min: PART_SIZE_MIB.min },
  queueSize: { name: 'queue-size', kind: 'integer', min: QUEUE_SIZE.min },
  stagingGrace: { name: 'staging-grace', kind: 'string', format: 'duration' },
  memberWait: { name: 'member-wait', kind: 'string', format: 'duration' },
  /** A file the command writes its one-line report to as it ends: the CronJob passes `TERMINATION_LOG_PATH`. */
  terminationLog: { name: 'termination-log', kind: 'string' },
} as const satisfies FlagTable;

export type BackupSaveArgs = FlagValues<typeof BACKUP_SAVE_FLAGS>;

function checkBackupSave(args: BackupSaveArgs): void {
  if ((args.cert === undefined) !== (args.key === undefined)) {
    throw new FlagError('--cert', "'--cert' and '--key' go together (a client certificate and its key)");
  }
  if (args.sseKmsKeyId !== undefined && args.sse !== 'aws:kms') {
    throw new FlagError('--sse-kms-key-id', `'--sse-kms-key-id' needs --sse=aws:kms, got --sse=${args.sse}`);
  }
}

export const backupSave = defineVerb(
  [Subcommand.BACKUP, BackupVerb.SAVE],
  BACKUP_SAVE_FLAGS,
  checkBackupSave,
);
