// Reading a Secret a cluster or restore names (TLS, S3 credentials): the Secret, `undefined` when there is none, or,
// when the controller may not read it (403), why and what grants it, so the status and an Event say so instead of
// a reconcile error that only the controller's log shows. The controller reads Secrets only through the Role each
// EtcdCluster construct makes in its namespace (README, "What it may do"); a cluster applied without it lands here.
import type { CoreV1Api, V1Secret } from '@kubernetes/client-node';
import { controllerSecretsRoleName } from '../../constructs/conventions/names.js';
import { isForbidden, isNotFound } from './kube.js';

/** A Secret the controller's RBAC does not let it read. */
export interface SecretForbidden {
  readonly forbidden: string;
}

export function isSecretForbidden(value: unknown): value is SecretForbidden {
  return typeof (value as SecretForbidden | undefined)?.forbidden === 'string';
}

/** Why the controller cannot read Secret `name` of cluster `cluster`, and the grant that fixes it. */
export function forbiddenSecretMessage(namespace: string, name: string, cluster: string): string {
  return `the controller may not read Secret ${name} in namespace ${namespace} (403 Forbidden): grant its ServiceAccount get on Secrets there, as the Role ${controllerSecretsRoleName(cluster)} the EtcdCluster construct synthesizes does`;
}

export async function readSecret(
  core: CoreV1Api,
  where: { namespace: string; name: string; cluster: string },
): Promise<V1Secret | SecretForbidden | undefined> {
  try {
    return await core.readNamespacedSecret({ namespace: where.namespace, name: where.name });
  } catch (error) {
    if (isNotFound(error)) return undefined;
    if (isForbidden(error))
      return { forbidden: forbiddenSecretMessage(where.namespace, where.name, where.cluster) };
    throw error;
  }
}
