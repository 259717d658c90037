// What an etcd member tells over plain HTTP: its server and cluster version (`GET /version` on the client URL)
// and its raft progress (`GET /metrics` on the metrics URL, which etcd serves before the client API is ready, so
// a restarting member's progress is visible while it catches up).
import { httpGet } from '../../env/http-get.js';

export interface EtcdVersions {
  /** The binary's version, e.g. `3.6.16`. */
  readonly server: string;
  /** The version the cluster runs at, `X.Y.0`, decided by the leader; `not_decided` at first. */
  readonly cluster: string;
}

export async function memberVersions(clientURL: string): Promise<EtcdVersions> {
  const { status, body } = await httpGet(`${clientURL}/version`);
  if (status !== 200) throw new Error(`GET ${clientURL}/version answered ${status}: ${body}`);
  const parsed = JSON.parse(body) as { etcdserver: string; etcdcluster: string };
  return { server: parsed.etcdserver, cluster: parsed.etcdcluster };
}

export interface RaftProgress {
  /** `etcd_server_proposals_committed_total`: the member's commit index. */
  readonly committed: number;
  /** `etcd_server_proposals_applied_total`: the member's applied index. */
  readonly applied: number;
}

export async function raftProgress(metricsURL: string, timeoutMs = 1_000): Promise<RaftProgress> {
  const { status, body } = await httpGet(`${metricsURL}/metrics`, {}, timeoutMs);
  if (status !== 200) throw new Error(`GET ${metricsURL}/metrics answered ${status}`);
  const gauge = (name: string) => {
    const value = new RegExp(`^${name} (\\S+)$`, 'm').exec(body)?.[1];
    if (value === undefined) throw new Error(`${metricsURL}/metrics has no ${name}`);
    return Number(value);
  };
  return {
    committed: gauge('etcd_server_proposals_committed_total'),
    applied: gauge('etcd_server_proposals_applied_total'),
  };
}
