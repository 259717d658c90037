// Members lose their data the way a user or a failed disk takes it: their PVCs and Pods deleted. All the PVCs go
// first, then the Pods, so the controller sees every one of these members stopping or losing its data before any
// of their Pods is gone, and a majority lost is a quorum loss whatever moment its passes run (docs/design/
// membership.md, "Dead members": a removal counts every other member whose Pod or PVC terminates as stopped).
import type { CoreV1Api } from '@kubernetes/client-node';

export interface LoseDataOptions {
  /** Delete the Pods with `gracePeriodSeconds: 0` (gone from the API at once); default: their own grace period. */
  readonly force?: boolean;
}

export async function loseMembersWithData(
  core: CoreV1Api,
  namespace: string,
  members: readonly string[],
  options: LoseDataOptions = {},
): Promise<void> {
  for (const member of members)
    await core.deleteNamespacedPersistentVolumeClaim({ namespace, name: `${member}-data` });
  for (const member of members)
    await core.deleteNamespacedPod({
      namespace,
      name: member,
      ...(options.force ? { gracePeriodSeconds: 0 } : {}),
    });
}
