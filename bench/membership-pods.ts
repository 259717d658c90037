// The two Kubernetes baselines of `npm run bench membership`, on the same nodes as ours:
// - the fair floor: the same member Pods and PVCs as ours (the controller's own builders, without an owner), created
//   by a script that does each of ours' steps as a person with kubectl and etcdctl would, as fast as etcd allows: a
//   new cluster started static (every member at once, `new`), a member added as a learner (`member add --learner`,
//   create the Pod, `member promote` when caught up, polling every 100 ms): what ours costs beyond Kubernetes' and
//   etcd's own time is the controller's;
// - the peer method: a StatefulSet that starts every member at once with a static `--initial-cluster`, as the
//   Bitnami chart and etcd-druid bootstrap a cluster (podManagementPolicy Parallel, written as a person would).
// Both end when etcd itself answers with every member a started voter (ours ends at the EtcdCluster's Ready, which
// the controller decides from the same answer).
import { AppsV1Api, CoreV1Api, type V1Pod, type V1StatefulSet } from '@kubernetes/client-node';
import {
  clientServiceName,
  clientURL,
  DEFAULT_STORAGE_SIZE,
  defaultEtcdImage,
  ETCD_BINARY,
  memberSelector,
  memberSelectorString,
  peerServiceName,
  peerURL,
} from '../constructs/conventions/index.js';
import type { S3Location } from '../constructs/imports/etcd.gitops.dev.js';
import { restrictedContainerSecurityContext, restrictedPodSecurityContext } from '../constructs/security.js';
import {
  addLearner,
  type EtcdMember,
  isCaughtUp,
  isEtcdBusy,
  listMembers,
  memberStatus,
  promoteMember,
  removeMember,
} from '../controller/etcd/members.js';
import type { EtcdCluster } from '../controller/etcdcluster/api.js';
import { buildMemberPod, buildMemberPvc } from '../controller/etcdcluster/member-pod.js';
import { hasServed } from '../controller/etcdcluster/plan-facts.js';
import { withRestoreInitContainer } from '../controller/restore/seed-init-container.js';
import { apiStatus } from '../controller/runtime/kube.js';
import type { Environment } from '../test/env/environment.js';
import { waitFor } from '../test/env/wait.js';
import { createClusterHandle } from '../test/integration/helpers/membership-kube.js';
import { timed } from './stats.js';

/** How often the floors (and the bench's reads of ours) look: 100 ms. */
export const POLL_MS = 100;
const TIMEOUT_MS = 180_000;

/** Retries `call` every 100 ms while etcd refuses it for now (strict reconfiguration, no leader yet). */
async function whileBusy<T>(what: string, call: () => Promise<T>): Promise<T> {
  return waitFor(
    async () => {
      try {
        return { value: await call() };
      } catch (error) {
        if (isEtcdBusy(error) || /ENOTFOUND|ECONNREFUSED|UNAVAILABLE|DEADLINE/i.test(String(error)))
          return false;
        throw error;
      }
    },
    { what, timeoutMs: TIMEOUT_MS, intervalMs: POLL_MS },
  ).then((answer) => answer.value);
}

/** Waits until the member at `url` sees `size` voters that have all served (published client URLs: a static
 *  member is named before it ever ran, so its name is no sign) and a leader. */
export async function allVoters(url: string, size: number): Promise<void> {
  await waitFor(
    async () => {
      try {
        const [status, { members }] = await Promise.all([memberStatus(url), listMembers(url)]);
        return (
          status.leaderId !== '0' &&
          members.length === size &&
          members.every((member) => hasServed(member) && !member.isLearner)
        );
      } catch {
        return false;
      }
    },
    { what: `${size} started voters at ${url}`, timeoutMs: TIMEOUT_MS, intervalMs: POLL_MS },
  );
}

/** Deletes every Pod and PVC of the member selector of `name`, and its two Services, and waits until they are gone. */
export async function removeAll(env: Environment, namespace: string, name: string): Promise<void> {
  const selector = memberSelectorString(name);
  await env.kubectl([
    'delete',
    'statefulset,pod,pvc',
    '-n',
    namespace,
    '-l',
    selector,
    '--wait=true',
    '--timeout=120s',
  ]);
  await env.kubectl([
    'delete',
    'service',
    '-n',
    namespace,
    peerServiceName(name),
    clientServiceName(name),
    '--wait=true',
  ]);
}

/**
 * Deletes an EtcdCluster of ours and waits until its member Pods and PVCs are gone (garbage collection removes them
 * after the cluster object), as {@link removeAll} waits for the script's: the next measurement must not start
 * beside a cluster that is still being torn down (its Pods stopping, its volumes released on the same nodes).
 */
