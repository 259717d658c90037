// Step 7 of docs/design/backup.md: list one cluster's backups, plan (pure, retention.ts), delete.
import { DeleteObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { Logger } from 'pino';
import { describeS3Error } from '../s3/errors.js';
import { BackupError } from './exit-codes.js';
import { listBackups } from './list-backups.js';
import { planRetention, type RetentionPlan, type RetentionPolicy } from './retention.js';

export interface RetentionRequest {
  readonly bucket: string;
  readonly prefix: string;
  readonly namespace: string;
  readonly cluster: string;
  readonly justWritten: string;
  readonly policy: RetentionPolicy;
  readonly now: Date;
}

/** Deletes what the policy lets go. Throws `RETENTION_FAILED`; the new backup is never affected. */
export async function applyRetention(
  s3: S3Client,
  request: RetentionRequest,
  log: Logger,
): Promise<RetentionPlan> {
  const kept = `backup ${request.justWritten} is stored and complete`;
  let plan: RetentionPlan;
  try {
    const listing = await listBackups(s3, request.bucket, request.prefix);
    const candidates = listing.backups
      .filter((b) => b.metadata.namespace === request.namespace && b.metadata.cluster === request.cluster)
      .map((b) => ({ key: b.key, time: b.metadata.time, revision: b.metadata.revision }));
    plan = planRetention(candidates, request.policy, { now: request.now, justWritten: request.justWritten });
  } catch (error) {
    throw new BackupError(
      'RETENTION_FAILED',
      `retention could not list backups under s3://${request.bucket}/${request.prefix}: ${describeS3Error(error)}; ${kept}, nothing was deleted`,
      { cause: error },
    );
  }
  const deleted: string[] = [];
  for (const key of plan.deletions) {
    try {
      await s3.send(new DeleteObjectCommand({ Bucket: request.bucket, Key: key }));
    } catch (error) {
      const left = plan.deletions.length - deleted.length;
      throw new BackupError(
        'RETENTION_FAILED',
        `retention could not delete s3://${request.bucket}/${key}: ${describeS3Error(error)}; ${kept}, ${deleted.length} expired backups deleted, ${left} left in place`,
        { cause: error },
      );
    }
    deleted.push(key);
    log.info({ key }, 'Deleted expired backup');
  }
  log.info(
    { kept: plan.decisions.length - deleted.length, deleted: deleted.length, policy: request.policy },
    'Applied retention',
  );
  return plan;
}
