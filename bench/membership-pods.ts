// The two Kubernetes baselines of `npm run bench membership`, on the same nodes as ours:
// - the fair floor: the same member Pods and PVCs as ours (the controller's own builders, without an owner), created
//   and joined by a script that does what a person with kubectl and etcdctl would, as fast as etcd allows
//   (`member add --learner`, create the Pod, `member promote` when caught up, polling every 100 ms): what ours costs
//   beyond Kubernetes' and etcd's own time is the controller's;
// - the peer method: a StatefulSet that starts every member at once with a static `--initial-cluster`, as the
//   Bitnami chart and etcd-druid bootstrap a cluster (podManagementPolicy Parallel, written as a person would).
// Both end when etcd itself answers with every member a started voter (ours ends at the EtcdCluster's Ready, which
// the controller decides from the same answer).
import { AppsV1Api, CoreV1Api, type V1StatefulSet } from '@kubernetes/client-node';
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
import { restrictedContainerSecurityContext, restrictedPodSecurityContext } from '../constructs/security.js';
import {
  addLearner,
  isEtcdBusy,
  listMembers,
  memberStatus,
  promoteMember,
} from '../controller/etcd/members.js';
import type { EtcdCluster } from '../controller/etcdcluster/api.js';
import { buildMemberPod, buildMemberPvc } from '../controller/etcdcluster/member-pod.js';
import type { Environment } from '../test/env/environment.js';
import { waitFor } from '../test/env/wait.js';
import { createClusterHandle } from '../test/integration/helpers/membership-kube.js';

const POLL_MS = 100;
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

/** Waits until the member at `url` sees `size` started voters (names set, no learner) and a leader. */
async function allVoters(url: string, size: number): Promise<void> {
  await waitFor(
    async () => {
      try {
        const [status, { members }] = await Promise.all([memberStatus(url), listMembers(url)]);
        return (
          status.leaderId !== '0' &&
          members.length === size &&
          members.every((member) => member.name !== '' && !member.isLearner)
        );
      } catch {
        return false;
      }
    },
    { what: `${size} started voters at ${url}`, timeoutMs: TIMEOUT_MS, intervalMs: POLL_MS },
  );
}

/** Deletes every Pod and PVC of the member selector of `name`, and its two Services, and waits until they are gone. */
async function removeAll(env: Environment, namespace: string, name: string): Promise<void> {
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

/** The fair floor: milliseconds from the seed's PVC to `size` started voters, joined one learner at a time. */
export async function podsByHand(
  env: Environment,
  namespace: string,
  name: string,
  size: number,
  version: string,
  onStep: (step: string, atMs: number) => void = () => undefined,
): Promise<number> {
  await createClusterHandle(env, namespace, name);
  const core = env.kubeConfig.makeApiClient(CoreV1Api);
  const cluster: EtcdCluster = {
    apiVersion: 'etcd.gitops.dev/v1alpha1',
    kind: 'EtcdCluster',
    metadata: { name, namespace, uid: 'by-hand' },
    spec: { size, version },
  };
  const members = Array.from({ length: size }, (_, index) => `${name}-${index}`);
  const url = (member: string) => clientURL(name, namespace, member, 'http');
  const create = async (
    member: string,
    state: 'new' | 'existing',
    initialCluster: string[],
    token?: string,
  ) => {
    const pvc = buildMemberPvc(cluster, member, token);
    const pod = buildMemberPod(cluster, { member, state, initialCluster, ...(token ? { token } : {}) });
    delete pvc.metadata?.ownerReferences;
    delete pod.metadata?.ownerReferences;
    await core.createNamespacedPersistentVolumeClaim({ namespace, body: pvc });
    await core.createNamespacedPod({ namespace, body: pod });
  };
  try {
    const start = performance.now();
    const step = (what: string) => onStep(what, performance.now() - start);
    const [seed] = members as [string];
    await create(seed, 'new', [seed], `${name}-by-hand`);
    step(`${seed} PVC and Pod created`);
    await whileBusy(`${seed} answers`, () => memberStatus(url(seed)));
    step(`${seed} answers`);
    for (let index = 1; index < size; index += 1) {
      const member = members[index] as string;
      const added = await whileBusy(`member add ${member}`, () =>
        addLearner(url(seed), peerURL(name, namespace, member, 'http')),
      );
      if (added.outcome !== 'added') throw new Error(`${member} was already a member`);
      step(`${member} added as a learner`);
      await create(member, 'existing', members.slice(0, index + 1));
      step(`${member} PVC and Pod created`);
      await waitFor(
        async () => {
          const promoted = await promoteMember(url(seed), added.member.id).catch((error: unknown) => {
            if (isEtcdBusy(error)) return 'not-ready' as const;
            throw error;
          });
          return promoted === 'promoted';
        },
        { what: `member promote ${member}`, timeoutMs: TIMEOUT_MS, intervalMs: POLL_MS },
      );
      step(`${member} promoted`);
    }
    await allVoters(url(seed), size);
    return performance.now() - start;
  } finally {
    await removeAll(env, namespace, name);
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