export async function removeCluster(env: Environment, namespace: string, name: string): Promise<void> {
  await env.kubectl(['delete', 'etcdcluster', name, '-n', namespace, '--wait=true', '--timeout=120s']);
  const core = env.kubeConfig.makeApiClient(CoreV1Api);
  const labelSelector = memberSelectorString(name);
  await waitFor(
    async () => {
      const [pods, pvcs] = await Promise.all([
        core.listNamespacedPod({ namespace, labelSelector }),
        core.listNamespacedPersistentVolumeClaim({ namespace, labelSelector }),
      ]);
      return pods.items.length === 0 && pvcs.items.length === 0;
    },
    { what: `the Pods and PVCs of ${name} gone`, timeoutMs: 120_000, intervalMs: POLL_MS },
  );
}

/** Our member Pods and PVCs for one cluster, made by a script (no owner, no controller). */
export function byHand(env: Environment, namespace: string, name: string, version: string) {
  const core = env.kubeConfig.makeApiClient(CoreV1Api);
  const clusterAt = (at: string): EtcdCluster => ({
    apiVersion: 'etcd.gitops.dev/v1alpha1',
    kind: 'EtcdCluster',
    metadata: { name, namespace, uid: 'by-hand' },
    spec: { size: 1, version: at },
  });
  const cluster = clusterAt(version);
  const member = (index: number) => `${name}-${index}`;
  const url = (index: number) => clientURL(name, namespace, member(index), 'http');
  const token = `${name}-by-hand`;
  const pvcOf = (index: number, initialCluster?: string[]) => {
    const pvc = buildMemberPvc(cluster, member(index), initialCluster && token, initialCluster);
    delete pvc.metadata?.ownerReferences;
    return core.createNamespacedPersistentVolumeClaim({ namespace, body: pvc });
  };
  const podOf = (
    index: number,
    state: 'new' | 'existing',
    initialCluster: string[],
    at = version,
    shape: (pod: V1Pod) => V1Pod = (pod) => pod,
  ) => {
    const pod = buildMemberPod(clusterAt(at), {
      member: member(index),
      state,
      initialCluster,
      ...(state === 'new' ? { token } : {}),
    });
    delete pod.metadata?.ownerReferences;
    return core.createNamespacedPod({ namespace, body: shape(pod) });
  };
  return {
    core,
    member,
    url,
    /** Members 0..size-1 at once, `new`, one token, the whole initial cluster (how ours starts a new cluster). */
    async startStatic(size: number): Promise<void> {
      const initial = Array.from({ length: size }, (_, index) => member(index));
      await Promise.all(initial.map((_, index) => pvcOf(index, initial)));
      await Promise.all(initial.map((_, index) => podOf(index, 'new', initial)));
      await allVoters(url(0), size);
    },
    /**
     * A member restarted on its PVC at another version, as a person rolls one by hand: delete its Pod, wait until it
     * is gone, create it again (`existing`, the same initial cluster) with the new version, and wait until the
     * member answers and has caught up (a linearizable read through it, as ours decides).
     */
    async restart(index: number, members: string[], at: string): Promise<void> {
      await core.deleteNamespacedPod({ namespace, name: member(index) });
      await waitFor(
        async () =>
          core.readNamespacedPod({ namespace, name: member(index) }).then(
            () => false,
            (error: unknown) => apiStatus(error) === 404,
          ),
        { what: `Pod ${member(index)} gone`, timeoutMs: TIMEOUT_MS, intervalMs: POLL_MS },
      );
      await podOf(index, 'existing', members, at);
      await waitFor(
        async () => {
          const status = await memberStatus(url(index)).catch(() => undefined);
          return status !== undefined && status.version === at && (await isCaughtUp(url(index)));
        },
        { what: `${member(index)} at ${at}, caught up`, timeoutMs: TIMEOUT_MS, intervalMs: POLL_MS },
      );
    },
    /**
     * A lone seed restored from a backup, as a person restores one by hand: its PVC, and its Pod with the init
     * container of our image that fetches, verifies and restores the backup (`restore fetch`, the same as ours; a
     * person would download and run `etcdutl snapshot restore`), under a new cluster token; waits until it answers
     * as a started voter with a leader.
     */
    async seedFromBackup(index: number, location: S3Location, restoreToken: string): Promise<void> {
      const seed = member(index);
      await pvcOf(index, [seed]);
      await podOf(index, 'new', [seed], version, (pod) =>
        withRestoreInitContainer(pod, {
          location,
          clusterName: name,
          clusterVersion: version,
          member: seed,
          peerURL: peerURL(name, namespace, seed, 'http'),
          token: restoreToken,
        }),
      );
      await allVoters(url(index), 1);
    },
    /**
     * `member add --learner` through the first of `members` (the current voters), the PVC and Pod with `existing`,
     * `member promote` once caught up (polling).
     */
    async join(index: number, members: string[]): Promise<void> {
      const through = clientURL(name, namespace, members[0] as string, 'http');
      const added = await whileBusy(`member add ${member(index)}`, () =>
        addLearner(through, peerURL(name, namespace, member(index), 'http')),
      );
      if (added.outcome !== 'added') throw new Error(`${member(index)} was already a member`);
      await pvcOf(index);
      await podOf(index, 'existing', [...members, member(index)]);
      await waitFor(
        async () => {
          const promoted = await promoteMember(through, added.member.id).catch((error: unknown) => {
            if (isEtcdBusy(error)) return 'not-ready' as const;
            throw error;
          });
          return promoted === 'promoted';
        },
        { what: `member promote ${member(index)}`, timeoutMs: TIMEOUT_MS, intervalMs: POLL_MS },
      );
    },
  };
}

