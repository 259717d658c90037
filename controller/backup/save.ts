// `backup save`: docs/design/backup.md, "backup save, step by step".
//   1. preflight S3 (HeadBucket)   2. pick a member   3-5. stream, verify, abort on failure (stream-to-s3.ts)
//   6. copy `<key>.part` to `<key>` with the metadata, delete the `.part`
//   7. delete stale `.part` objects of killed saves (sweep-staging.ts)   8. retention (apply-retention.ts)
import {
  DeleteObjectCommand,
  HeadBucketCommand,
  ListObjectsV2Command,
  type S3Client,
} from '@aws-sdk/client-s3';
import type { Logger } from 'pino';
import { PART_SIZE_MIB, QUEUE_SIZE } from '../../constructs/conventions/backup.js';
import { DEFAULT_S3_REGION } from '../../constructs/conventions/s3.js';
import type { EtcdTls } from '../etcd/connection-options.js';
import type { MaintenanceClient } from '../etcd/maintenance-client.js';
import { DEFAULT_MEMBER_WAIT_MS, untilAnswered } from '../etcd/until-answered.js';
import { crashSwitchFromEnv } from '../runtime/crash-switch.js';
import { createS3Client, type S3Options, type ServerSideEncryption } from '../s3/client.js';
import { copyWithMetadata } from '../s3/copy.js';
import { describeS3Error } from '../s3/errors.js';
import { applyRetention } from './apply-retention.js';
import { BackupError } from './exit-codes.js';
import { defaultKeyTemplate, keyPrefix, renderKey, validateKeyTemplate } from './key-template.js';
import { type BackupMetadata, type Compression, toS3Metadata } from './metadata.js';
import { DEFAULT_PART_SIZE_BYTES, DEFAULT_QUEUE_SIZE } from './part-defaults.js';
import { chooseMember, type HealthyProbe, probeMember } from './pick-member.js';
import { type RetentionPlan, type RetentionPolicy, validateRetentionPolicy } from './retention.js';
import { DEFAULT_STAGING_GRACE_MS, stagingMetadata } from './staging.js';
import { StreamFailure, streamSnapshotToS3 } from './stream-to-s3.js';
import { sweepStaging } from './sweep-staging.js';

/** TEST-ONLY steps for `ETCD_GITOPS_TEST_BACKUP_CRASH_AFTER` (runtime/crash-switch.ts): `upload` = the `.part`
 *  is complete and verified, not yet copied; `copy` = the backup is stored, its `.part` not yet deleted. */
type SaveStep = 'upload' | 'copy';

/** Everything `backup save` needs; the CLI flags map one to one (docs/design/conventions.md). */
export interface SaveOptions {
  /** etcd client URLs. One (the client Service) is used as is; of several, the member with the highest revision. */
  readonly endpoints: readonly string[];
  /** @default - plain connections, or system CAs for https endpoints */
  readonly etcdTls?: EtcdTls;
  readonly namespace: string;
  readonly cluster: string;
  readonly bucket: string;
  /** @default defaultKeyTemplate (`{namespace}/{cluster}/{timestamp}-rev{revision}.db`) */
  readonly keyTemplate?: string;
  readonly s3: S3Options;
  /** @default - none (the bucket's default encryption applies) */
  readonly encryption?: ServerSideEncryption;
  /** @default 'none' */
  readonly compression?: Compression;
  /** Applied only after the new backup is stored. @default - keep everything */
  readonly retention?: RetentionPolicy;
  /** Multipart part size; the writer holds `queueSize + 1` parts. @default 8 MiB (DEFAULT_PART_SIZE_BYTES) */
  readonly partSizeBytes?: number;
  /** Parts uploaded concurrently. @default 2 (DEFAULT_QUEUE_SIZE) */
  readonly queueSize?: number;
  /**
   * A `.part` of this cluster older than this (store clock, against the new backup) is a killed save's and is
   * deleted after the new backup is stored (docs/design/backup.md, "Staging objects left by a killed save").
   * @default 24h (DEFAULT_STAGING_GRACE_MS: the longest a scheduled save can run)
   */
  readonly stagingGraceMs?: number;
  /**
   * How long to keep asking when no member answers: a Job's Pod may start before the cluster's network (a
   * NetworkPolicy enforcer programs a new Pod's address after it starts, DNS) lets it through.
   * @default 30s (DEFAULT_MEMBER_WAIT_MS, controller/etcd/until-answered.ts)
   */
  readonly memberWaitMs?: number;
}

