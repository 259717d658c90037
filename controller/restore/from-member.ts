// `restore from-member`: docs/design/restore.md, "Recovery from a surviving member", the seed's side.
//   1. `<data-dir>/member` exists → done, nothing touched (a restarted or recreated seed Pod).
//   2. ask the member at `--member-url` for Status: it must answer as `--member-id` (the survivor the restore
//      chose) with an etcd minor not newer than the cluster's;
//   3. stream its `Maintenance.Snapshot` (served by the member alone, without quorum; it holds every write the member
//      had applied) into `restore/snapshot.db.part`, verifying etcd's trailing sha256; fsync, rename;
//   4. as `restore fetch`: `etcdutl snapshot restore` with the seed's new identity, rename into place.
// The survivor's own data is only read. Any failure removes `restore/` and leaves `<data-dir>` as it was.
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Logger } from 'pino';
import { SnapshotBlobs } from '../backup/snapshot-source.js';
import { SnapshotChecksumError, SnapshotVerifier } from '../backup/snapshot-verifier.js';
import type { EtcdTls } from '../etcd/connection-options.js';
import { MaintenanceClient } from '../etcd/maintenance-client.js';
import type { StatusResponse } from '../etcd/maintenance-messages.js';
import { snapshotVersionProblem } from './etcd-version.js';
import { RestoreError } from './exit-codes.js';
import { durableRename } from './fsync.js';
import { snapshotRevision } from './snapshot-restore.js';
import { beginRestore, type RestoreTarget, restoreInto, type SkippedRestore } from './stage.js';

export interface FromMemberOptions extends RestoreTarget {
  /** The surviving member's client URL. */
  readonly memberUrl: string;
  /** The member id (decimal) it must answer as. */
  readonly memberId: string;
  readonly tls: EtcdTls;
}

export type FromMemberResult =
  | SkippedRestore
  | {
      readonly outcome: 'restored';
      readonly dataDir: string;
      readonly memberUrl: string;
      readonly memberId: string;
      /** The revision of the snapshot restored: every write the member had applied when it was taken. */
      readonly revision: string;
      readonly etcdVersion: string;
      readonly snapshotBytes: number;
      /** How much the restore raised the revision (docs/design/restore.md, "Watchers across a restore"). */
      readonly revisionBump: number;
    };

async function memberStatus(client: MaintenanceClient, options: FromMemberOptions): Promise<StatusResponse> {
  let status: StatusResponse;
  try {
    status = await client.status();
  } catch (error) {
    throw new RestoreError(
      'MemberUnavailable',
      `the member at ${options.memberUrl} did not answer Status: ${(error as Error).message}`,
      { cause: error },
    );
  }
  const id = status.header.memberId;
  if (id !== options.memberId) {
    throw new RestoreError(
      'WrongMember',
      `${options.memberUrl} answers as member ${id}, not the chosen survivor ${options.memberId}; nothing copied`,
    );
  }
  const problem = snapshotVersionProblem(status.version, options.clusterVersion);
  if (problem) throw new RestoreError('SnapshotFromNewerEtcd', `${options.memberUrl}: ${problem}`);
  return status;
}

async function copySnapshot(
  client: MaintenanceClient,
  options: FromMemberOptions,
  file: string,
): Promise<number> {
  const part = `${file}.part`;
  const verifier = new SnapshotVerifier();
  try {
    await pipeline([
      client.snapshot(),
      new SnapshotBlobs(),
      verifier,
      createWriteStream(part, { flush: true }),
    ]);
    await durableRename(part, file);
    return verifier.size;
  } catch (error) {
    await rm(part, { force: true });
    if (error instanceof SnapshotChecksumError) {
      throw new RestoreError('ChecksumMismatch', `the snapshot of ${options.memberUrl}: ${error.message}`, {
        cause: error,
      });
    }
    const e = error as NodeJS.ErrnoException;
    if (typeof e?.syscall === 'string' && typeof e.path === 'string') {
      throw new RestoreError('RestoreFailed', `writing ${part} failed: ${e.message}`, { cause: error });
    }
    throw new RestoreError(
      'MemberUnavailable',
      `the snapshot stream of ${options.memberUrl} failed: ${(error as Error).message}`,
      { cause: error },
    );
  }
}

/** Copies the surviving member's data into `dataDir` as a new one-member cluster, or does nothing when the seed
 *  already has data. */
export async function fetchFromMember(options: FromMemberOptions, log: Logger): Promise<FromMemberResult> {
  const { dataDir } = options;
  const begun = await beginRestore(dataDir, log);
  if ('outcome' in begun) return begun;
  const { state, work } = begun;
  const client = await MaintenanceClient.connect(options.memberUrl, options.tls);
  try {
    const status = await memberStatus(client, options);
    log.info(
      { memberUrl: options.memberUrl, memberId: options.memberId, revision: status.header.revision },
      'The surviving member answers',
    );
    const file = join(work, 'snapshot.db');
    const snapshotBytes = await copySnapshot(client, options, file);
    const revision = await snapshotRevision(options.restoreTool, file);
    log.info({ bytes: snapshotBytes, revision }, 'Copied and verified the survivor snapshot');
    const revisionBump = await restoreInto({ ...options, state, work }, file, revision);
    log.info(
      { dataDir, member: options.seed.name, revision, revisionBump },
      'Restored the data dir from the surviving member',
    );
    return {
      outcome: 'restored',
      dataDir,
      memberUrl: options.memberUrl,
      memberId: options.memberId,
      revision,
      etcdVersion: status.version,
      snapshotBytes,
      revisionBump,
    };
  } catch (error) {
    await rm(work, { recursive: true, force: true });
    throw error;
  } finally {
    client.close();
  }
}
