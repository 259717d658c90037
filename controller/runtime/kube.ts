// Kubernetes helpers every part of the controller shares: client configuration, API error codes,
// status merge-patch on the /status subresource (also conditional on a resourceVersion), server-side apply, and
// "not found is success" deletes.
import {
  ApiException,
  type ConfigurationOptions,
  CustomObjectsApi,
  KubeConfig,
  type KubernetesObject,
  KubernetesObjectApi,
  PatchStrategy,
  setHeaderOptions,
} from '@kubernetes/client-node';
import { CONTROLLER_NAME } from '../../constructs/conventions/names.js';
import type { ObjectKey } from './types.js';

/** The field manager of everything the controller writes. */
export const fieldManager = CONTROLLER_NAME;

/** `$KUBECONFIG` / `~/.kube/config` when present, else the in-cluster ServiceAccount. */
export function loadKubeConfig(): KubeConfig {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromDefault();
  if (!kubeConfig.getCurrentCluster())
    throw new Error('no Kubernetes cluster configured (KUBECONFIG, ~/.kube/config or in-cluster)');
  return kubeConfig;
}

/** The HTTP status of a failed API call, or undefined for other errors (network, ...). */
export function apiStatus(error: unknown): number | undefined {
  if (error instanceof ApiException) return error.code;
  const code = (error as { code?: unknown; statusCode?: unknown } | undefined)?.statusCode;
  return typeof code === 'number' ? code : undefined;
}

export const isNotFound = (error: unknown): boolean => apiStatus(error) === 404;
export const isConflict = (error: unknown): boolean => apiStatus(error) === 409;
export const isForbidden = (error: unknown): boolean => apiStatus(error) === 403;
export const isAlreadyExists = isConflict;

/** Request options that send a body as the given patch type (the client does not pick it by itself). */
export function patchOptions(strategy: PatchStrategy): ConfigurationOptions {
  return setHeaderOptions('Content-Type', strategy);
}

/** A custom resource type. */
export interface CustomResource {
  readonly group: string;
  readonly version: string;
  readonly plural: string;
}

/**
 * Merge-patches `.status` of a namespaced custom resource through its /status subresource, so spec (owned by
 * Git) is never written. Keys set to `null` are removed; arrays are replaced whole.
 */
export async function patchStatus<T = unknown>(
  kubeConfig: KubeConfig,
  resource: CustomResource,
  key: ObjectKey,
  status: Record<string, unknown>,
): Promise<T> {
  return mergePatchStatus(kubeConfig, resource, key, { status });
}

/**
 * {@link patchStatus} only if the object is still at `resourceVersion` (the one read in the same pass): `false` when
 * it changed since (409 Conflict), so a write decided on an old view loses instead of overwriting a newer one.
 */
export async function patchStatusAt(
  kubeConfig: KubeConfig,
  resource: CustomResource,
  key: ObjectKey,
  resourceVersion: string | undefined,
  status: Record<string, unknown>,
): Promise<boolean> {
  try {
    await mergePatchStatus(kubeConfig, resource, key, { metadata: { resourceVersion }, status });
    return true;
  } catch (error) {
    if (isConflict(error)) return false;
    throw error;
  }
}

async function mergePatchStatus<T>(
  kubeConfig: KubeConfig,
  resource: CustomResource,
  key: ObjectKey,
  body: Record<string, unknown>,
): Promise<T> {
  const api = kubeConfig.makeApiClient(CustomObjectsApi);
  return api.patchNamespacedCustomObjectStatus(
    { ...resource, namespace: key.namespace, name: key.name, body, fieldManager },
    patchOptions(PatchStrategy.MergePatch),
  );
}

/** Server-side apply of a whole object as the controller's field manager (`force` takes over conflicting fields). */
export async function applyObject<T extends KubernetesObject>(
  kubeConfig: KubeConfig,
  object: T,
  options: { force?: boolean } = {},
): Promise<T> {
  const api = KubernetesObjectApi.makeApiClient(kubeConfig);
  return api.patch(
    object,
    undefined,
    undefined,
    fieldManager,
    options.force ?? false,
    PatchStrategy.ServerSideApply,
  );
}

/** Runs a delete; "already gone" (404) is success. Returns whether this call deleted something. */
export async function deleteIgnoringNotFound(remove: () => Promise<unknown>): Promise<boolean> {
  try {
    await remove();
    return true;
  } catch (error) {
    if (isNotFound(error)) return false;
    throw error;
  }
}
