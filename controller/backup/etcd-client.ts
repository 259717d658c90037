// An etcd3 client for one member, set up for a short-lived command: no retries, no circuit breaker (a full
// database must not block calls for 5 s), deadlines on every unary call.
import { readFile } from 'node:fs/promises';
import { noop } from 'cockatiel';
import { Etcd3 } from 'etcd3';

/** TLS files for etcd (the `--cacert`, `--cert`, `--key` flags). */
export interface EtcdTls {
  /** CA bundle to verify members with. @default - the system's CAs (only for https endpoints) */
  readonly caFile?: string;
  /** Client certificate (PEM), with `keyFile`. @default - no client certificate */
  readonly certFile?: string;
  readonly keyFile?: string;
}

/** Deadline of each unary call (Status, Get). */
export const etcdCallTimeoutMs = 10_000;

export async function createEtcdClient(endpoint: string, tls: EtcdTls = {}): Promise<Etcd3> {
  const [rootCertificate, certChain, privateKey] = await Promise.all(
    [tls.caFile, tls.certFile, tls.keyFile].map((file) => (file ? readFile(file) : undefined)),
  );
  const useTls = rootCertificate || certChain || privateKey;
  return new Etcd3({
    hosts: [endpoint],
    dialTimeout: etcdCallTimeoutMs,
    faultHandling: { host: () => noop, global: noop },
    defaultCallOptions: (context) => (context.isStream ? {} : { deadline: Date.now() + etcdCallTimeoutMs }),
    ...(useTls ? { credentials: { rootCertificate: rootCertificate as Buffer, certChain, privateKey } } : {}),
  });
}
