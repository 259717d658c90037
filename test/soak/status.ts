// The soak's status invariant (docs/design/soak.md, "The invariants"): the cluster's Ready and Available conditions
// agree with what etcd answers, within a bound (the status is written by the controller's next pass, so it may lag).
// Pure: the executor reads the conditions and asks etcd itself, then hands both here with the time.

/** What the executor learned from etcd itself (member list and each member's status). */
export interface EtcdAnswer {
  /** A majority of the voters answered healthy. */
  readonly quorum: boolean;
  readonly voters: number;
  readonly healthyVoters: number;
  readonly learners: number;
}

export interface ConditionView {
  readonly type: string;
  readonly status: string;
}

/** How the conditions disagree with etcd now, each as a stable text (empty when they agree). */
export function statusDisagreements(
  conditions: readonly ConditionView[],
  size: number,
  etcd: EtcdAnswer,
): string[] {
  const status = (type: string) => conditions.find((c) => c.type === type)?.status;
  const allReady = etcd.quorum && etcd.voters === size && etcd.healthyVoters === size && etcd.learners === 0;
  const disagreements: string[] = [];
  if (status('Ready') === 'True' && !allReady)
    disagreements.push(
      `Ready=True, but etcd has ${etcd.healthyVoters}/${etcd.voters} healthy voters of ${size}, ${etcd.learners} learners, quorum ${etcd.quorum}`,
    );
  if (status('Ready') === 'False' && allReady)
    disagreements.push(`Ready=False, but all ${size} members are ready`);
  if (status('Available') === 'True' && !etcd.quorum)
    disagreements.push('Available=True, but etcd has no quorum');
  if (status('Available') === 'False' && etcd.quorum)
    disagreements.push('Available=False, but etcd has quorum');
  return disagreements;
}

/** Tracks disagreements over time: each one is a violation once it has lasted longer than `boundMs`. */
export class DisagreementClock {
  private readonly since = new Map<string, number>();

  constructor(private readonly boundMs: number) {}

  /** The disagreements seen at `nowMs`; returns those that have lasted longer than the bound, with how long. */
  observe(nowMs: number, disagreements: readonly string[]): { disagreement: string; forMs: number }[] {
    for (const key of [...this.since.keys()]) if (!disagreements.includes(key)) this.since.delete(key);
    for (const d of disagreements) if (!this.since.has(d)) this.since.set(d, nowMs);
    return [...this.since]
      .map(([disagreement, from]) => ({ disagreement, forMs: nowMs - from }))
      .filter((entry) => entry.forMs > this.boundMs);
  }
}
