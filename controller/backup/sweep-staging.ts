// Step 7 of docs/design/backup.md: delete the stale staging objects (`.part`) a killed save of this cluster left
// under the key prefix. Plan: staging.ts (pure); here the listing and the deletes.
import { DeleteObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { Logger } from 'pino';
import { STAGING_SUFFIX } from '../../constructs/conventions/backup.js';
import { describeS3Error } from '../s3/errors.js';
import { headObject, listObjects } from '../s3/list.js';
import { BackupError } from './exit-codes.js';
import { planStagingSweep, type StagingDecision, type StagingOwner } from './staging.js';

function isNotFound(error: unknown): boolean {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } } | undefined;
  return e?.name === 'NotFound' || e?.name === 'NoSuchKey' || e?.$metadata?.httpStatusCode === 404;
}

export interface StagingSweepRequest extends StagingOwner {
  readonly bucket: string;
  readonly prefix: string;
  /** The backup this save just stored: its `LastModified` is the sweep's "now". */
  readonly justWritten: string;
  readonly graceMs: number;
}

/** Deletes what `planStagingSweep` lets go. Throws `RETENTION_FAILED`; the new backup is never affected. */
export async function sweepStaging(
  s3: S3Client,
  request: StagingSweepRequest,
  log: Logger,
): Promise<StagingDecision[]> {
  const kept = `backup ${request.justWritten} is stored and complete`;
  const where = `s3://${request.bucket}/${request.prefix}`;
  let plan: StagingDecision[];
  try {
    const listed = await listObjects(s3, request.bucket, request.prefix);
    const reference = listed.find((object) => object.key === request.justWritten)?.lastModified;
    if (!reference) throw new Error(`the new backup ${request.justWritten} is not in the listing`);
    const staging = await Promise.all(
      listed
        .filter((object) => object.key.endsWith(STAGING_SUFFIX))
        .map(async (object) => {
          // Gone since the listing (another save renamed it): nothing to decide.
          const head = await headObject(s3, request.bucket, object.key).catch((error: unknown) => {
            if (isNotFound(error)) return undefined;
            throw error;
          });
          return head
            ? [{ key: object.key, lastModified: object.lastModified, metadata: head.metadata }]
            : [];
        }),
    );
    plan = planStagingSweep(staging.flat(), { ...request, reference });
  } catch (error) {
    throw new BackupError(
      'RETENTION_FAILED',
      `could not list staging objects under ${where}: ${describeS3Error(error)}; ${kept}, nothing was deleted, retention was not applied`,
      { cause: error },
    );
  }
  for (const decision of plan) {
    if (!decision.delete) {
      log.debug({ key: decision.key, reason: decision.reason }, 'Kept staging object');
      continue;
    }
    try {
      await s3.send(new DeleteObjectCommand({ Bucket: request.bucket, Key: decision.key }));
    } catch (error) {
      throw new BackupError(
        'RETENTION_FAILED',
        `could not delete the stale staging object s3://${request.bucket}/${decision.key}: ${describeS3Error(error)}; ${kept}, retention was not applied`,
        { cause: error },
      );
    }
    log.info({ key: decision.key }, 'Deleted stale staging object of a killed save');
  }
  return plan;
}
