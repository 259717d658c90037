// The command lines the benches run, each written once: our `backup save` and `restore fetch` as a backup Job and a
// seed's init container run them, and the by-hand `etcdutl snapshot restore` they are compared with.
import { restoreArgs } from '../controller/restore/snapshot-restore.js';
import type { Minio } from '../test/env/minio.js';
import { cliPath, s3Args } from '../test/integration/helpers/backup-cli.js';

/** The one member a bench restores into: its name and peer URL. */
export interface BenchSeed {
  readonly name: string;
  readonly peerURL: string;
}

const TOKEN_VALUE = 'bench';
const TOKEN = `--initial-cluster-token=${TOKEN_VALUE}`;

/** `node <cli> backup save` of the member at `endpoint`, as cluster `db<MiB>` of namespace `bench`. */
export function backupSaveArgs(
  endpoint: string,
  databaseMiB: number,
  minio: Pick<Minio, 'endpoint'>,
  bucket: string,
): string[] {
  return [
    cliPath,
    'backup',
    'save',
    `--endpoints=${endpoint}`,
    '--namespace=bench',
    `--cluster=db${databaseMiB}`,
    ...s3Args(minio, bucket),
  ];
}

/** `node <cli> restore fetch` of `key` into `dataDir` for `seed`, with `etcdutl`. */
export function restoreFetchArgs(options: {
  readonly minio: Pick<Minio, 'endpoint'>;
  readonly bucket: string;
  readonly key: string;
  readonly etcdVersion: string;
  readonly dataDir: string;
  readonly seed: BenchSeed;
  readonly etcdutl: string;
}): string[] {
  const { minio, bucket, key, etcdVersion, dataDir, seed, etcdutl } = options;
  return [
    cliPath,
    'restore',
    'fetch',
    ...s3Args(minio, bucket),
    `--key=${key}`,
    `--etcd-version=${etcdVersion}`,
    `--data-dir=${dataDir}`,
    `--name=${seed.name}`,
    `--initial-advertise-peer-urls=${seed.peerURL}`,
    TOKEN,
    `--etcdutl=${etcdutl}`,
  ];
}

/** `etcdutl snapshot restore` of `snapshot` into `dataDir` for `seed`, by hand: the controller's own argument list
 *  (controller/restore/snapshot-restore.ts) without the revision bump, as the baseline has always run. */
export function etcdutlRestoreArgs(snapshot: string, dataDir: string, seed: BenchSeed): string[] {
  return restoreArgs(snapshot, dataDir, { ...seed, token: TOKEN_VALUE }, 0);
}
