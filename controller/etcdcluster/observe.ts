// Reads everything a fresh pass decides on: the EtcdCluster, its member Pods and PVCs (LIST, not the informer cache,
// so a write of the previous pass is never missed), and the etcd view through the member Pods' client URLs. A quiet
// pass (at-rest.ts) reads etcd alone, through `observeEtcdOf`.
import {
  BatchV1Api,
  type CoreV1Api,
  CustomObjectsApi,
  type KubeConfig,
  type V1Node,
  type V1PersistentVolumeClaim,
  type V1Pod,
} from '@kubernetes/client-node';
import {
  API_GROUP,
  API_VERSION,
  backupStatusSelectorString,
  clientServiceName,
  clientURL,
  ETCD_CLUSTER_PLURAL,
  failureBounds,
  memberFromPeerURL,
  memberSelectorString,
  peerServiceName,
  schemes,
} from '../../constructs/conventions/index.js';
import { isNotFound } from '../runtime/kube.js';
import type { ObjectKey } from '../runtime/types.js';
import type { EtcdCluster } from './api.js';
import type { BackupObjects } from './at-rest.js';
import { type EtcdObservation, type MemberEndpoint, observeEtcd } from './observe-etcd.js';
import { readTlsSecrets, type TlsSecrets } from './observe-tls.js';
import { type TlsFindings, tlsFindings } from './tls-views.js';
import type { PlanInput } from './types.js';
import { type NodeReadings, toClusterView, toPodView, toPvcView } from './views.js';

export interface Observed {
  readonly cluster: EtcdCluster;
  readonly pods: readonly V1Pod[];
  readonly pvcs: readonly V1PersistentVolumeClaim[];
  readonly etcd: EtcdObservation | undefined;
  /** The Secrets of spec.tls, judged; none without spec.tls. */
  readonly tls?: TlsFindings;
  /** The Secrets of spec.tls as read, which `tls` judges; none without spec.tls. */
  readonly tlsSecrets?: TlsSecrets;
  /** The Nodes the member Pods are bound to (docs/design/membership.md, "Lost members"). */
  readonly nodes: NodeReadings;
  /** The cluster's peer and client Services that do not exist. */
  readonly missingServices: readonly string[];
  /** Its backup CronJobs and their Jobs' Pods (docs/design/backup-status.md). */
  readonly backups: BackupObjects;
}

/**
 * How long after its creation a cluster without its Services is reported (`ServiceMissing`, membership.md step 3):
 * a sync may apply the EtcdCluster a moment before them.
 */
export const SERVICE_MISSING_AFTER_MS = 30_000;

/** Which of the cluster's peer and client Services do not exist. */
async function missingServices(core: CoreV1Api, name: string, namespace: string): Promise<string[]> {
  const read = await Promise.all(
    [peerServiceName(name), clientServiceName(name)].map(async (service) => {
      try {
        await core.readNamespacedService({ name: service, namespace });
        return undefined;
      } catch (error) {
        if (isNotFound(error)) return service;
        throw error;
      }
    }),
  );
  return read.filter((service): service is string => service !== undefined);
}

