// The Pod a `CreatePod` action makes (pure): the member Pod of its moment, and for a seed that starts from a
// backup (an in-place restore's seed: the lock's source; the first seed of a cluster with
// `spec.bootstrap.backup`: that) the `restore fetch` init container first (docs/design/restore.md; the container
// belongs to controller/restore).
// Every Pod carries the revision of the spec it was built from (docs/design/rolling-update.md).
import type { V1Pod } from '@kubernetes/client-node';
import { peerURL, schemes } from '../../constructs/conventions/index.js';
import { withSeedRestore } from '../restore/seed-init-container.js';
import type { EtcdCluster } from './api.js';
import { buildMemberPod } from './member-pod.js';
import { withPodRevision } from './revision.js';
import type { Action } from './types.js';

export function podForAction(
  cluster: EtcdCluster,
  action: Extract<Action, { kind: 'CreatePod' }>,
  image: string,
): V1Pod {
  const { name, namespace } = cluster.metadata as { name: string; namespace: string };
  const pod = withPodRevision(cluster, buildMemberPod(cluster, action));
  return withSeedRestore(cluster, pod, action, {
    peerURL: peerURL(name, namespace, action.member, schemes(cluster.spec.tls).peer),
    image,
  });
}
