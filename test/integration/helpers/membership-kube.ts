// EtcdClusters on the local Kubernetes for the e2e membership tests: the CRD, a namespace with each cluster's
// peer and client Services (the constructs make these; the tests make only what they need), apply/read/wait,
// and the membership as etcd, Pods and PVCs each see it.
import { CoreV1Api, CustomObjectsApi, type V1Pod } from '@kubernetes/client-node';
import { App, Chart } from 'cdk8s';
import { etcdClusterCrd, etcdRestoreCrd } from '../../../constructs/api/crds.js';
import {
  API_GROUP_VERSION,
  CLIENT_PORT,
  CLIENT_PORT_NAME,
  clientServiceName,
  clientServiceURL,
  clientURL,
  ETCD_CLUSTER_RESOURCE,
  memberFromPeerURL,
  memberSelector,
  memberSelectorString,
  PEER_PORT,
  PEER_PORT_NAME,
  peerServiceName,
} from '../../../constructs/conventions/index.js';
import { DEFAULT_OPERATOR_NAMESPACE } from '../../../constructs/conventions/names.js';
import { EtcdCluster as EtcdClusterConstruct } from '../../../constructs/etcd-cluster.js';
import { restrictedNamespaceLabels } from '../../../constructs/security.js';
import { listMembers } from '../../../controller/etcd/members.js';
import type { EtcdCluster } from '../../../controller/etcdcluster/api.js';
import { etcdVersions } from '../../env/binaries.js';
import type { Environment } from '../../env/environment.js';
import { waitFor } from '../../env/wait.js';

export const memberLabels = memberSelector;

/** The CRDs (the controller watches both kinds), Established. */
export async function applyCrds(env: Environment): Promise<void> {
  for (const crd of [etcdClusterCrd(), etcdRestoreCrd()]) {
    await env.kubectl(['apply', '--server-side', '-f', '-'], { input: JSON.stringify(crd) });
    await env.kubectl(['wait', '--for=condition=Established', `crd/${crd.metadata.name}`, '--timeout=60s']);
  }
}

/**
 * What an `EtcdCluster` construct grants the controller in the cluster's namespace (a Role and RoleBinding: `get`
 * on Secrets), for tests that create the custom resource directly but let the controller read the cluster's
 * Secrets (S3 credentials, TLS), as under the shipped RBAC it can only with this grant.
 */
export async function applyClusterControllerRbac(
  env: Environment,
  namespace: string,
  name: string,
): Promise<void> {
  const chart = new Chart(new App(), 'cluster', { namespace });
  new EtcdClusterConstruct(chart, name, {
    version: etcdVersions['3.6'],
    operatorNamespace: DEFAULT_OPERATOR_NAMESPACE,
  });
  const rbac = (chart.toJson() as Array<{ kind: string }>).filter(
    (object) => object.kind === 'Role' || object.kind === 'RoleBinding',
  );
  if (rbac.length !== 2)
    throw new Error(`EtcdCluster ${name} synthesized ${rbac.length} RBAC objects, not 2`);
  await env.kubectl(['apply', '--server-side', '-f', '-'], {
    input: rbac.map((object) => `---\n${JSON.stringify(object)}\n`).join(''),
  });
}

/** The CRDs and a namespace enforcing Pod Security `restricted`, as the constructs create it. */
export async function prepareNamespace(env: Environment, namespace: string): Promise<void> {
  await applyCrds(env);
  await env.createNamespace(namespace, restrictedNamespaceLabels());
}

/** What one cluster looks like from etcd, from its Pods and from its PVCs. */
export interface Membership {
  /** Member names in etcd (from the peer URLs), sorted. */
  readonly etcd: string[];
  /** Member ids in etcd, by member name. */
  readonly ids: Map<string, string>;
  readonly pods: V1Pod[];
  /** PVC names, sorted. */
  readonly pvcs: string[];
}

export interface ClusterHandle {
  readonly name: string;
  readonly namespace: string;
  /** `kubectl apply --server-side` of the EtcdCluster with this spec (as a Git sync would). */
  apply(spec: Record<string, unknown>): Promise<void>;
  /** Creates the EtcdCluster with this spec through the API client, in this process: the bench's creation rows, whose
   *  floors create their objects so too (no kubectl process started in either). */
  create(spec: Record<string, unknown>): Promise<void>;
  /** `kubectl scale etcdcluster --replicas=n` (the scale subresource). */
  scale(replicas: number): Promise<void>;
  read(): Promise<EtcdCluster>;
  /** Waits until status says Ready with `size` voting members, all ready; returns that status. Reads every
   *  `intervalMs` (500 ms; the bench reads as often as its floors poll). */
  readyAt(size: number, timeoutMs?: number, intervalMs?: number): Promise<NonNullable<EtcdCluster['status']>>;
  /** The etcd member list (asked of the first member Pod that answers), the Pods and the PVCs. */
  membership(): Promise<Membership>;
  /** The client Service URL, for writers. */
  readonly clientURL: string;
}

