// The soak's membership invariants (test/soak/membership.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { alwaysViolations, convergedViolations, type MembershipSnapshot } from '../../soak/membership.js';

const member = (n: number, learner = false) => ({ id: `${n}0`, name: `m-${n}`, learner });
const pod = (n: number, terminating = false) => ({ name: `m-${n}`, member: `m-${n}`, terminating });
const pvc = (n: number, retained = false) => ({ name: `m-${n}-data`, member: `m-${n}`, retained });
const three: MembershipSnapshot = {
  size: 3,
  etcd: [member(0), member(1), member(2)],
  pods: [pod(0), pod(1), pod(2)],
  pvcs: [pvc(0), pvc(1), pvc(2)],
};
const kinds = (violations: { kind: string }[]) => violations.map((v) => v.kind);

describe('membership invariants', () => {
  it('a converged cluster of 3 violates nothing; retained PVCs and terminating Pods of others do not count', () => {
    assert.deepEqual(convergedViolations(three), []);
    assert.deepEqual(
      convergedViolations({
        ...three,
        pods: [...three.pods, pod(3, true)],
        pvcs: [...three.pvcs, pvc(3, true)],
      }),
      [],
    );
  });

  it('always: two members of one name, two live Pods of one member, more than size + 1 voters, two learners', () => {
    assert.deepEqual(
      kinds(alwaysViolations({ ...three, etcd: [...three.etcd, { ...member(9), name: 'm-1' }] })),
      ['duplicate-member'],
    );
    assert.deepEqual(
      kinds(alwaysViolations({ ...three, pods: [...three.pods, { ...pod(1), name: 'm-1-x' }] })),
      ['duplicate-pod'],
    );
    assert.deepEqual(
      alwaysViolations({ ...three, etcd: [...three.etcd, member(3)] }),
      [],
      'one voter added first',
    );
    assert.deepEqual(kinds(alwaysViolations({ ...three, etcd: [...three.etcd, member(3), member(4)] })), [
      'too-many-voters',
    ]);
    assert.deepEqual(
      kinds(alwaysViolations({ ...three, etcd: [...three.etcd, member(3, true), member(4, true)] })),
      ['changes-in-flight'],
    );
    assert.deepEqual(
      alwaysViolations({ ...three, etcd: [...three.etcd, { id: '99', learner: true }] }),
      [],
      'a learner not started yet has no name',
    );
  });

  it('converged: a learner left over, a missing Pod or volume, or another member count is a mismatch naming all three', () => {
    const learner = convergedViolations({ ...three, etcd: [...three.etcd, member(3, true)] });
    assert.deepEqual(kinds(learner), ['mismatch']);
    assert.match(
      learner[0]?.detail ?? '',
      /^size 3: etcd m-0, m-1, m-2, m-3 \(learner\); Pods m-0, m-1, m-2; PVCs/,
    );
    assert.deepEqual(kinds(convergedViolations({ ...three, pods: [pod(0), pod(1)] })), ['mismatch']);
    assert.deepEqual(kinds(convergedViolations({ ...three, pvcs: [pvc(0), pvc(1), pvc(2, true)] })), [
      'mismatch',
    ]);
    assert.deepEqual(kinds(convergedViolations({ ...three, size: 5 })), ['mismatch']);
  });
});
