// The soak's membership invariants (docs/design/soak.md, "The invariants"): what must hold at every moment, and
// what must hold once a step has converged. Pure: the executor reads etcd's member list, the member Pods and the
// PVCs and hands them here.

export interface MembershipSnapshot {
  /** `spec.size`. */
  readonly size: number;
  /** etcd's member list; a member that has not started yet has no name. */
  readonly etcd: readonly { readonly id: string; readonly name?: string; readonly learner: boolean }[];
  /** Member Pods: their member name, and whether they are being deleted. */
  readonly pods: readonly { readonly name: string; readonly member: string; readonly terminating: boolean }[];
  /** Member PVCs; `retained` for a volume not in use by a member: kept by a restore, being deleted, or a removed
   *  member's, waiting for its Pod stuck Terminating on a node that does not answer. */
  readonly pvcs: readonly { readonly name: string; readonly member: string; readonly retained: boolean }[];
}

export interface MembershipViolation {
  readonly kind: 'duplicate-member' | 'duplicate-pod' | 'too-many-voters' | 'changes-in-flight' | 'mismatch';
  readonly detail: string;
}

const duplicates = (names: readonly string[]) => [
  ...new Set(names.filter((name, i) => names.indexOf(name) !== i)),
];

/** What must hold at every moment: one identity per member, at most `size + 1` voters (one being added before one
 *  leaves), at most one learner (one membership change in flight). */
export function alwaysViolations(snapshot: MembershipSnapshot): MembershipViolation[] {
  const violations: MembershipViolation[] = [];
  const named = snapshot.etcd.flatMap((m) => (m.name ? [m.name] : []));
  for (const name of duplicates(named))
    violations.push({ kind: 'duplicate-member', detail: `etcd lists two members named ${name}` });
  const live = snapshot.pods.filter((p) => !p.terminating).map((p) => p.member);
  for (const member of duplicates(live))
    violations.push({ kind: 'duplicate-pod', detail: `two live Pods run member ${member}` });
  const voters = snapshot.etcd.filter((m) => !m.learner).length;
  if (voters > snapshot.size + 1)
    violations.push({ kind: 'too-many-voters', detail: `${voters} voters for size ${snapshot.size}` });
  const learners = snapshot.etcd.filter((m) => m.learner).length;
  if (learners > 1) violations.push({ kind: 'changes-in-flight', detail: `${learners} learners at once` });
  return violations;
}

const list = (names: Iterable<string>) => [...names].sort().join(', ') || 'none';

/** What must hold once a step has converged: the voters, the live Pods and the volumes in use name the same `size`
 *  members, and no learner is left. */
export function convergedViolations(snapshot: MembershipSnapshot): MembershipViolation[] {
  const violations = alwaysViolations(snapshot);
  const etcd = new Set(snapshot.etcd.filter((m) => !m.learner).flatMap((m) => (m.name ? [m.name] : [])));
  const pods = new Set(snapshot.pods.filter((p) => !p.terminating).map((p) => p.member));
  const pvcs = new Set(snapshot.pvcs.filter((p) => !p.retained).map((p) => p.member));
  const terminating = snapshot.pods.filter((p) => p.terminating).map((p) => p.name);
  const same = (a: Set<string>, b: Set<string>) => a.size === b.size && [...a].every((x) => b.has(x));
  if (
    snapshot.etcd.length !== snapshot.size ||
    etcd.size !== snapshot.size ||
    !same(etcd, pods) ||
    !same(etcd, pvcs)
  ) {
    violations.push({
      kind: 'mismatch',
      detail: `size ${snapshot.size}: etcd ${list(snapshot.etcd.map((m) => `${m.name ?? m.id}${m.learner ? ' (learner)' : ''}`))}; Pods ${list(pods)}; PVCs ${list(pvcs)}${terminating.length ? `; terminating Pods ${list(terminating)}` : ''}`,
    });
  }
  return violations;
}
