// Kubernetes helpers every part of the controller shares: client configuration (one kept-alive connection pool per
// configuration), API error codes,
// status merge-patch on the /status subresource (also conditional on a resourceVersion), server-side apply, and
// "not found is success" deletes.
import { createHash } from 'node:crypto';
import { Agent as HttpsAgent, type AgentOptions as HttpsAgentOptions } from 'node:https';
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

/** `$KUBECONFIG` / `~/.kube/config` when present, else the in-cluster ServiceAccount; connections reused. */
export function loadKubeConfig(): KubeConfig {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromDefault();
  if (!kubeConfig.getCurrentCluster())
    throw new Error('no Kubernetes cluster configured (KUBECONFIG, ~/.kube/config or in-cluster)');
  return reuseConnections(kubeConfig);
}

/** A pooled connection idle this long is closed, so a connection to an API server that went away unseen is not
 * kept for the next call. */
export const IDLE_CONNECTION_TIMEOUT_MS = 30_000;

/**
 * Makes every API call of `kubeConfig` share one keep-alive HTTPS agent. The client (1.4) builds a new agent for
 * each call, so each call opened a TCP connection and did a TLS handshake of its own, on the API server too. The
 * shared agent is made from the options the client built (CA, client certificate, key, verification), and made
 * again when those change (a rotated client certificate); a bearer token is a header of each call, read as the
 * client reads it. Calls through a proxy agent keep the client's agent; watches open their own connection, as
 * before. Idle pooled sockets close after `IDLE_CONNECTION_TIMEOUT_MS` and never keep the process alive. Returns
 * the same object.
 */
export function reuseConnections(kubeConfig: KubeConfig): KubeConfig {
  const apply = kubeConfig.applySecurityAuthentication.bind(kubeConfig);
  let shared: { readonly key: string; readonly agent: HttpsAgent } | undefined;
  kubeConfig.applySecurityAuthentication = async (context) => {
    await apply(context);
    const built = context.getAgent();
    if (!built || built.constructor !== HttpsAgent) return;
    const options = (built as HttpsAgent & { options: HttpsAgentOptions }).options;
    const key = agentKey(options);
    if (shared?.key !== key)
      shared = {
        key,
        agent: new HttpsAgent({ ...options, keepAlive: true, timeout: IDLE_CONNECTION_TIMEOUT_MS }),
      };
    context.setAgent(shared.agent);
  };
  return kubeConfig;
}

/** What tells two agents' TLS apart: trust, client credentials, verification, server name. */
function agentKey(options: HttpsAgentOptions): string {
  const parts = [options.ca, options.cert, options.key, options.pfx, options.passphrase];
  const hash = createHash('sha256');
  for (const part of parts) hash.update(`${part === undefined ? '-' : String(part)}\0`);
  hash.update(`${String(options.rejectUnauthorized)}\0${String(options.servername)}`);
  return hash.digest('hex');
}

/** The HTTP status of a failed API call, or undefined for other errors (network, ...). */
export function apiStatus(error: unknown): number | undefined {
  if (error instanceof ApiException) return error.code;
  const code = (error as { code?: unknown; statusCode?: unknown } | undefined)?.statusCode;
  return typeof code === 'number' ? code : undefined;
}

/**
 * The codes with which the API server refuses a write for what it is, not for the moment: 400 (bad request), 403
 * (RBAC, an admission plugin or policy, a ResourceQuota, a missing ServiceAccount) and 422 (invalid). Conflicts, not
 * found, throttling and server errors are the moment's: the work queue retries those with backoff.
 */
const REFUSAL_CODES: ReadonlySet<number> = new Set([400, 403, 422]);

/** A write the API server refused ({@link apiRefusal}): the HTTP code and the Status's message. */
export interface ApiRefusal {
  readonly code: number;
  readonly message: string;
}

/**
 * The refusal in `error` if the API server refused a write for what it is (REFUSAL_CODES), else undefined. An error
 * that only wraps API errors (several writes sent at once) counts by its `cause`, and keeps its own message.
 */
export function apiRefusal(error: unknown): ApiRefusal | undefined {
  const own = apiStatus(error);
  const code = own ?? apiStatus((error as { cause?: unknown } | undefined)?.cause);
  if (code === undefined || !REFUSAL_CODES.has(code)) return undefined;
  const text = error instanceof Error ? error.message : String(error);
  if (own === undefined) return { code, message: text };
  return { code, message: statusMessage(error) ?? text.split('\n')[0] ?? text };
}

/** The `message` of the Status object an API error carries (the client keeps the body as text). */
function statusMessage(error: unknown): string | undefined {
  const body = (error as { body?: unknown }).body;
  let status: unknown = body;
  if (typeof body === 'string') {
    try {
      status = JSON.parse(body);
    } catch {
      return undefined;
    }
  }
  const message = (status as { message?: unknown } | undefined)?.message;
  return typeof message === 'string' && message !== '' ? message : undefined;
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

/**
 * {@link patchStatus}, or `false` when the object is gone (deleted after the pass read it): a 404 counts as gone only
 * when a GET of the object also finds nothing, so a resource without the status subresource still fails.
 */
export async function patchStatusUnlessGone(
  kubeConfig: KubeConfig,
  resource: CustomResource,
  key: ObjectKey,
  status: Record<string, unknown>,
): Promise<boolean> {
  try {
    await mergePatchStatus(kubeConfig, resource, key, { status });
    return true;
  } catch (error) {
    if (!isNotFound(error)) throw error;
    const api = kubeConfig.makeApiClient(CustomObjectsApi);
    const exists = await api
      .getNamespacedCustomObject({ ...resource, namespace: key.namespace, name: key.name })
      .then(
        () => true,
        (getError: unknown) => {
          if (isNotFound(getError)) return false;
          throw getError;
        },
      );
    if (exists) throw error;
    return false;
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