export async function createClusterHandle(
  env: Environment,
  namespace: string,
  name: string,
): Promise<ClusterHandle> {
  const core = env.kubeConfig.makeApiClient(CoreV1Api);
  const custom = env.kubeConfig.makeApiClient(CustomObjectsApi);
  await core.createNamespacedService({
    namespace,
    body: {
      metadata: { name: peerServiceName(name) },
      spec: {
        clusterIP: 'None',
        publishNotReadyAddresses: true,
        selector: memberLabels(name),
        ports: [{ name: PEER_PORT_NAME, port: PEER_PORT }],
      },
    },
  });
  await core.createNamespacedService({
    namespace,
    body: {
      metadata: { name: clientServiceName(name) },
      spec: { selector: memberLabels(name), ports: [{ name: CLIENT_PORT_NAME, port: CLIENT_PORT }] },
    },
  });
  const read = async () =>
    (await custom.getNamespacedCustomObject({
      group: ETCD_CLUSTER_RESOURCE.group,
      version: ETCD_CLUSTER_RESOURCE.version,
      plural: ETCD_CLUSTER_RESOURCE.plural,
      namespace,
      name,
    })) as EtcdCluster;
  const selector = memberSelectorString(name);
  const manifest = (spec: Record<string, unknown>) => ({
    apiVersion: API_GROUP_VERSION,
    kind: 'EtcdCluster',
    metadata: { name, namespace },
    spec,
  });
  return {
    name,
    namespace,
    clientURL: clientServiceURL(name, namespace),
    async apply(spec) {
      await env.kubectl(['apply', '--server-side', '--force-conflicts', '--field-manager=git', '-f', '-'], {
        input: JSON.stringify(manifest(spec)),
      });
    },
    async create(spec) {
      await custom.createNamespacedCustomObject({
        group: ETCD_CLUSTER_RESOURCE.group,
        version: ETCD_CLUSTER_RESOURCE.version,
        plural: ETCD_CLUSTER_RESOURCE.plural,
        namespace,
        body: manifest(spec),
      });
    },
    async scale(replicas) {
      await env.kubectl(['scale', 'etcdcluster', name, '-n', namespace, `--replicas=${replicas}`]);
    },
    read,
    readyAt: (size, timeoutMs = 240_000, intervalMs = 500) =>
      waitFor(
        async () => {
          const status = (await read()).status;
          const ready =
            status?.conditions?.find((condition) => condition.type === 'Ready')?.status === 'True';
          const voters = status?.members?.filter((member) => !member.learner && member.ready).length;
          return ready && status?.replicas === size && voters === size && status;
        },
        { what: `${name} Ready with ${size} members`, timeoutMs, intervalMs },
      ),
    async membership() {
      const [pods, pvcs] = await Promise.all([
        core.listNamespacedPod({ namespace, labelSelector: selector }),
        core.listNamespacedPersistentVolumeClaim({ namespace, labelSelector: selector }),
      ]);
      let lastError: unknown;
      for (const pod of pods.items) {
        const member = pod.metadata?.name as string;
        try {
          const { members } = await listMembers(clientURL(name, namespace, member, 'http'));
          const ids = new Map<string, string>();
          for (const entry of members) {
            const found = entry.peerURLs.map((url) => memberFromPeerURL(name, namespace, url)).find(Boolean);
            ids.set(found ?? `foreign:${entry.peerURLs.join(',')}`, entry.id);
          }
          return {
            etcd: [...ids.keys()].sort(),
            ids,
            pods: pods.items,
            pvcs: pvcs.items.map((pvc) => pvc.metadata?.name as string).sort(),
          };
        } catch (error) {
          lastError = error;
        }
      }
      throw new Error(`no member of ${name} answers the member list: ${String(lastError)}`);
    },
  };
}

/** Pod names of a membership, sorted. */
export function podNames(membership: Membership): string[] {
  return membership.pods.map((pod) => pod.metadata?.name as string).sort();
}
