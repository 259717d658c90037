// Runs `etcdutl snapshot restore` (etcd ≥ 3.5; `etcdctl snapshot restore` for 3.4, same flags) for one seed
// member into a fresh directory. The caller renames the result into place.
import { execFile } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import { promisify } from 'node:util';
import { RestoreError } from './exit-codes.js';

const run = promisify(execFile);

/** Who the seed is: etcd bakes these into the restored data dir (a new cluster id, one member). */
export interface SeedIdentity {
  /** `--name`: the member name. */
  readonly name: string;
  /** `--initial-advertise-peer-urls`: the member's peer URL. */
  readonly peerURL: string;
  /** `--initial-cluster`. @default `<name>=<peerURL>` */
  readonly initialCluster?: string;
  /** `--initial-cluster-token`: fresh for every restore, so the new cluster never talks to the old one. */
  readonly token: string;
}

/**
 * The restore tool's arguments. `revisionBump` > 0 adds `--bump-revision` and the `--mark-compacted` etcd requires
 * with it (docs/design/restore.md, "Watchers across a restore"); 0 adds neither (3.4's etcdctl knows neither).
 */
export function restoreArgs(
  snapshot: string,
  dataDir: string,
  seed: SeedIdentity,
  revisionBump: number,
): string[] {
  return [
    'snapshot',
    'restore',
    snapshot,
    `--data-dir=${dataDir}`,
    `--name=${seed.name}`,
    `--initial-advertise-peer-urls=${seed.peerURL}`,
    `--initial-cluster=${seed.initialCluster ?? `${seed.name}=${seed.peerURL}`}`,
    `--initial-cluster-token=${seed.token}`,
    ...(revisionBump > 0 ? [`--bump-revision=${revisionBump}`, '--mark-compacted'] : []),
  ];
}

/** Restores `snapshot` into `dataDir` (which must not exist) with `tool`, raising the revision by `revisionBump`. */
export async function runSnapshotRestore(
  tool: string,
  snapshot: string,
  dataDir: string,
  seed: SeedIdentity,
  revisionBump: number,
): Promise<void> {
  try {
    await access(tool, constants.X_OK);
  } catch {
    throw new RestoreError(
      'RestoreFailed',
      `the restore tool ${tool} is missing or not executable (set --etcdutl or ETCD_GITOPS_ETCD_TOOLS)`,
    );
  }
  try {
    await run(tool, restoreArgs(snapshot, dataDir, seed, revisionBump), {
      env: { ...process.env, ETCDCTL_API: '3' },
      maxBuffer: 16 * 1024 * 1024,
    });
  } catch (error) {
    const stderr = String((error as { stderr?: string }).stderr ?? '').trim();
    const lastLines = stderr.split('\n').slice(-5).join('\n');
    throw new RestoreError(
      'RestoreFailed',
      `${tool} snapshot restore failed: ${lastLines || (error as Error).message}`,
      {
        cause: error,
      },
    );
  }
}

/** The revision a verified snapshot file holds (`snapshot status -w json`), with the same tool. */
export async function snapshotRevision(tool: string, snapshot: string): Promise<string> {
  try {
    const { stdout } = await run(tool, ['snapshot', 'status', snapshot, '-w', 'json'], {
      env: { ...process.env, ETCDCTL_API: '3' },
    });
    const line = stdout.trim().split('\n').at(-1) ?? '';
    const revision = (JSON.parse(line) as { revision?: number }).revision;
    if (typeof revision !== 'number') throw new Error(`no revision in '${line}'`);
    return String(revision);
  } catch (error) {
    throw new RestoreError('RestoreFailed', `${tool} snapshot status failed: ${(error as Error).message}`, {
      cause: error,
    });
  }
}
