// Which backups retention deletes: a pure function, table-tested (test/unit/backup/retention.test.ts).
// The rules and the ordering argument are in docs/design/backup.md ("Retention"). Summary:
//   1. Order candidates by their recorded backup time (then revision as a big integer, then key),
//      never by key text: `rev9` > `rev10` as text, which made the archived CoreOS operator delete its newest.
//   2. keepLast N keeps the N newest; maxAge keeps everything younger than now - maxAge; with both, an object
//      is kept if either rule keeps it; with neither, nothing is deleted.
//   3. Never delete: the object just written, the newest candidate, a candidate whose time or revision does
//      not parse.

/** What retention keeps. Both unset: keep everything. */
export interface RetentionPolicy {
  /** Keep the N newest backups (N ≥ 1). @default - no count rule */
  readonly keepLast?: number;
  /** Keep every backup younger than this many milliseconds. @default - no age rule */
  readonly maxAgeMs?: number;
}

/** One backup as listed: its key and the raw metadata values retention orders by. */
export interface RetentionCandidate {
  readonly key: string;
  /** `backup-time` metadata, ISO 8601. */
  readonly time: string;
  /** `etcd-revision` metadata, decimal. */
  readonly revision: string;
}

export type KeepReason = 'just-written' | 'newest' | 'keep-last' | 'max-age' | 'unparsable' | 'no-policy';

export interface RetentionDecision {
  readonly key: string;
  readonly action: 'keep' | 'delete';
  /** Why it is kept, or `expired` when deleted. */
  readonly reason: KeepReason | 'expired';
}

export interface RetentionPlan {
  /** Every candidate, newest first (unparsable ones last). */
  readonly decisions: readonly RetentionDecision[];
  /** Keys to delete, in the order of `decisions`. */
  readonly deletions: readonly string[];
}

interface Parsed {
  readonly key: string;
  readonly timeMs: number;
  readonly revision: bigint;
}

/** Throws a message naming the field, the value and what is allowed. */
export function validateRetentionPolicy(policy: RetentionPolicy): void {
  const { keepLast, maxAgeMs } = policy;
  if (keepLast !== undefined && (!Number.isInteger(keepLast) || keepLast < 1)) {
    throw new Error(`'keepLast' must be an integer of at least 1, got ${keepLast}`);
  }
  if (maxAgeMs !== undefined && (!Number.isFinite(maxAgeMs) || maxAgeMs <= 0)) {
    throw new Error(`'maxAge' must be a positive duration, got ${maxAgeMs} ms`);
  }
}

function parse(candidate: RetentionCandidate): Parsed | undefined {
  const timeMs = /^\d{4}-\d{2}-\d{2}T/.test(candidate.time) ? Date.parse(candidate.time) : Number.NaN;
  if (Number.isNaN(timeMs) || !/^\d+$/.test(candidate.revision)) return undefined;
  return { key: candidate.key, timeMs, revision: BigInt(candidate.revision) };
}

/** Newest first: recorded time, then revision, then key (only to make the order total). */
function newestFirst(a: Parsed, b: Parsed): number {
  if (a.timeMs !== b.timeMs) return b.timeMs - a.timeMs;
  if (a.revision !== b.revision) return a.revision > b.revision ? -1 : 1;
  return a.key < b.key ? 1 : a.key > b.key ? -1 : 0;
}

function keepReason(
  item: Parsed,
  rank: number,
  policy: RetentionPolicy,
  context: { now: Date; justWritten: string },
): KeepReason | undefined {
  if (item.key === context.justWritten) return 'just-written';
  if (rank === 0) return 'newest';
  if (policy.keepLast === undefined && policy.maxAgeMs === undefined) return 'no-policy';
  if (policy.keepLast !== undefined && rank < policy.keepLast) return 'keep-last';
  if (policy.maxAgeMs !== undefined && context.now.getTime() - item.timeMs < policy.maxAgeMs)
    return 'max-age';
  return undefined;
}

/**
 * Decides which of one cluster's backups to delete after `justWritten` was stored.
 * Throws when `justWritten` is not among the candidates: a listing that misses the new backup cannot be
 * trusted to know which backup is the newest.
 */
export function planRetention(
  candidates: readonly RetentionCandidate[],
  policy: RetentionPolicy,
  context: { readonly now: Date; readonly justWritten: string },
): RetentionPlan {
  validateRetentionPolicy(policy);
  if (!candidates.some((candidate) => candidate.key === context.justWritten)) {
    throw new Error(`the backup just written (${context.justWritten}) is not among the listed backups`);
  }
  const parsed: Parsed[] = [];
  const unparsable: RetentionDecision[] = [];
  for (const candidate of candidates) {
    const item = parse(candidate);
    if (item) parsed.push(item);
    else unparsable.push({ key: candidate.key, action: 'keep', reason: 'unparsable' });
  }
  parsed.sort(newestFirst);
  const decisions: RetentionDecision[] = parsed.map((item, rank) => {
    const reason = keepReason(item, rank, policy, context);
    return reason
      ? { key: item.key, action: 'keep', reason }
      : { key: item.key, action: 'delete', reason: 'expired' };
  });
  decisions.push(...unparsable);
  return {
    decisions,
    deletions: decisions.filter((decision) => decision.action === 'delete').map((decision) => decision.key),
  };
}