export interface SaveResult {
  readonly bucket: string;
  readonly key: string;
  readonly metadata: BackupMetadata;
  readonly retention?: RetentionPlan;
}

const mib = 1024 * 1024;

function validate(options: SaveOptions): void {
  const problems: string[] = [];
  if (options.endpoints.length === 0) problems.push("'endpoints' must list at least one etcd client URL");
  for (const [name, value] of [
    ['namespace', options.namespace],
    ['cluster', options.cluster],
    ['bucket', options.bucket],
  ] as const) {
    if (!value) problems.push(`'${name}' is required`);
  }
  const part = options.partSizeBytes ?? DEFAULT_PART_SIZE_BYTES;
  if (part < PART_SIZE_MIB.min * mib || part > PART_SIZE_MIB.max * mib)
    problems.push(`'partSize' must be ${PART_SIZE_MIB.min}..${PART_SIZE_MIB.max} MiB, got ${part / mib} MiB`);
  const queue = options.queueSize ?? DEFAULT_QUEUE_SIZE;
  if (!Number.isInteger(queue) || queue < QUEUE_SIZE.min || queue > QUEUE_SIZE.max)
    problems.push(`'queueSize' must be ${QUEUE_SIZE.min}..${QUEUE_SIZE.max}, got ${queue}`);
  const grace = options.stagingGraceMs ?? DEFAULT_STAGING_GRACE_MS;
  if (!Number.isFinite(grace) || grace < 0)
    problems.push(`'stagingGrace' must be a duration of 0 or more, got ${grace} ms`);
  for (const check of [
    () => validateKeyTemplate(options.keyTemplate ?? defaultKeyTemplate),
    () => validateRetentionPolicy(options.retention ?? {}),
  ]) {
    try {
      check();
    } catch (error) {
      problems.push((error as Error).message);
    }
  }
  if (problems.length > 0) throw new BackupError('USAGE', problems.join('; '));
}

async function preflight(s3: S3Client, options: SaveOptions): Promise<void> {
  try {
    await s3.send(new HeadBucketCommand({ Bucket: options.bucket }));
  } catch (headError) {
    // HEAD responses have no body, so no error code: ask again with a GET to learn which credential is wrong.
    const error = await s3
      .send(new ListObjectsV2Command({ Bucket: options.bucket, MaxKeys: 1 }))
      .then(() => headError)
      .catch((listError: unknown) => listError);
    const where = options.s3.endpoint ?? `AWS S3 (${options.s3.region ?? DEFAULT_S3_REGION})`;
    throw new BackupError(
      'S3_ERROR',
      `cannot use bucket '${options.bucket}' at ${where}: ${describeS3Error(error)}; etcd was not contacted, nothing was written or deleted`,
      { cause: error },
    );
  }
}

/** One round of probes: every endpoint asked, the chosen member's client kept open, the others closed. */
interface ProbeRound {
  readonly results: readonly Awaited<ReturnType<typeof probeMember>>[];
  /** The member to snapshot, with its open client; none when no member qualifies. */
  readonly member?: HealthyProbe;
  readonly client?: MaintenanceClient;
}

async function probeRound(options: SaveOptions, log: Logger): Promise<ProbeRound> {
  const results = await Promise.all(
    options.endpoints.map((endpoint) => probeMember(endpoint, options.etcdTls ?? {})),
  );
  const member = chooseMember(results.map((r) => r.probe));
  for (const result of results) {
    if (result.probe.endpoint !== member?.endpoint) result.client?.close();
    if (!result.probe.ok)
      log.warn({ endpoint: result.probe.endpoint, error: result.probe.error }, 'etcd member did not answer');
  }
  const client = results.find((r) => r.probe.endpoint === member?.endpoint)?.client;
  return { results, ...(member && client ? { member, client } : {}) };
}

/** Rounds of probes (`untilAnswered`) until a member qualifies or `memberWaitMs` has passed. */
async function pickMember(
  options: SaveOptions,
  log: Logger,
): Promise<{ member: HealthyProbe; client: MaintenanceClient }> {
  let round: ProbeRound = { results: [] };
  await untilAnswered(options.memberWaitMs ?? DEFAULT_MEMBER_WAIT_MS, log, async () => {
    round = await probeRound(options, log);
    return round.member;
  });
  const { results, member, client } = round;
  if (!member || !client) {
    const reasons = results
      .map((r) => `${r.probe.endpoint}: ${r.probe.ok ? 'learner' : r.probe.error}`)
      .join('; ');
    throw new BackupError(
      'ETCD_UNAVAILABLE',
      `no healthy etcd member to take a snapshot from (${reasons}); nothing was written to S3 or deleted`,
    );
  }
  log.info(
    { endpoint: member.endpoint, revision: member.revision, version: member.version },
    'Chose etcd member',
  );
  return { member, client };
}

