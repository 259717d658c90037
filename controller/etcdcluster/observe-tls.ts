// Reads the Secrets spec.tls names (every pass, so a renewed certificate is used from the next pass on) and judges
// them (tls-views.ts). Key bytes stay in memory: never in logs, status or the planner's input.
import type { CoreV1Api } from '@kubernetes/client-node';
import type { TlsSpec } from '../../constructs/conventions/tls.js';
import { isSecretForbidden, readSecret } from '../runtime/secrets.js';
import { type SecretData, type TlsFindings, tlsFindings } from './tls-views.js';

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

/** The findings for `tls` of cluster `cluster`; none without it. */
export async function observeTls(
  core: CoreV1Api,
  { namespace, cluster }: { namespace: string; cluster: string },
  tls: TlsSpec | undefined,
  now = new Date(),
): Promise<TlsFindings | undefined> {
  if (!tls?.client && !tls?.peer) return undefined;
  const names = [
    ...(tls.client ? [tls.client.secretName, tls.client.clientSecretName] : []),
    ...(tls.peer ? [tls.peer.secretName] : []),
  ];
  const unique = [...new Set(names)];
  const data = await Promise.all(unique.map((name) => readSecretData(core, { namespace, name, cluster })));
  return tlsFindings(tls, new Map(unique.map((name, i) => [name, data[i]])), now);
}
