// The restore drill (docs/design/soak.md, "The invariants"): every backup the product lists is restored once, the
// way a seed's init container restores it (`fetchBackup`: locate, download with every checksum, `etcdutl snapshot
// restore` with the revision bump; docs/design/restore.md, "The restore command"), with the tool of the etcd
// version that wrote it, and etcd of that version started on the result must serve at least the backup's revision
// plus the bump (a backup's recorded revision is a lower bound: the snapshot may hold a few later writes,
// docs/design/backup.md, "What revision means"). Backups are immutable objects, so one drill per key holds for the rest of the run; the listing
// check after every step (backups.ts) sees a later change of size or metadata.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import type { ListedBackup } from '../../controller/backup/list-backups.js';
import { judgeDrill } from '../../controller/drill/check.js';
import { DrillError } from '../../controller/drill/exit-codes.js';
import { memberStatus } from '../../controller/etcd/members.js';
import { restoreToolOf } from '../../controller/restore/etcd-version.js';
import { fetchBackup } from '../../controller/restore/fetch.js';
import { etcdBinary, etcdVersions } from '../env/binaries.js';
import type { Minio } from '../env/minio.js';
import { freePorts } from '../env/ports.js';
import { startEtcdOnDataDir } from '../integration/helpers/restore.js';

/** The etcd build of this machine for a backup's recorded etcd version (its minor; the patch may differ). */
function localVersion(recorded: string): string | undefined {
  const minor = recorded.split('.').slice(0, 2).join('.');
  return (etcdVersions as Record<string, string>)[minor];
}

/** Restores `backup` into a scratch dir and starts etcd on it; resolves a violation text, or undefined. */
export async function drillBackup(
  minio: Minio,
  bucket: string,
  backup: ListedBackup,
): Promise<string | undefined> {
  const { key, metadata } = backup;
  const version = localVersion(metadata.etcdVersion);
  if (!version)
    return `backup ${key}: etcd ${metadata.etcdVersion} wrote it; no etcd of that minor here to drill it`;
  const dir = await mkdtemp(join(tmpdir(), 'soak-drill-'));
  try {
    const [peerPort] = (await freePorts(1)) as [number];
    const seed = { name: 'drill', peerURL: `http://127.0.0.1:${peerPort}`, token: `drill-${peerPort}` };
    const result = await fetchBackup(
      {
        dataDir: join(dir, 'data'),
        clusterVersion: version,
        seed,
        restoreTool: etcdBinary(version, restoreToolOf(version).name),
        source: { bucket, key },
        s3: {
          endpoint: minio.endpoint,
          forcePathStyle: true,
          credentials: { accessKeyId: minio.accessKey, secretAccessKey: minio.secretKey },
          region: minio.region,
        },
      },
      pino({ level: 'warn' }),
    );
    if (result.outcome !== 'restored') return `backup ${key}: the drill found its scratch data dir taken`;
    const etcd = await startEtcdOnDataDir(version, join(dir, 'data'), seed.name, peerPort, dir);
    try {
      // The product's own verdict (`drill check`, docs/design/restore-drill.md); the key count is not judged.
      const verdict = judgeDrill(
        { ...result, startedAtMs: 0 },
        { revision: (await memberStatus(etcd.clientURL)).revision, keys: 0 },
        0,
      );
      return verdict instanceof DrillError ? `backup ${key}: ${verdict.message}` : undefined;
    } finally {
      await etcd.stop();
    }
  } catch (error) {
    return `backup ${key} does not restore: ${(error as Error).message}`;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
