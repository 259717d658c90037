// etcd3 clients for the membership controller: one endpoint each, no retries and no circuit breaker (the
// reconcile loop is the retry), a deadline on every call.
import { noop } from 'cockatiel';
import { Etcd3 } from 'etcd3';

/** Deadline of each membership or status call. @default 3000 */
export const DEFAULT_CALL_TIMEOUT_MS = 3_000;

/** A client certificate and the CA to verify members with (PEM bytes; kept in memory only). */
export interface ClientTls {
  readonly rootCertificate: Buffer;
  readonly certChain: Buffer;
  readonly privateKey: Buffer;
}

/** A member's client URL, with the client certificate to present when it is `https`. */
export type Endpoint = string | { readonly url: string; readonly tls?: ClientTls };

/** The URL of an endpoint (for logs and messages: never the credentials). */
export function endpointUrl(endpoint: Endpoint): string {
  return typeof endpoint === 'string' ? endpoint : endpoint.url;
}

export function connect(endpoint: Endpoint, timeoutMs = DEFAULT_CALL_TIMEOUT_MS): Etcd3 {
  const tls = typeof endpoint === 'string' ? undefined : endpoint.tls;
  return new Etcd3({
    hosts: [endpointUrl(endpoint)],
    dialTimeout: timeoutMs,
    faultHandling: { host: () => noop, global: noop },
    defaultCallOptions: (context) => (context.isStream ? {} : { deadline: Date.now() + timeoutMs }),
    ...(tls
      ? {
          credentials: {
            rootCertificate: tls.rootCertificate,
            certChain: tls.certChain,
            privateKey: tls.privateKey,
          },
        }
      : {}),
  });
}

/** Runs `call` with a client for `endpoint` and always closes it. */
export async function withClient<T>(
  endpoint: Endpoint,
  call: (client: Etcd3) => Promise<T>,
  timeoutMs = DEFAULT_CALL_TIMEOUT_MS,
): Promise<T> {
  const client = connect(endpoint, timeoutMs);
  try {
    return await call(client);
  } finally {
    client.close();
  }
}
