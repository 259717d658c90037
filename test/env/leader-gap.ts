// How long no majority of an etcd cluster named one leader, judged from samples of every member's Status.
// A member that does not answer (a deadline, a refused or failed connection) is not evidence either way: on a
// loaded machine the observer's own call can miss its deadline while the cluster is fine. So a sample shows a
// lost majority only when even counting every silent member for the most-named leader gives no majority; while
// silence could hide a majority the sample is "unobserved" and changes nothing (a gap already open stays open).

/** One member's answer: the leader it names (`'0'`: none), or undefined when it did not answer. */
export type LeaderAnswer = string | undefined;

export type LeaderVerdict = 'majority' | 'no-majority' | 'unobserved';

export function judgeLeaders(answers: readonly LeaderAnswer[], majority: number): LeaderVerdict {
  const counts = new Map<string, number>();
  let silent = 0;
  for (const answer of answers) {
    if (answer === undefined) silent += 1;
    else if (answer !== '0') counts.set(answer, (counts.get(answer) ?? 0) + 1);
  }
  const most = Math.max(0, ...counts.values());
  if (most >= majority) return 'majority';
  return most + silent < majority ? 'no-majority' : 'unobserved';
}

/** The longest stretch without a majority on one leader, and the longest the observer saw nothing either way. */
export class LeaderGap {
  private lostSince: number | undefined;
  private blindSince: number | undefined;
  private longestLost = 0;
  private longestBlind = 0;
  private counts: Record<LeaderVerdict, number> = { majority: 0, 'no-majority': 0, unobserved: 0 };

  /** A sample taken at `startedAt`, judged at `now` (ms). */
  record(verdict: LeaderVerdict, startedAt: number, now: number): void {
    this.counts[verdict] += 1;
    if (verdict === 'majority') this.lostSince = undefined;
    else if (verdict === 'no-majority') this.lostSince ??= startedAt;
    if (verdict === 'unobserved') this.blindSince ??= startedAt;
    else this.blindSince = undefined;
    if (this.lostSince !== undefined) this.longestLost = Math.max(this.longestLost, now - this.lostSince);
    if (this.blindSince !== undefined) this.longestBlind = Math.max(this.longestBlind, now - this.blindSince);
  }

  /** Longest time from a sample without a majority to the next sample with one, in ms. */
  get longestNoMajorityMs(): number {
    return this.longestLost;
  }

  /** Longest run of samples in which too few members answered to tell, in ms. */
  get longestUnobservedMs(): number {
    return this.longestBlind;
  }

  /** For the test's diagnostic line. */
  summary(): string {
    const { majority, unobserved } = this.counts;
    return `${majority} samples with a majority on one leader, ${this.counts['no-majority']} without, ${unobserved} unobserved (longest ${this.longestBlind} ms)`;
  }
}
