// `drill fetch` (docs/design/restore-drill.md, "The drill Pod", 1): the newest backup under the drilled schedule's
// key prefix, restored exactly as a seed member restores one (`fetchBackup`), as a one-member cluster on the Pod's
// loopback; what was restored is written for `drill check`.
import { rename, writeFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import { DRILL_MEMBER, DRILL_PEER_URL } from '../../constructs/conventions/drill.js';
import { keyPrefix } from '../backup/key-template.js';
import { RestoreError } from '../restore/exit-codes.js';
import { fetchBackup } from '../restore/fetch.js';
import type { S3Options } from '../s3/client.js';

export interface DrillFetchOptions {
  readonly namespace: string;
  readonly cluster: string;
  readonly bucket: string;
  /** The drilled schedule's key template (prefix included). */
  readonly keyTemplate: string;
  readonly s3: S3Options;
  /** The cluster's etcd version: the restore tool's, and the newest a backup may come from. */
  readonly etcdVersion: string;
  readonly dataDir: string;
  readonly restoredFile: string;
  /** `etcdutl` (3.4: `etcdctl`) of `etcdVersion`. */
  readonly restoreTool: string;
}

/** What `drill fetch` restored: the input of `drill check`. */
export interface Restored {
  readonly key: string;
  /** The revision the backup recorded (decimal). */
  readonly revision: string;
  readonly etcdVersion: string;
  readonly snapshotBytes: number;
  /** How much the restore raised the revision. */
  readonly revisionBump: number;
  /** When `drill fetch` started (ms since the epoch): the drill's duration counts from it. */
  readonly startedAtMs: number;
}

/** Restores the newest backup under the schedule's prefix into `dataDir` and writes `restoredFile`. */
export async function drillFetch(options: DrillFetchOptions, log: Logger, now = Date.now): Promise<Restored> {
  const startedAtMs = now();
  const prefix = keyPrefix(options.keyTemplate, options);
  const result = await fetchBackup(
    {
      source: { bucket: options.bucket, latestUnderPrefix: prefix },
      s3: options.s3,
      dataDir: options.dataDir,
      clusterVersion: options.etcdVersion,
      seed: { name: DRILL_MEMBER, peerURL: DRILL_PEER_URL, token: `${DRILL_MEMBER}-${options.cluster}` },
      restoreTool: options.restoreTool,
    },
    log,
  );
  if (result.outcome !== 'restored') {
    throw new RestoreError(
      'DataDirNotEmpty',
      `the drill's scratch data dir ${options.dataDir} already holds a member: a drill restores into an empty one`,
    );
  }
  const restored: Restored = {
    key: result.key,
    revision: result.revision,
    etcdVersion: result.etcdVersion,
    snapshotBytes: result.snapshotBytes,
    revisionBump: result.revisionBump,
    startedAtMs,
  };
  const part = `${options.restoredFile}.part`;
  await writeFile(part, `${JSON.stringify(restored)}\n`);
  await rename(part, options.restoredFile);
  return restored;
}
