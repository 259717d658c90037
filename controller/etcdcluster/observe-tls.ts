// Reads the Secrets spec.tls names (every fresh pass, so a renewed certificate is used from the next fresh pass on;
// docs/design/controller-runtime.md, "Fresh passes and quiet passes"); tls-views.ts judges them. Key bytes stay in
// memory: never in logs, status or the planner's input.
import type { CoreV1Api } from '@kubernetes/client-node';
import type { TlsSpec } from '../../constructs/conventions/tls.js';
import { isSecretForbidden, readSecret } from '../runtime/secrets.js';
import type { SecretData } from './tls-views.js';

/** The Secrets of `spec.tls` by name, as read. */
export type TlsSecrets = ReadonlyMap<string, SecretData>;

async function readSecretData(
  core: CoreV1Api,
  where: { namespace: string; name: string; cluster: string },
): Promise<SecretData> {
  const secret = await readSecret(core, where);
  if (secret === undefined || isSecretForbidden(secret)) return secret;
  return Object.fromEntries(
    Object.entries(secret.data ?? {}).map(([key, value]) => [key, Buffer.from(value, 'base64')]),
  );
}

/**
 * The Secrets `tls` names, by name, as read now; none without `spec.tls`. A fresh pass reads them; a quiet pass
 * judges the ones its fresh pass read (at-rest.ts), each at its own time (`tlsFindings`).
 */
export async function readTlsSecrets(
  core: CoreV1Api,
  { namespace, cluster }: { namespace: string; cluster: string },
  tls: TlsSpec | undefined,
): Promise<TlsSecrets | undefined> {
  if (!tls?.client && !tls?.peer) return undefined;
  const names = [
    ...(tls.client ? [tls.client.secretName, tls.client.clientSecretName] : []),
    ...(tls.peer ? [tls.peer.secretName] : []),
  ];
  const unique = [...new Set(names)];
  const data = await Promise.all(unique.map((name) => readSecretData(core, { namespace, name, cluster })));
  return new Map(unique.map((name, i) => [name, data[i]]));
}