async function getCluster(kubeConfig: KubeConfig, key: ObjectKey): Promise<EtcdCluster | undefined> {
  const api = kubeConfig.makeApiClient(CustomObjectsApi);
  try {
    return (await api.getNamespacedCustomObject({
      group: API_GROUP,
      version: API_VERSION,
      plural: ETCD_CLUSTER_PLURAL,
      namespace: key.namespace,
      name: key.name,
    })) as EtcdCluster;
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

/** The Node of every member Pod bound to one, read fresh; `missing` when the Node object is gone. */
async function readNodes(core: CoreV1Api, pods: readonly V1Pod[]): Promise<NodeReadings> {
  const names = [...new Set(pods.flatMap((pod) => (pod.spec?.nodeName ? [pod.spec.nodeName] : [])))];
  const read = await Promise.all(
    names.map(async (name): Promise<[string, V1Node | 'missing']> => {
      try {
        return [name, await core.readNode({ name })];
      } catch (error) {
        if (isNotFound(error)) return [name, 'missing'];
        throw error;
      }
    }),
  );
  return new Map(read);
}

/** What to ask each member Pod that is not terminating: its client URL and the client certificate of `tls`. */
export function memberEndpoints(
  cluster: EtcdCluster,
  pods: readonly V1Pod[],
  tls: TlsFindings | undefined,
): MemberEndpoint[] {
  const { name, namespace } = cluster.metadata as { name: string; namespace: string };
  const scheme = schemes(cluster.spec.tls).client;
  return pods
    .map((pod) => toPodView(pod))
    .flatMap((pod) =>
      pod && !pod.terminating
        ? [
            {
              member: pod.member,
              clientURL: clientURL(name, namespace, pod.member, scheme),
              ...(scheme === 'https' && tls?.client ? { tls: tls.client } : {}),
            },
          ]
        : [],
    );
}

/** The etcd view through `memberEndpoints`; none without a member Pod that is not terminating. */
export async function observeEtcdOf(
  cluster: EtcdCluster,
  pods: readonly V1Pod[],
  tls: TlsFindings | undefined,
): Promise<EtcdObservation | undefined> {
  const { name, namespace } = cluster.metadata as { name: string; namespace: string };
  const endpoints = memberEndpoints(cluster, pods, tls);
  if (endpoints.length === 0) return undefined;
  return observeEtcd(
    endpoints,
    (url) => memberFromPeerURL(name, namespace, url),
    // An in-place restore seeds a new cluster id: only pin the recorded one outside a restore.
    cluster.status?.restore ? undefined : cluster.status?.clusterID,
  );
}

/** The member Pods and PVCs of a cluster, its missing Services and its backup objects: what a fresh pass lists,
 *  needing only its key. */
interface Listed {
  readonly pods: readonly V1Pod[];
  readonly pvcs: readonly V1PersistentVolumeClaim[];
  readonly missingServices: readonly string[];
  readonly backups: BackupObjects;
}

/** Lists the member Pods and PVCs and the backup CronJobs and Pods of the cluster at `key` and looks up its
 *  Services, from the API server. */
async function listMemberObjects(kubeConfig: KubeConfig, core: CoreV1Api, key: ObjectKey): Promise<Listed> {
  const { name, namespace } = key;
  const labelSelector = memberSelectorString(name);
  const backups = backupStatusSelectorString(name);
  const [pods, pvcs, missing, cronJobs, backupPods] = await Promise.all([
    core.listNamespacedPod({ namespace, labelSelector }),
    core.listNamespacedPersistentVolumeClaim({ namespace, labelSelector }),
    missingServices(core, name, namespace),
    kubeConfig.makeApiClient(BatchV1Api).listNamespacedCronJob({ namespace, labelSelector: backups }),
    core.listNamespacedPod({ namespace, labelSelector: backups }),
  ]);
  return {
    pods: pods.items,
    pvcs: pvcs.items,
    missingServices: missing,
    backups: { cronJobs: cronJobs.items, pods: backupPods.items },
  };
}

/** Everything a fresh pass decides on from the cluster and `listed`: the TLS Secrets the cluster names, then the
 *  etcd view through its Pods and their Nodes, read from the API server (never a cache) and from etcd. */
async function observe(core: CoreV1Api, cluster: EtcdCluster, listed: Listed): Promise<Observed> {
  const { name, namespace } = cluster.metadata as { name: string; namespace: string };
  const { pods } = listed;
  const tlsSecrets = await readTlsSecrets(core, { namespace, cluster: name }, cluster.spec.tls);
  const tls = tlsSecrets ? tlsFindings(cluster.spec.tls, tlsSecrets, new Date()) : undefined;
  const [etcd, nodes] = await Promise.all([observeEtcdOf(cluster, pods, tls), readNodes(core, pods)]);
  return {
    cluster,
    pods,
    pvcs: listed.pvcs,
    etcd,
    nodes,
    missingServices: listed.missingServices,
    backups: listed.backups,
    ...(tls && tlsSecrets ? { tls, tlsSecrets } : {}),
  };
}

/**
 * The cluster of `key` and everything a fresh pass decides on; `undefined` when there is no cluster. The cluster
 * and its member objects are read at once: neither waits for the other (a pass's latency is what a change waits for).
 */
export async function observeByKey(
  kubeConfig: KubeConfig,
  core: CoreV1Api,
  key: ObjectKey,
): Promise<Observed | undefined> {
  const [cluster, listed] = await Promise.all([
    getCluster(kubeConfig, key),
    listMemberObjects(kubeConfig, core, key),
  ]);
  return cluster ? observe(core, cluster, listed) : undefined;
}

/** The planner's input from what was observed, at `nowMs` (the clock the lost rule compares against). */
export function planInput(observed: Observed, nonce: string, nowMs = Date.now()): PlanInput {
  const loss = {
    nodes: observed.nodes,
    bounds: failureBounds(observed.cluster.spec.failureDetection),
    nowMs,
  };
  return {
    cluster: toClusterView(observed.cluster),
    pods: observed.pods.flatMap((pod) => toPodView(pod, loss) ?? []),
    pvcs: observed.pvcs.flatMap((pvc) => toPvcView(pvc) ?? []),
    etcd: observed.etcd?.view,
    nonce,
    ...(observed.tls ? { tls: observed.tls.secrets } : {}),
    ...(reportsMissingServices(observed, nowMs) ? { missingServices: observed.missingServices } : {}),
  };
}

/** Missing Services count once the cluster is older than `SERVICE_MISSING_AFTER_MS`. */
export function reportsMissingServices(observed: Observed, nowMs: number): boolean {
  const created = observed.cluster.metadata.creationTimestamp;
  if (observed.missingServices.length === 0 || !created) return false;
  return nowMs - new Date(created as string | Date).getTime() >= SERVICE_MISSING_AFTER_MS;
}
