// How much a restore raised the revision, as its seed's `restore` init container reported it (docs/design/soak.md,
// "Restores"): the bump is 10⁹ above the snapshot, or more when the cluster's revision floor decided
// (docs/design/restore.md, "The revision floor"), so the soak reads it instead of assuming it.
import type { V1Pod } from '@kubernetes/client-node';
import { RESTORE_INIT_CONTAINER } from '../../controller/restore/seed-init-container.js';

/** The member Pod whose `restore` init container succeeded last: the seed of the newest restore. */
export function newestSeed(pods: readonly V1Pod[]): string | undefined {
  let newest: { name: string; at: number } | undefined;
  for (const pod of pods) {
    const status = pod.status?.initContainerStatuses?.find((c) => c.name === RESTORE_INIT_CONTAINER);
    const ended = status?.state?.terminated;
    if (ended?.exitCode !== 0 || !ended.finishedAt || !pod.metadata?.name) continue;
    const at = new Date(ended.finishedAt).getTime();
    if (!newest || at > newest.at) newest = { name: pod.metadata.name, at };
  }
  return newest?.name;
}

/** The `revisionBump` of the restore command's last result line in `log` (its JSON lines), if any. */
export function reportedBump(log: string): bigint | undefined {
  let bump: bigint | undefined;
  for (const line of log.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const parsed = JSON.parse(line) as { revisionBump?: unknown };
      if (typeof parsed.revisionBump === 'number') bump = BigInt(parsed.revisionBump);
    } catch {
      // not a JSON line of the command
    }
  }
  return bump;
}
