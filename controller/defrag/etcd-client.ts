// An etcd3 client for one member, set up for a short-lived command: no retries, no circuit breaker (a full
// database must not block calls for 5 s), deadlines on every unary call. For the defrag command, which calls
// Status, Defragment, Alarm and MemberList; backup and restore read Status and Snapshot through our own
// Maintenance client (controller/etcd/maintenance-client.ts).
import { noop } from 'cockatiel';
import { Etcd3 } from 'etcd3';
import { type EtcdTls, etcdCallTimeoutMs, readTlsFiles } from '../etcd/connection-options.js';

export async function createEtcdClient(endpoint: string, tls: EtcdTls = {}): Promise<Etcd3> {
  const material = await readTlsFiles(tls);
  return new Etcd3({
    hosts: [endpoint],
    dialTimeout: etcdCallTimeoutMs,
    faultHandling: { host: () => noop, global: noop },
    defaultCallOptions: (context) => (context.isStream ? {} : { deadline: Date.now() + etcdCallTimeoutMs }),
    ...(material
      ? { credentials: { ...material, rootCertificate: material.rootCertificate as Buffer } }
      : {}),
  });
}