/**
 * `backup save`. Aborting `signal` (the CLI does on SIGTERM/SIGINT) stops at the next step: while streaming it
 * aborts the multipart upload, before the rename it deletes the `.part`, after it skips the staging sweep and
 * retention; each exits `INTERRUPTED` saying what was left.
 */
export async function save(options: SaveOptions, log: Logger, signal?: AbortSignal): Promise<SaveResult> {
  validate(options);
  const s3 = createS3Client(options.s3);
  try {
    await preflight(s3, options);
    stopIfInterrupted(signal, 'before etcd was contacted; nothing was written or deleted');
    const { member, client } = await pickMember(options, log);
    try {
      stopIfInterrupted(signal, 'before the snapshot started; nothing was written or deleted');
      return await saveFrom(client, member, s3, { ...options, signal }, log);
    } finally {
      client.close();
    }
  } finally {
    s3.destroy();
  }
}

function stopIfInterrupted(signal: AbortSignal | undefined, untouched: string): void {
  if (signal?.aborted)
    throw new BackupError('INTERRUPTED', `interrupted by ${String(signal.reason)} ${untouched}`);
}

async function saveFrom(
  etcd: MaintenanceClient,
  member: HealthyProbe,
  s3: S3Client,
  options: SaveOptions & { readonly signal?: AbortSignal | undefined },
  log: Logger,
): Promise<SaveResult> {
  const time = new Date();
  const compression = options.compression ?? 'none';
  const template = options.keyTemplate ?? defaultKeyTemplate;
  const fields = { namespace: options.namespace, cluster: options.cluster, time, revision: member.revision };
  const key = renderKey(template, fields, compression);
  const partKey = `${key}.part`;
  const where = `s3://${options.bucket}/${key}`;
  log.info({ bucket: options.bucket, key: partKey, compression }, 'Streaming snapshot to S3');
  const streamed = await streamSnapshotToS3(etcd, s3, {
    bucket: options.bucket,
    key: partKey,
    compression,
    encryption: options.encryption,
    metadata: stagingMetadata(options, time),
    partSizeBytes: options.partSizeBytes ?? DEFAULT_PART_SIZE_BYTES,
    queueSize: options.queueSize ?? DEFAULT_QUEUE_SIZE,
    ...(options.signal ? { signal: options.signal } : {}),
  }).catch((error: unknown) => {
    throw streamError(error, member.endpoint, `s3://${options.bucket}/${partKey}`);
  });
  const metadata: BackupMetadata = {
    namespace: options.namespace,
    cluster: options.cluster,
    revision: member.revision,
    etcdVersion: member.version,
    member: member.endpoint,
    time: time.toISOString(),
    compression,
    ...streamed,
  };
  log.info({ key: partKey, ...streamed }, 'Uploaded and verified snapshot');
  const crash = crashSwitchFromEnv<SaveStep>(process.env.ETCD_GITOPS_TEST_BACKUP_CRASH_AFTER);
  crash.after('upload');
  if (options.signal?.aborted) await discardInterrupted(s3, options, partKey, options.signal);
  await rename(s3, options, { partKey, key, metadata }, () => crash.after('copy'));
  log.info(
    { bucket: options.bucket, key, revision: metadata.revision, size: metadata.objectSize },
    'Stored backup',
  );
  const prefix = keyPrefix(template, fields);
  // A signal after the rename deletes nothing more: the sweep waits for the next save, retention is skipped below.
  if (!options.signal?.aborted)
    await sweepStaging(
      s3,
      {
        bucket: options.bucket,
        prefix,
        namespace: options.namespace,
        cluster: options.cluster,
        justWritten: key,
        graceMs: options.stagingGraceMs ?? DEFAULT_STAGING_GRACE_MS,
      },
      log,
    );
  if (
    !options.retention ||
    (options.retention.keepLast === undefined && options.retention.maxAgeMs === undefined)
  ) {
    return { bucket: options.bucket, key, metadata };
  }
  stopIfInterrupted(
    options.signal,
    `after backup s3://${options.bucket}/${key} was stored (complete); retention was not applied, nothing was deleted`,
  );
  const retention = await applyRetention(
    s3,
    {
      bucket: options.bucket,
      prefix,
      namespace: options.namespace,
      cluster: options.cluster,
      justWritten: key,
      policy: options.retention,
      now: new Date(),
    },
    log,
  );
  log.debug({ where, decisions: retention.decisions }, 'Retention decisions');
  return { bucket: options.bucket, key, metadata, retention };
}

