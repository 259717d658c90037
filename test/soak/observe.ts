// What the soak reads of a cluster to judge it (docs/design/soak.md, "The invariants"): the EtcdCluster, its member
// Pods and PVCs, and etcd's own answers, handed to the pure invariants of membership.ts and status.ts.
import { CoreV1Api, CustomObjectsApi, type V1Pod } from '@kubernetes/client-node';
import type { Etcd3 } from 'etcd3';
import {
  MEMBER_LABEL,
  memberSelector,
  RETAINED_BY_RESTORE_LABEL,
  selectorString,
} from '../../constructs/conventions/labels.js';
import type { EtcdCluster } from '../../controller/etcdcluster/api.js';
import type { MembershipSnapshot } from './membership.js';
import type { EtcdAnswer } from './status.js';
import { SOAK_NAMESPACE, type SoakClusterState, type SoakWorld } from './world.js';

export async function readCluster(world: SoakWorld, name: string): Promise<EtcdCluster> {
  return (await world.env.kubeConfig.makeApiClient(CustomObjectsApi).getNamespacedCustomObject({
    group: 'etcd.gitops.dev',
    version: 'v1alpha1',
    plural: 'etcdclusters',
    namespace: SOAK_NAMESPACE,
    name,
  })) as EtcdCluster;
}

/** The cluster's live member Pods: those not being deleted. */
export async function liveMemberPods(world: SoakWorld, name: string): Promise<V1Pod[]> {
  const pods = await world.env.kubeConfig.makeApiClient(CoreV1Api).listNamespacedPod({
    namespace: SOAK_NAMESPACE,
    labelSelector: selectorString(memberSelector(name)),
  });
  return pods.items.filter((pod) => !pod.metadata?.deletionTimestamp);
}

/** The cluster's live member Pods' names, sorted (what `pick` chooses among). */
export async function memberPods(world: SoakWorld, name: string): Promise<string[]> {
  return (await liveMemberPods(world, name)).map((pod) => pod.metadata?.name ?? '').sort();
}

/** etcd's member list, by a new client with a connection of its own (world.ts): one through the Service to a
 *  member that died hangs. */
async function memberList(world: SoakWorld, cluster: SoakClusterState) {
  return world.withClient(cluster, (client) => client.cluster.memberList({ linearizable: false }));
}

/** Membership as etcd, the Pods and the PVCs have it now, judged against `size`. */
export async function membershipSnapshot(
  world: SoakWorld,
  cluster: SoakClusterState,
  size: number,
): Promise<MembershipSnapshot> {
  const core = world.env.kubeConfig.makeApiClient(CoreV1Api);
  const selector = { namespace: SOAK_NAMESPACE, labelSelector: selectorString(memberSelector(cluster.name)) };
  const [list, pods, pvcs] = await Promise.all([
    memberList(world, cluster),
    core.listNamespacedPod(selector),
    core.listNamespacedPersistentVolumeClaim({
      namespace: SOAK_NAMESPACE,
      labelSelector: `app.kubernetes.io/instance=${cluster.name}`,
    }),
  ]);
  const inEtcd = new Set(list.members.map((m) => m.name));
  // A removed member's Pod on a node that is gone or cut off stays Terminating until the node answers again, and
  // the controller deletes the member's volume only once its Pod is gone (membership.md, step 9): until then that
  // volume is on its way out, not in use.
  const stuckRemoved = new Set(
    pods.items
      .filter((pod) => pod.metadata?.deletionTimestamp)
      .map((pod) => pod.metadata?.labels?.[MEMBER_LABEL] ?? '')
      .filter((member) => member && !inEtcd.has(member)),
  );
  return {
    size,
    etcd: list.members.map((m) => ({
      id: String(m.ID),
      ...(m.name ? { name: m.name } : {}),
      learner: !!m.isLearner,
    })),
    pods: pods.items.map((pod) => ({
      name: pod.metadata?.name ?? '',
      member: pod.metadata?.labels?.[MEMBER_LABEL] ?? pod.metadata?.name ?? '',
      terminating: !!pod.metadata?.deletionTimestamp,
    })),
    pvcs: pvcs.items.map((pvc) => ({
      name: pvc.metadata?.name ?? '',
      member: pvc.metadata?.labels?.[MEMBER_LABEL] ?? '',
      // Not a member's volume in use: kept by a restore, or being deleted with its removed member (a PVC waits
      // for its Pod to be gone, and the Pod of a dead node stays Terminating until the node is back).
      retained:
        !!pvc.metadata?.labels?.[RETAINED_BY_RESTORE_LABEL] ||
        !!pvc.metadata?.deletionTimestamp ||
        !pvc.metadata?.labels?.[MEMBER_LABEL] ||
        stuckRemoved.has(pvc.metadata.labels[MEMBER_LABEL]),
    })),
  };
}

/** What etcd itself answers: the member list and each voter's own status, asked at its client URL. */
export async function etcdAnswer(world: SoakWorld, cluster: SoakClusterState): Promise<EtcdAnswer> {
  let members: { clientURLs: string[]; isLearner: boolean }[];
  try {
    members = (await memberList(world, cluster)).members.map((m) => ({
      clientURLs: m.clientURLs,
      isLearner: !!m.isLearner,
    }));
  } catch {
    return { quorum: false, voters: 0, healthyVoters: 0, learners: 0 };
  }
  const voters = members.filter((m) => !m.isLearner);
  const healthy = await Promise.all(
    voters.map(async (m) => {
      const url = m.clientURLs[0];
      if (!url) return false;
      const client: Etcd3 = world.connect({ url, ...(cluster.tls ? { tls: cluster.tls } : {}) });
      try {
        // A linearizable read through this member: it answers only with a leader and quorum behind it.
        await client.get('soak-health').exec();
        return true;
      } catch {
        return false;
      } finally {
        client.close();
      }
    }),
  );
  const healthyVoters = healthy.filter(Boolean).length;
  return {
    quorum: healthyVoters > voters.length / 2,
    voters: voters.length,
    healthyVoters,
    learners: members.length - voters.length,
  };
}

/** Everything under `prefix` as etcd holds it now (linearizable), with the revision of the read. */
export async function contentOf(
  client: Etcd3,
  prefix: string,
): Promise<{ content: Map<string, string>; revision: bigint }> {
  const response = await client.getAll().prefix(prefix).exec();
  return {
    content: new Map(response.kvs.map((kv) => [kv.key.toString(), kv.value.toString()])),
    revision: BigInt(response.header.revision),
  };
}
