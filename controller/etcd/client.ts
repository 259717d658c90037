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

export interface ConnectOptions {
  /**
   * A connection of this client's own, watched by keepalive. By default gRPC shares one connection per address
   * among every client in the process (its global subchannel pool): a connection that hangs (through a proxy or a
   * Service, to a backend that died) then hangs every new client too. The soak's observers ask for their own.
   * @default false: the shared connection, reused across passes
   */
  readonly ownConnection?: boolean;
}

/** An own connection (see {@link ConnectOptions}): a local subchannel pool, and a ping every 10 s answered in 5. */
const OWN_CONNECTION = {
  'grpc.use_local_subchannel_pool': 1,
  'grpc.keepalive_time_ms': 10_000,
  'grpc.keepalive_timeout_ms': 5_000,
} as const;

export function connect(
  endpoint: Endpoint,
  timeoutMs = DEFAULT_CALL_TIMEOUT_MS,
  options: ConnectOptions = {},
): Etcd3 {
  const tls = typeof endpoint === 'string' ? undefined : endpoint.tls;
  return new Etcd3({
    hosts: [endpointUrl(endpoint)],
    dialTimeout: timeoutMs,
    ...(options.ownConnection ? { grpcOptions: OWN_CONNECTION } : {}),
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
  options: ConnectOptions = {},
): Promise<T> {
  const client = connect(endpoint, timeoutMs, options);
  try {
    return await call(client);
  } finally {
    client.close();
  }
}
