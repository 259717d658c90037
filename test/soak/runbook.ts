// What the soak does as the user when the product asks the user to act (docs/design/soak.md, "The user's part"):
// today one case, a restore's seed lost before it serves (`SeedLost`, docs/design/membership.md step 2.6), which the
// controller leaves to the user because it never force-deletes a Pod.
import { CoreV1Api, type V1Pod } from '@kubernetes/client-node';
import { ANNOTATION_CLUSTER_TOKEN } from '../../constructs/conventions/annotations.js';
import { memberSelector, selectorString } from '../../constructs/conventions/labels.js';
import { pvcName } from '../../constructs/conventions/names.js';
import type { EtcdCluster } from '../../controller/etcdcluster/api.js';
import { RESTORE_REASONS } from '../../controller/restore/facts.js';
import { readCluster } from './observe.js';
import { SOAK_NAMESPACE, type SoakClusterState, type SoakWorld } from './world.js';

/** A runbook step the soak took, for the summary. */
export interface RunbookStep {
  readonly step: number;
  readonly cluster: string;
  readonly what: string;
  /** The uid of the Pod it deleted: each is deleted once. */
  readonly podUid: string;
}

/**
 * The seed Pod to delete: the cluster's status reports its seed lost (`SeedLost` true on a condition), the Pod is
 * the seed (the restore lock's token), on a node the soak has stopped or cut off (`out`), and not already deleted
 * by the soak (`done`, Pod uids). The node guards the next seed: it is made on a node that is up, so a status not yet
 * rewritten after the first deletion never sends the soak to delete the second. `undefined` when there is none.
 */
export function lostSeed(
  cluster: EtcdCluster,
  pods: readonly V1Pod[],
  out: ReadonlySet<string>,
  done: ReadonlySet<string>,
): V1Pod | undefined {
  const status = cluster.status;
  const lost = status?.conditions?.some((c) => c.status === 'True' && c.reason === RESTORE_REASONS.seedLost);
  const token = status?.restore?.token;
  if (!lost || !token) return undefined;
  return pods.find(
    (pod) =>
      pod.metadata?.annotations?.[ANNOTATION_CLUSTER_TOKEN] === token &&
      pod.spec?.nodeName !== undefined &&
      out.has(pod.spec.nodeName) &&
      !done.has(pod.metadata?.uid ?? ''),
  );
}

/**
 * When the cluster reports its seed lost on a node in `out`: deletes the seed's PVC, then its Pod (forced: its node
 * is gone), as the README tells the user, and returns what it did; otherwise nothing. The PVC first: with the Pod
 * gone and the PVC still there, the controller would make the Pod again on it, on the same node.
 */
export async function reseedWhenLost(
  world: SoakWorld,
  cluster: SoakClusterState,
  step: number,
  out: ReadonlySet<string>,
): Promise<RunbookStep | undefined> {
  // Every member Pod, terminating ones too: a seed deleted on a node that is gone stays terminating, and is lost.
  const pods = await world.env.kubeConfig.makeApiClient(CoreV1Api).listNamespacedPod({
    namespace: SOAK_NAMESPACE,
    labelSelector: selectorString(memberSelector(cluster.name)),
  });
  const done = new Set(world.runbook.map((r) => r.podUid));
  const seed = lostSeed(await readCluster(world, cluster.name), pods.items, out, done);
  const name = seed?.metadata?.name;
  const uid = seed?.metadata?.uid;
  if (!name || !uid) return undefined;
  await world.env.kubectl([
    'delete',
    'pvc',
    pvcName(name),
    '-n',
    SOAK_NAMESPACE,
    '--wait=false',
    '--ignore-not-found',
  ]);
  await world.env.kubectl([
    'delete',
    'pod',
    name,
    '-n',
    SOAK_NAMESPACE,
    '--force',
    '--grace-period=0',
    '--ignore-not-found',
  ]);
  return {
    step,
    cluster: cluster.name,
    what: `SeedLost: deleted the seed's PVC ${pvcName(name)}, then its Pod ${name} (forced) on ${seed.spec?.nodeName}`,
    podUid: uid,
  };
}
