// `status.revisionFloor`: the highest etcd revision the controller has seen the cluster give out, which every restore
// counts its revision bump from (docs/design/restore.md, "The revision floor"). Pure.

/**
 * The floor is raised only when the members' revision has grown by at least this much since it was written, so a
 * cluster under steady writes is not re-patched every pass; the restore's bump (10⁹) covers what is not written.
 */
export const REVISION_FLOOR_STEP = 1_000_000n;

/** The floor after a pass that saw `observed` (the answering members' `header.revision`); never lowered. */
export function nextRevisionFloor(
  recorded: string | undefined,
  observed: readonly string[],
): string | undefined {
  let highest: bigint | undefined;
  for (const revision of observed) {
    // Only decimal revisions count (a status without one says nothing about what was given out).
    if (typeof revision !== 'string' || !/^[0-9]+$/.test(revision)) continue;
    const value = BigInt(revision);
    if (highest === undefined || value > highest) highest = value;
  }
  if (highest === undefined) return recorded;
  if (recorded === undefined) return String(highest);
  return highest - BigInt(recorded) >= REVISION_FLOOR_STEP ? String(highest) : recorded;
}
