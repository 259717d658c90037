// The S3 user metadata of a backup object (docs/design/conventions.md, "backup object metadata").
import type { Compression } from '../../constructs/conventions/backup.js';

/** Value of the marker key on every backup this command wrote. */
export const backupFormat = 'v1';

export type { Compression };

/** Everything recorded about one backup. */
export interface BackupMetadata {
  readonly namespace: string;
  readonly cluster: string;
  /** Decimal; the snapshot holds every write up to this revision (docs/design/backup.md). */
  readonly revision: string;
  readonly etcdVersion: string;
  /** Endpoint of the member that served the snapshot. */
  readonly member: string;
  /** ISO 8601 UTC; backups are ordered by this. */
  readonly time: string;
  readonly snapshotSize: number;
  readonly snapshotSha256: string;
  /** Size and sha256 of the stored object (after compression). */
  readonly objectSize: number;
  readonly objectSha256: string;
  readonly compression: Compression;
}

const names = {
  marker: 'etcd-gitops-backup',
  namespace: 'etcd-namespace',
  cluster: 'etcd-cluster',
  revision: 'etcd-revision',
  etcdVersion: 'etcd-version',
  member: 'etcd-member',
  time: 'backup-time',
  snapshotSize: 'snapshot-size',
  snapshotSha256: 'snapshot-sha256',
  objectSize: 'backup-size',
  objectSha256: 'backup-sha256',
  compression: 'backup-compression',
} as const;

/** S3 user metadata (lower-case names; the SDK adds `x-amz-meta-`). */
export function toS3Metadata(metadata: BackupMetadata): Record<string, string> {
  return {
    [names.marker]: backupFormat,
    [names.namespace]: metadata.namespace,
    [names.cluster]: metadata.cluster,
    [names.revision]: metadata.revision,
    [names.etcdVersion]: metadata.etcdVersion,
    [names.member]: metadata.member,
    [names.time]: metadata.time,
    [names.snapshotSize]: String(metadata.snapshotSize),
    [names.snapshotSha256]: metadata.snapshotSha256,
    [names.objectSize]: String(metadata.objectSize),
    [names.objectSha256]: metadata.objectSha256,
    [names.compression]: metadata.compression,
  };
}

/** The backup metadata of an object, or `undefined` when the object was not written by this command. */
export function fromS3Metadata(raw: Record<string, string>): BackupMetadata | undefined {
  if (raw[names.marker] !== backupFormat) return undefined;
  const text = (name: keyof typeof names) => raw[names[name]] ?? '';
  return {
    namespace: text('namespace'),
    cluster: text('cluster'),
    revision: text('revision'),
    etcdVersion: text('etcdVersion'),
    member: text('member'),
    time: text('time'),
    snapshotSize: Number(text('snapshotSize')),
    snapshotSha256: text('snapshotSha256'),
    objectSize: Number(text('objectSize')),
    objectSha256: text('objectSha256'),
    compression: text('compression') === 'gzip' ? 'gzip' : 'none',
  };
}
