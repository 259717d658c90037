// The soak's watch invariant (docs/design/soak.md, "The invariants"): a watcher on the writer's keys is never
// silently wrong. It starts by reading the keys at a revision and watching from the next (a `resync`), and does the
// same again after an error (e.g. compacted). Watch events come in revision order, so once a watcher has seen
// revision r it must have been given every write of the cluster's current history up to r since its last resync.
// Pure: the executor records the watcher's log and hands it here with the writes acknowledged in the current
// history (WriteRecord.ackedNow()).

export type WatchEntry =
  | { readonly kind: 'resync'; readonly revision: bigint }
  | { readonly kind: 'event'; readonly revision: bigint; readonly key: string }
  | { readonly kind: 'error'; readonly message: string };

/**
 * The violations: a revision given twice or going back (a restore that reissues revisions clients have seen: what
 * etcd's `--bump-revision` prevents), and an acknowledged write the watcher was never given although it has seen a
 * later revision without an error in between (a silent gap).
 */
export function watchViolations(
  log: readonly WatchEntry[],
  acked: readonly { readonly key: string; readonly revision: bigint }[],
): string[] {
  const violations: string[] = [];
  let highest: bigint | undefined;
  let resyncedAt: bigint | undefined;
  let seen = new Set<string>();
  let last: bigint | undefined;
  for (const entry of log) {
    if (entry.kind === 'error') continue;
    if (entry.kind === 'resync') {
      if (highest !== undefined && entry.revision < highest)
        violations.push(`resynced at revision ${entry.revision}, below revision ${highest} seen before`);
      resyncedAt = entry.revision;
      last = entry.revision;
      seen = new Set();
    } else {
      if (highest !== undefined && entry.revision <= highest)
        violations.push(
          `event ${entry.key} at revision ${entry.revision}, not above revision ${highest} seen before`,
        );
      seen.add(entry.key);
      last = entry.revision;
    }
    highest = highest === undefined || entry.revision > highest ? entry.revision : highest;
  }
  if (resyncedAt === undefined || last === undefined) return violations;
  for (const { key, revision } of acked) {
    if (revision > resyncedAt && revision <= last && !seen.has(key))
      violations.push(
        `write ${key} at revision ${revision} never given, though the watcher saw revision ${last} (resynced at ${resyncedAt})`,
      );
  }
  return violations;
}