/** Interrupted after the upload completed, before the rename: the verified `.part` is deleted, never renamed. */
async function discardInterrupted(
  s3: S3Client,
  options: SaveOptions,
  partKey: string,
  signal: AbortSignal,
): Promise<never> {
  const removed = await s3
    .send(new DeleteObjectCommand({ Bucket: options.bucket, Key: partKey }))
    .then(() => `the uploaded s3://${options.bucket}/${partKey} was deleted`)
    .catch(
      (error: unknown) =>
        `s3://${options.bucket}/${partKey} remains (${describeS3Error(error)}; status lists it; the next save of this cluster deletes it once past --staging-grace)`,
    );
  throw new BackupError(
    'INTERRUPTED',
    `interrupted by ${String(signal.reason)} before the rename: ${removed}; no backup object was written and nothing was deleted`,
  );
}

function streamError(error: unknown, endpoint: string, target: string): BackupError {
  if (!(error instanceof StreamFailure)) {
    return new BackupError('S3_ERROR', `could not start the upload to ${target}: ${describeS3Error(error)}`, {
      cause: error,
    });
  }
  const leftover = error.leftoverUpload
    ? `; its incomplete multipart upload could not be aborted (invisible; a bucket lifecycle rule AbortIncompleteMultipartUpload removes it)`
    : '';
  const untouched = `no backup object was written and nothing was deleted${leftover}`;
  switch (error.side) {
    case 'interrupted':
      return new BackupError(
        'INTERRUPTED',
        `interrupted by ${error.message} while uploading to ${target}: upload aborted, ${untouched}`,
        { cause: error },
      );
    case 'checksum':
      return new BackupError(
        'CHECKSUM_MISMATCH',
        `snapshot from ${endpoint} is corrupt: ${error.message}; upload aborted, ${untouched}`,
        {
          cause: error,
        },
      );
    case 'etcd':
      return new BackupError(
        'ETCD_UNAVAILABLE',
        `snapshot stream from ${endpoint} failed: ${error.message}; upload aborted, ${untouched}`,
        {
          cause: error,
        },
      );
    default:
      return new BackupError(
        'S3_ERROR',
        `upload to ${target} failed: ${describeS3Error(error.cause)}; ${untouched}`,
        {
          cause: error,
        },
      );
  }
}

async function rename(
  s3: S3Client,
  options: SaveOptions,
  object: { partKey: string; key: string; metadata: BackupMetadata },
  copied: () => void,
): Promise<void> {
  try {
    await copyWithMetadata(s3, {
      bucket: options.bucket,
      sourceKey: object.partKey,
      destinationKey: object.key,
      size: object.metadata.objectSize,
      metadata: toS3Metadata(object.metadata),
      contentType: object.metadata.compression === 'gzip' ? 'application/gzip' : 'application/octet-stream',
      encryption: options.encryption,
    });
  } catch (error) {
    const removed = await s3
      .send(new DeleteObjectCommand({ Bucket: options.bucket, Key: object.partKey }))
      .then(() => 'it was removed')
      .catch(
        () =>
          `it remains as s3://${options.bucket}/${object.partKey} (complete and verified; the next save of this cluster deletes it once past --staging-grace)`,
      );
    throw new BackupError(
      'S3_ERROR',
      `could not copy the verified snapshot to s3://${options.bucket}/${object.key}: ${describeS3Error(error)}; ${removed}; no backup object was written, nothing was deleted`,
      { cause: error },
    );
  }
  copied();
  try {
    await s3.send(new DeleteObjectCommand({ Bucket: options.bucket, Key: object.partKey }));
  } catch (error) {
    throw new BackupError(
      'S3_ERROR',
      `backup s3://${options.bucket}/${object.key} is stored, but its staging object ${object.partKey} could not be deleted: ${describeS3Error(error)}; retention was not applied`,
      { cause: error },
    );
  }
}
