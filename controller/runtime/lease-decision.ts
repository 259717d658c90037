// What a leader candidate does with the Lease it just read: a pure function of the record, who we are, and
// when we last saw the record change (our own clock, never the holder's: clocks of two nodes may differ).

/** The fields of a coordination.k8s.io/v1 Lease spec that leader election uses. */
export interface LeaseRecord {
  readonly holderIdentity?: string;
  readonly leaseDurationSeconds?: number;
  readonly leaseTransitions?: number;
}

export type LeaseDecision =
  /** No Lease yet: create it holding it. */
  | { readonly action: 'create' }
  /** We hold it: write a fresh renewTime. */
  | { readonly action: 'renew' }
  /** Free (released) or expired: take it over, one more transition. */
  | { readonly action: 'acquire' }
  /** Someone else holds it and it has not expired. */
  | { readonly action: 'wait'; readonly holder: string; readonly expiresInMs: number };

export interface LeaseDecisionInput {
  /** undefined when the Lease does not exist. */
  readonly record: LeaseRecord | undefined;
  readonly identity: string;
  readonly nowMs: number;
  /** When this candidate last saw the record change (local clock). */
  readonly observedAtMs: number;
  /** Our configured lease duration, used when the record states none. */
  readonly leaseDurationMs: number;
}

export function decideLease(input: LeaseDecisionInput): LeaseDecision {
  const { record } = input;
  if (record === undefined) return { action: 'create' };
  const holder = record.holderIdentity ?? '';
  if (holder === input.identity) return { action: 'renew' };
  if (holder === '') return { action: 'acquire' };
  const durationMs =
    record.leaseDurationSeconds !== undefined ? record.leaseDurationSeconds * 1000 : input.leaseDurationMs;
  const expiresInMs = input.observedAtMs + durationMs - input.nowMs;
  if (expiresInMs <= 0) return { action: 'acquire' };
  return { action: 'wait', holder, expiresInMs };
}

/** leaseTransitions after this candidate writes the record. */
export function nextTransitions(record: LeaseRecord | undefined, identity: string): number {
  const previous = record?.leaseTransitions ?? 0;
  if (record === undefined) return 0;
  return record.holderIdentity === identity ? previous : previous + 1;
}
