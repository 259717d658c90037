// Which member serves the snapshot: with several endpoints, the healthy voting member with the highest revision.
import type { EtcdTls } from '../etcd/connection-options.js';
import { MaintenanceClient } from '../etcd/maintenance-client.js';

export type MemberProbe =
  | {
      readonly endpoint: string;
      readonly ok: true;
      /** `header.revision` of Status, decimal. */
      readonly revision: string;
      readonly raftAppliedIndex: string;
      readonly isLearner: boolean;
      readonly version: string;
    }
  | { readonly endpoint: string; readonly ok: false; readonly error: string };

export type HealthyProbe = Extract<MemberProbe, { ok: true }>;

/**
 * The probe to take the snapshot from: answered Status, not a learner, highest revision, then highest raft
 * applied index, then the order given. `undefined` when none qualifies.
 */
export function chooseMember(probes: readonly MemberProbe[]): HealthyProbe | undefined {
  let best: HealthyProbe | undefined;
  for (const probe of probes) {
    if (!probe.ok || probe.isLearner) continue;
    if (!best || isAhead(probe, best)) best = probe;
  }
  return best;
}

function isAhead(a: HealthyProbe, b: HealthyProbe): boolean {
  const [ra, rb] = [BigInt(a.revision), BigInt(b.revision)];
  if (ra !== rb) return ra > rb;
  return BigInt(a.raftAppliedIndex) > BigInt(b.raftAppliedIndex);
}

/** A member's Status, with the client kept open when it answered (the snapshot reuses it). */
export async function probeMember(
  endpoint: string,
  tls: EtcdTls,
): Promise<{ probe: MemberProbe; client?: MaintenanceClient }> {
  const client = await MaintenanceClient.connect(endpoint, tls);
  try {
    const status = await client.status();
    return {
      client,
      probe: {
        endpoint,
        ok: true,
        revision: status.header.revision,
        raftAppliedIndex: status.raftAppliedIndex,
        isLearner: status.isLearner,
        version: status.version,
      },
    };
  } catch (error) {
    client.close();
    return { probe: { endpoint, ok: false, error: (error as Error).message } };
  }
}
