// The steps every restore source shares (docs/design/restore.md, "The restore command"): the guard on the data
// dir (step 1), the `restore/` staging directory beside it, and step 4: `etcdutl snapshot restore` of a verified
// snapshot into `restore/data`, fsync, rename to the data dir, remove `restore/`.
import { mkdir, readdir, rm, rmdir, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Logger } from 'pino';
import { restoreToolOf, revisionBumpOf } from './etcd-version.js';
import { RestoreError } from './exit-codes.js';
import { durableRename, syncTree } from './fsync.js';
import { runSnapshotRestore, type SeedIdentity } from './snapshot-restore.js';

/** Where and as whom every restore source writes the seed's data dir. */
export interface RestoreTarget {
  /** The member's data dir, `/var/lib/etcd/data` in a member Pod; its parent holds the `restore/` staging dir. */
  readonly dataDir: string;
  /** The cluster's `spec.version`: a snapshot of a newer minor is refused. */
  readonly clusterVersion: string;
  readonly seed: SeedIdentity;
  /** Path of `etcdutl` (or 3.4's `etcdctl`) matching `clusterVersion`. */
  readonly restoreTool: string;
  /**
   * The highest revision the cluster is known to have given out (`status.revisionFloor`): the restored revision is
   * at least `RESTORE_REVISION_BUMP` above it (docs/design/restore.md, "The revision floor").
   * @default - none: the bump counts from the snapshot only (a new cluster)
   */
  readonly revisionFloor?: string;
}

/** A restore that found the data dir already holding a member: nothing was touched. */
export interface SkippedRestore {
  readonly outcome: 'skipped';
  readonly dataDir: string;
}

/** What the data dir holds: a member already (`restored`), nothing, or an empty directory. */
export type DataDirState = 'restored' | 'absent' | 'empty';

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/** Step 1, and the guard that an existing non-empty data dir is never overwritten. */
async function existingData(dataDir: string): Promise<DataDirState> {
  if (await exists(join(dataDir, 'member'))) return 'restored';
  if (!(await exists(dataDir))) return 'absent';
  const entries = await readdir(dataDir);
  if (entries.length === 0) return 'empty';
  throw new RestoreError(
    'DataDirNotEmpty',
    `${dataDir} holds ${entries.slice(0, 5).join(', ')} but no member/ directory; left untouched, nothing restored`,
  );
}

/** A fresh `restore/` beside the data dir (whatever an interrupted run left there is removed first). */
async function freshStaging(dataDir: string): Promise<string> {
  const work = join(dirname(dataDir), 'restore');
  await rm(work, { recursive: true, force: true });
  await mkdir(work, { recursive: true });
  return work;
}

/** Steps 1-2 of every source: skip a data dir that already holds a member, else a fresh `restore/` to stage in. */
export async function beginRestore(
  dataDir: string,
  log: Logger,
): Promise<SkippedRestore | { readonly state: DataDirState; readonly work: string }> {
  const state = await existingData(dataDir);
  if (state === 'restored') {
    log.info({ dataDir }, 'Data dir already holds a member: nothing to restore, left untouched');
    return { outcome: 'skipped', dataDir };
  }
  return { state, work: await freshStaging(dataDir) };
}

/**
 * Step 4: `snapshot` (verified) becomes the data dir of `seed`, its revision raised by the bump of the cluster
 * version and the revision floor (`snapshotRevision` is the snapshot's, or a lower bound of it); `restore/` is
 * removed. Returns the bump applied.
 */
export async function restoreInto(
  options: RestoreTarget & { state: DataDirState; work: string },
  snapshot: string,
  snapshotRevision: string,
): Promise<number> {
  const staged = join(options.work, 'data');
  const revisionBump = revisionBumpOf(
    restoreToolOf(options.clusterVersion),
    snapshotRevision,
    options.revisionFloor,
  );
  await runSnapshotRestore(options.restoreTool, snapshot, staged, options.seed, revisionBump);
  await syncTree(staged);
  if (options.state === 'empty') await rmdir(options.dataDir);
  await durableRename(staged, options.dataDir);
  await rm(options.work, { recursive: true, force: true });
  return revisionBump;
}