/** One run's figure of each row of the membership bench, in milliseconds (ours, or a floor's). */
export type MembershipSample = Record<
  'size 3 → Ready' | 'size 5 → Ready' | 'one member added' | 'dead member replaced',
  number
>;

/**
 * The fair floor, as ours is measured: a static start of 3 members; 3 → 5 by two learners (halved); the highest
 * member's Pod and PVC deleted, then `member remove` and a new learner (the script knows at once what the
 * controller must detect); a separate static start of 5.
 */
export async function podsByHand(
  env: Environment,
  namespace: string,
  name: string,
  version: string,
): Promise<MembershipSample> {
  await createClusterHandle(env, namespace, name);
  const hand = byHand(env, namespace, name, version);
  const members = (count: number, from = 0) =>
    Array.from({ length: count }, (_, index) => hand.member(from + index));
  let size3: number;
  let twoMore: number;
  let replaced: number;
  try {
    size3 = await timed(() => hand.startStatic(3));
    twoMore = await timed(async () => {
      await hand.join(3, members(3));
      await hand.join(4, members(4));
      await allVoters(hand.url(0), 5);
    });
    replaced = await timed(async () => {
      const victim = hand.member(4);
      await hand.core.deleteNamespacedPersistentVolumeClaim({ namespace, name: `${victim}-data` });
      await hand.core.deleteNamespacedPod({ namespace, name: victim });
      const { members: listed } = await listMembers(hand.url(0));
      const dead = listed.find((member) => member.name === victim) as EtcdMember;
      await whileBusy(`member remove ${victim}`, () => removeMember(hand.url(0), dead.id));
      await hand.join(5, members(4));
      await allVoters(hand.url(0), 5);
    });
  } finally {
    await removeAll(env, namespace, name);
  }
  const five = `${name}-five`;
  await createClusterHandle(env, namespace, five);
  try {
    const size5 = await timed(() => byHand(env, namespace, five, version).startStatic(5));
    return {
      'size 3 → Ready': size3,
      'size 5 → Ready': size5,
      'one member added': twoMore / 2,
      'dead member replaced': replaced,
    };
  } finally {
    await removeAll(env, namespace, five);
  }
}

/** A static-bootstrap StatefulSet as a person writes one (the peer method). */
function statefulSet(name: string, namespace: string, size: number, version: string): V1StatefulSet {
  const peers = Array.from(
    { length: size },
    (_, index) => `${name}-${index}=${peerURL(name, namespace, `${name}-${index}`, 'http')}`,
  ).join(',');
  const dns = `$(POD_NAME).${peerServiceName(name)}.${namespace}.svc`;
  const labels = memberSelector(name);
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name, namespace, labels },
    spec: {
      serviceName: peerServiceName(name),
      replicas: size,
      podManagementPolicy: 'Parallel',
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          securityContext: restrictedPodSecurityContext(),
          automountServiceAccountToken: false,
          enableServiceLinks: false,
          containers: [
            {
              name: 'etcd',
              image: defaultEtcdImage(version),
              command: [ETCD_BINARY],
              args: [
                '--name=$(POD_NAME)',
                '--data-dir=/var/lib/etcd/data',
                '--listen-client-urls=http://0.0.0.0:2379',
                '--listen-peer-urls=http://0.0.0.0:2380',
                `--advertise-client-urls=http://${dns}:2379`,
                `--initial-advertise-peer-urls=http://${dns}:2380`,
                `--initial-cluster=${peers}`,
                '--initial-cluster-state=new',
                `--initial-cluster-token=${name}-static`,
              ],
              env: [{ name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
              volumeMounts: [{ name: 'data', mountPath: '/var/lib/etcd' }],
              securityContext: restrictedContainerSecurityContext(),
            },
          ],
        },
      },
      volumeClaimTemplates: [
        {
          metadata: { name: 'data', labels },
          spec: {
            accessModes: ['ReadWriteOnce'],
            resources: { requests: { storage: DEFAULT_STORAGE_SIZE } },
          },
        },
      ],
    },
  };
}

/** The peer method: milliseconds from the StatefulSet's creation to `size` started voters. */
export async function staticStatefulSet(
  env: Environment,
  namespace: string,
  name: string,
  size: number,
  version: string,
): Promise<number> {
  await createClusterHandle(env, namespace, name);
  const apps = env.kubeConfig.makeApiClient(AppsV1Api);
  try {
    const start = performance.now();
    await apps.createNamespacedStatefulSet({ namespace, body: statefulSet(name, namespace, size, version) });
    await allVoters(clientURL(name, namespace, `${name}-0`, 'http'), size);
    return performance.now() - start;
  } finally {
    await removeAll(env, namespace, name);
  }
}
