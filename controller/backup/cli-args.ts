// Flags of `backup save` and `backup status` → options. The flags are the tables in constructs/conventions/cli
// (backup-save.ts, backup-status.ts), the same the `<cluster>-backup` CronJob's args are written from.
import { DEFAULT_COMPRESSION, DEFAULT_KEY_TEMPLATE } from '../../constructs/conventions/backup.js';
import { type BackupSaveArgs, backupSave } from '../../constructs/conventions/cli/backup-save.js';
import { backupStatus, type STATUS_OUTPUTS } from '../../constructs/conventions/cli/backup-status.js';
import { FlagError } from '../../constructs/conventions/cli/flag-table.js';
import { parseDuration } from '../../constructs/conventions/duration.js';
import {
  type ChecksumMode,
  DEFAULT_CHECKSUM_MODE,
  DEFAULT_S3_REGION,
} from '../../constructs/conventions/s3.js';
import type { S3Options } from '../s3/client.js';
import { BackupError } from './exit-codes.js';
import type { SaveOptions } from './save.js';
import type { StatusOptions } from './status.js';

export type OutputFormat = (typeof STATUS_OUTPUTS)[number];

const MIB = 1024 * 1024;

/** `parse()`, with a bad flag reported as exit code `USAGE`. */
function usageOnError<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (error instanceof FlagError) throw new BackupError('USAGE', error.message);
    throw error;
  }
}

/** The S3 options `S3_FLAGS` carry, with the documented defaults: every command that talks to S3 reads them so. */
export function s3Options(args: {
  readonly s3Endpoint?: string;
  readonly region?: string;
  readonly forcePathStyle?: boolean;
  readonly checksumMode?: ChecksumMode;
}): S3Options {
  return {
    endpoint: args.s3Endpoint,
    region: args.region ?? DEFAULT_S3_REGION,
    forcePathStyle: args.forcePathStyle ?? false,
    checksumMode: args.checksumMode ?? DEFAULT_CHECKSUM_MODE,
  };
}

/** The save options decoded `backup save` flags describe, with the documented defaults. */
export function saveOptionsOf(args: BackupSaveArgs): SaveOptions {
  const { sse, sseKmsKeyId, maxAge, partSizeMiB, stagingGrace, memberWait } = args;
  return {
    endpoints: args.endpoints,
    etcdTls: { caFile: args.cacert, certFile: args.cert, keyFile: args.key },
    namespace: args.namespace,
    cluster: args.cluster,
    bucket: args.bucket,
    keyTemplate: args.keyTemplate ?? DEFAULT_KEY_TEMPLATE,
    s3: s3Options(args),
    encryption:
      sse === undefined
        ? undefined
        : sseKmsKeyId
          ? { algorithm: sse, kmsKeyId: sseKmsKeyId }
          : { algorithm: sse },
    compression: args.compression ?? DEFAULT_COMPRESSION,
    retention: {
      keepLast: args.keepLast,
      maxAgeMs: maxAge === undefined ? undefined : parseDuration(maxAge),
    },
    partSizeBytes: partSizeMiB === undefined ? undefined : partSizeMiB * MIB,
    queueSize: args.queueSize,
    stagingGraceMs: stagingGrace === undefined ? undefined : parseDuration(stagingGrace),
    memberWaitMs: memberWait === undefined ? undefined : parseDuration(memberWait),
  };
}

/** `backup save`'s options: what `save` takes, and where the command writes its report as it ends. */
export interface SaveCommandOptions extends SaveOptions {
  /** `--termination-log`. @default - no report written */
  readonly terminationLogPath?: string;
}

export function parseSaveArgs(argv: readonly string[]): SaveCommandOptions {
  return usageOnError(() => {
    const args = backupSave.decode(argv);
    return { ...saveOptionsOf(args), terminationLogPath: args.terminationLog };
  });
}

export function parseStatusArgs(argv: readonly string[]): StatusOptions & { output: OutputFormat } {
  const args = usageOnError(() => backupStatus.decode(argv));
  return {
    bucket: args.bucket,
    prefix: args.prefix ?? '',
    s3: s3Options(args),
    verify: args.verify ?? false,
    output: args.output ?? 'table',
  };
}
