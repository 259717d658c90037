// The soak's backup invariants (docs/design/soak.md, "The invariants"): no listed backup is partial, the newest
// backup the soak took is never deleted, and each listed backup records the revision the soak saw it take. Pure:
// the executor lists the bucket with the product's own listing (controller/backup/list-backups.ts), optionally
// downloads objects to hash them, and hands both here with its record of the backups it took. Whether each listed
// backup restores is a drill the executor runs, not a check here.
import type { BackupListing } from '../../controller/backup/list-backups.js';

/** A backup the soak saw complete (its Job succeeded), in order. */
export interface BackupTaken {
  readonly key: string;
  readonly revision: string;
}

export function backupViolations(
  listing: BackupListing,
  taken: readonly BackupTaken[],
  /** sha256 (hex) of the objects the executor downloaded, by key. */
  downloaded: ReadonlyMap<string, string> = new Map(),
): string[] {
  const violations: string[] = [];
  for (const { key, size, metadata } of listing.backups) {
    if (size !== metadata.objectSize)
      violations.push(
        `partial backup ${key}: ${size} bytes stored, its metadata says ${metadata.objectSize}`,
      );
    const sha = downloaded.get(key);
    if (sha !== undefined && sha !== metadata.objectSha256)
      violations.push(`partial backup ${key}: sha256 ${sha}, its metadata says ${metadata.objectSha256}`);
    const recorded = taken.find((t) => t.key === key);
    if (recorded && recorded.revision !== metadata.revision)
      violations.push(`backup ${key} records revision ${metadata.revision}, taken at ${recorded.revision}`);
  }
  const newest = taken.at(-1);
  if (newest && !listing.backups.some((b) => b.key === newest.key))
    violations.push(`the newest backup ${newest.key} is gone`);
  return violations;
}
