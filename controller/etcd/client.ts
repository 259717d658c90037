// etcd3 clients for the membership controller: one endpoint each, no retries and no circuit breaker (the
// reconcile loop is the retry), a deadline on every call.
import { noop } from 'cockatiel';
import { Etcd3 } from 'etcd3';

/** Deadline of each membership or status call. @default 3000 */
export const DEFAULT_CALL_TIMEOUT_MS = 3_000;

export function connect(endpoint: string, timeoutMs = DEFAULT_CALL_TIMEOUT_MS): Etcd3 {
  return new Etcd3({
    hosts: [endpoint],
    dialTimeout: timeoutMs,
    faultHandling: { host: () => noop, global: noop },
    defaultCallOptions: (context) => (context.isStream ? {} : { deadline: Date.now() + timeoutMs }),
  });
}

/** Runs `call` with a client for `endpoint` and always closes it. */
export async function withClient<T>(
  endpoint: string,
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
