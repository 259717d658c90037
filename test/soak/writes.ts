// The soak's record of a writer's writes and what the cluster must hold because of them (docs/design/soak.md,
// "The invariants"). The writer puts each key once, with one value. Pure.
//
// Within one history of the cluster, revisions only grow. A restore starts a new history from a copy of an older
// one: a backup restore from what that history held at the backup's revision, a survivor restore from what the
// current history held at the survivor's revision. Writes acknowledged in the old history with a higher revision
// are then legitimately gone; every other acknowledged write must be there with its value. A write whose outcome
// the writer never learned (an error, a timeout) may be there or not. Anything else is a violation.

/** A backup's place in the histories: the history it copied, up to which revision. */
export interface BackupPoint {
  readonly history: number;
  readonly revision: bigint;
}

interface History {
  /** What it started from: another history's content up to a revision, or nothing. */
  readonly from?: BackupPoint;
  /** Acknowledged writes: key → value and the revision etcd answered. */
  readonly acked: Map<string, { readonly value: string; readonly revision: bigint }>;
}

export interface WriteViolation {
  readonly key: string;
  /** `lost`: acknowledged, must be there, is not; `wrong`: there with another value; `phantom`: there, never
   *  written (or written only in a history the cluster no longer holds). */
  readonly kind: 'lost' | 'wrong' | 'phantom';
  readonly expected?: string;
  readonly found?: string;
}

export class WriteRecord {
  private readonly histories: History[] = [{ acked: new Map() }];
  /** Writes whose outcome is unknown: key → value. They may be in any history from theirs on. */
  private readonly unknown = new Map<string, string>();

  /** The history the cluster holds now (0 until the first restore). */
  get current(): number {
    return this.histories.length - 1;
  }

  /** etcd acknowledged `key` = `value` at `revision`, in the current history. */
  acknowledged(key: string, value: string, revision: bigint): void {
    if (this.histories.some((h) => h.acked.has(key)))
      throw new Error(`${key} was acknowledged before: the writer puts each key once`);
    (this.histories[this.current] as History).acked.set(key, { value, revision });
    this.unknown.delete(key);
  }

  /** A put of `key` = `value` whose outcome the writer did not learn. */
  indeterminate(key: string, value: string): void {
    this.unknown.set(key, value);
  }

  /** A backup of the current history at `revision` (etcd's answer in the snapshot). */
  backupAt(revision: bigint): BackupPoint {
    return { history: this.current, revision };
  }

  /** The cluster now holds `point`'s content (a backup restore); returns the new history. */
  restoredFrom(point: BackupPoint): number {
    if (point.history > this.current) throw new Error(`no history ${point.history} yet`);
    this.histories.push({ from: point, acked: new Map() });
    return this.current;
  }

  /** The cluster now holds the current history up to `revision` (a survivor restore). */
  restoredFromSurvivor(revision: bigint): number {
    return this.restoredFrom({ history: this.current, revision });
  }

  /** The writes acknowledged in the history the cluster holds now (not those it started from), with revisions. */
  ackedNow(): { readonly key: string; readonly revision: bigint }[] {
    return [...(this.histories[this.current] as History).acked].map(([key, { revision }]) => ({
      key,
      revision,
    }));
  }

  /** Writes acknowledged so far, in every history. */
  ackedTotal(): number {
    return this.histories.reduce((sum, h) => sum + h.acked.size, 0);
  }

  /** Writes whose outcome is still unknown. */
  unknownTotal(): number {
    return this.unknown.size;
  }

  /** What the cluster must hold now: key → value. */
  expected(): Map<string, string> {
    return this.contentOf(this.current, undefined);
  }

  private contentOf(history: number, upTo: bigint | undefined): Map<string, string> {
    const h = this.histories[history] as History;
    const content = h.from ? this.contentOf(h.from.history, h.from.revision) : new Map<string, string>();
    for (const [key, { value, revision }] of h.acked) {
      if (upTo === undefined || revision <= upTo) content.set(key, value);
    }
    return content;
  }

  /** The violations of what the cluster holds (`observed`: every key under the writer's prefix, with its value). */
  check(observed: ReadonlyMap<string, string>): WriteViolation[] {
    const expected = this.expected();
    const violations: WriteViolation[] = [];
    for (const [key, value] of expected) {
      const found = observed.get(key);
      if (found === undefined) violations.push({ key, kind: 'lost', expected: value });
      else if (found !== value) violations.push({ key, kind: 'wrong', expected: value, found });
    }
    for (const [key, found] of observed) {
      if (expected.has(key)) continue;
      const maybe = this.unknown.get(key);
      if (maybe === undefined) violations.push({ key, kind: 'phantom', found });
      else if (maybe !== found) violations.push({ key, kind: 'wrong', expected: maybe, found });
    }
    return violations.sort((a, b) => a.key.localeCompare(b.key, 'en', { numeric: true }));
  }
}
