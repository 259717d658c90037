// `backup status`: the backups under a prefix, optionally verified (README, "Backups").
import { BackupVerb, Subcommand } from './commands.js';
import type { FlagTable, FlagValues } from './flag-table.js';
import { S3_FLAGS } from './s3-flags.js';
import { defineVerb } from './verb.js';

export const STATUS_OUTPUTS = ['table', 'json'] as const;

export const BACKUP_STATUS_FLAGS = {
  ...S3_FLAGS,
  prefix: { name: 'prefix', kind: 'string' },
  verify: { name: 'verify', kind: 'boolean' },
  output: { name: 'output', kind: 'string', allowed: STATUS_OUTPUTS },
} as const satisfies FlagTable;

export type BackupStatusArgs = FlagValues<typeof BACKUP_STATUS_FLAGS>;

export const backupStatus = defineVerb([Subcommand.BACKUP, BackupVerb.STATUS], BACKUP_STATUS_FLAGS);
