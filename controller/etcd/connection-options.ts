// How the short-lived commands (backup, restore, defrag) reach one etcd member: TLS files and the deadline of
// each unary call. Shared by the etcd3 client (controller/defrag/etcd-client.ts) and our Maintenance client
// (maintenance-client.ts); this file imports neither, so a command that loads one does not load the other.
import { readFile } from 'node:fs/promises';

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

/** The contents of the TLS files given, as gRPC takes them; `undefined` when none is given. */
export interface TlsMaterial {
  readonly rootCertificate?: Buffer;
  readonly certChain?: Buffer;
  readonly privateKey?: Buffer;
}

export async function readTlsFiles(tls: EtcdTls): Promise<TlsMaterial | undefined> {
  const [rootCertificate, certChain, privateKey] = await Promise.all(
    [tls.caFile, tls.certFile, tls.keyFile].map((file) => (file ? readFile(file) : undefined)),
  );
  if (!rootCertificate && !certChain && !privateKey) return undefined;
  return {
    ...(rootCertificate ? { rootCertificate } : {}),
    ...(certChain ? { certChain } : {}),
    ...(privateKey ? { privateKey } : {}),
  };
}
