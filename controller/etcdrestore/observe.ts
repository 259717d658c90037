// Reads everything one restore pass decides on: the EtcdRestore, its EtcdCluster, the cluster's Pods, PVCs and
// etcd view (the membership reconciler's own observation, LIST not cache), and the credentials Secret. Reads only.
import {
  type CoreV1Api,
  CustomObjectsApi,
  type KubeConfig,
  type V1PersistentVolumeClaim,
  type V1Pod,
  type V1Secret,
} from '@kubernetes/client-node';
import { API_GROUP, API_VERSION, ETCD_RESTORE_PLURAL } from '../../constructs/conventions/index.js';
import { isNotFound } from '../runtime/kube.js';
import { isSecretForbidden, readSecret, type SecretForbidden } from '../runtime/secrets.js';
import type { ObjectKey } from '../runtime/types.js';
import type { S3ClientCredentials } from '../s3/client.js';
import type { EtcdCluster, EtcdRestore } from './api.js';
import type { RestorePlanInput } from './types.js';
import {
  type EtcdQuorumView,
  toMemberPodView,
  toMemberPvcView,
  toRestoreView,
  toSurvivorViews,
  toTargetEtcdView,
  toTargetView,
} from './views.js';

/** A cluster as the membership reconciler observes it (controller/etcdcluster `observeCluster`). */
export interface ClusterObservation {
  readonly cluster: EtcdCluster;
  readonly pods: readonly V1Pod[];
  readonly pvcs: readonly V1PersistentVolumeClaim[];
  readonly etcd: EtcdQuorumView | undefined;
}

/**
 * Observes the cluster of `key`, `undefined` when there is none. main.ts passes the membership reconciler's own
 * (`observeCluster`), so both judge quorum and readiness from the same view (docs/design/restore.md, invariant 7).
 */
export type ObserveCluster = (key: ObjectKey) => Promise<ClusterObservation | undefined>;

export interface RestoreObserved {
  readonly restore: EtcdRestore;
  readonly cluster?: ClusterObservation;
  /** The credentials Secret, or why the controller may not read it. */
  readonly secret?: V1Secret | SecretForbidden;
  /** The cluster's lock is another uid's, and no EtcdRestore of that name and uid exists. */
  readonly lockHolderGone?: boolean;
}

export async function getRestore(kubeConfig: KubeConfig, key: ObjectKey): Promise<EtcdRestore | undefined> {
  const api = kubeConfig.makeApiClient(CustomObjectsApi);
  try {
    return (await api.getNamespacedCustomObject({
      group: API_GROUP,
      version: API_VERSION,
      plural: ETCD_RESTORE_PLURAL,
      namespace: key.namespace,
      name: key.name,
    })) as EtcdRestore;
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

/** Observes the cluster (and etcd) only while the restore still has work that depends on it. */
export async function observeRestore(
  kubeConfig: KubeConfig,
  core: CoreV1Api,
  observeCluster: ObserveCluster,
  restore: EtcdRestore,
): Promise<RestoreObserved> {
  const namespace = restore.metadata.namespace as string;
  const phase = restore.status?.phase;
  if (phase === 'Failed') return { restore };
  const observed = await observeCluster({ namespace, name: restore.spec.clusterName });
  const cluster = observed?.cluster;
  const secret = phase === 'Completed' ? undefined : await readCredentialsSecret(core, restore);
  const lock = cluster?.status?.restore;
  const holder =
    lock && lock.uid !== restore.metadata.uid
      ? await getRestore(kubeConfig, { namespace, name: lock.name })
      : undefined;
  const lockHolderGone =
    lock !== undefined && lock.uid !== restore.metadata.uid && holder?.metadata.uid !== lock.uid;
  return {
    restore,
    ...(observed ? { cluster: observed } : {}),
    ...(secret ? { secret } : {}),
    ...(lockHolderGone ? { lockHolderGone } : {}),
  };
}

/** The Secret `spec.backup.credentialsSecretName` names, if any. */
function readCredentialsSecret(
  core: CoreV1Api,
  restore: EtcdRestore,
): Promise<V1Secret | SecretForbidden | undefined> {
  const name = restore.spec.backup?.credentialsSecretName;
  // A web identity has no Secret (only one of the two may be set: the schema's rule and sourceProblem).
  if (!name || restore.spec.backup?.webIdentity) return Promise.resolve(undefined);
  const namespace = restore.metadata.namespace as string;
  return readSecret(core, { namespace, name, cluster: restore.spec.clusterName });
}

const secretKeys = ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY'] as const;

function decode(secret: V1Secret, name: string): string | undefined {
  const value = secret.data?.[name];
  return value === undefined ? secret.stringData?.[name] : Buffer.from(value, 'base64').toString('utf8');
}

/** S3 credentials for a restore, or why the controller cannot have them. */
export type CredentialsFound = { credentials: S3ClientCredentials } | { problem: string };

/** The S3 credentials in the Secret, or why they cannot be used. */
export function credentialsOf(
  restore: EtcdRestore,
  secret: V1Secret | SecretForbidden | undefined,
): CredentialsFound {
  const name = restore.spec.backup?.credentialsSecretName;
  if (isSecretForbidden(secret)) return { problem: secret.forbidden };
  if (!secret) return { problem: `Secret ${name} (spec.backup.credentialsSecretName) does not exist` };
  const missing = secretKeys.filter((key) => !decode(secret, key));
  if (missing.length > 0) return { problem: `Secret ${name} lacks ${missing.join(' and ')}` };
  const sessionToken = decode(secret, 'AWS_SESSION_TOKEN');
  return {
    credentials: {
      accessKeyId: decode(secret, 'AWS_ACCESS_KEY_ID') as string,
      secretAccessKey: decode(secret, 'AWS_SECRET_ACCESS_KEY') as string,
      ...(sessionToken ? { sessionToken } : {}),
    },
  };
}

export function restorePlanInput(observed: RestoreObserved, nonce: string): RestorePlanInput {
  const { restore, cluster } = observed;
  // A web identity's token is requested when the backup is verified (web-identity.ts), not on every pass.
  const credentials =
    restore.status?.phase === 'Completed' || restore.spec.survivor || restore.spec.backup?.webIdentity
      ? undefined
      : credentialsOf(restore, observed.secret);
  return {
    restore: toRestoreView(restore),
    cluster: cluster ? toTargetView(cluster.cluster) : undefined,
    ...(credentials && 'problem' in credentials ? { credentialsProblem: credentials.problem } : {}),
    pods: (cluster?.pods ?? []).flatMap((pod) => toMemberPodView(pod) ?? []),
    pvcs: (cluster?.pvcs ?? []).map(toMemberPvcView),
    etcd: toTargetEtcdView(cluster?.etcd),
    ...(restore.spec.survivor
      ? {
          survivors: toSurvivorViews(cluster?.etcd, cluster?.cluster.status?.clusterID),
          ...(cluster ? { clusterVersion: cluster.cluster.spec.version } : {}),
        }
      : {}),
    ...(observed.lockHolderGone ? { lockHolderGone: true } : {}),
    nonce,
  };
}
