// Judging the members' Status answers: which leader the cluster follows, and which answer is an impostor
// (docs/design/membership.md, "The etcd view" and "Dead members").
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EtcdMember, EtcdStatus } from '../../../controller/etcd/members.js';
import { clusterLeader, isImpostor } from '../../../controller/etcdcluster/observe-etcd.js';

const status = (memberId: string, leaderId: string, raftTerm: number, clusterId = 'c1'): EtcdStatus => ({
  memberId,
  clusterId,
  leaderId,
  raftTerm: String(raftTerm),
  dbSize: 0,
  dbSizeInUse: 0,
  raftIndex: '100',
  revision: '50',
  version: '3.6.16',
  isLearner: false,
});
const member = (id: string): EtcdMember => ({
  id,
  name: `m-${id}`,
  peerURLs: [],
  clientURLs: [],
  isLearner: false,
});

describe('clusterLeader', () => {
  const cases: { given: string; statuses: EtcdStatus[]; leader: string | undefined; term: bigint }[] = [
    {
      given: 'three members agreeing on one leader',
      statuses: [status('a', 'a', 3), status('b', 'a', 3), status('c', 'a', 3)],
      leader: 'a',
      term: 3n,
    },
    {
      given: 'just after MoveLeader a→b: b leads in term 4, a knows no leader yet, c still names a in term 3',
      statuses: [status('a', '0', 4), status('b', 'b', 4), status('c', 'a', 3)],
      leader: 'b',
      term: 4n,
    },
    {
      given: 'a candidate campaigning in a newer term names no leader: the most named leader stands',
      statuses: [status('a', 'b', 4), status('b', 'b', 4), status('c', '0', 5)],
      leader: 'b',
      term: 5n,
    },
    {
      given: 'a wiped seed leading its own one-member cluster in term 2 beside the real cluster in term 5',
      statuses: [status('a', 'a', 2), status('b', 'c', 5), status('c', 'c', 5)],
      leader: 'c',
      term: 5n,
    },
    {
      given: 'no member knows a leader',
      statuses: [status('a', '0', 3), status('b', '0', 3)],
      leader: undefined,
      term: 3n,
    },
  ];
  for (const { given, statuses, leader, term } of cases) {
    it(`GIVEN ${given} THEN the leader is ${leader ?? 'unknown'}`, () => {
      assert.deepEqual(clusterLeader(statuses), { leaderId: leader, term });
    });
  }
});

describe('isImpostor', () => {
  const cluster = (leaderId: string, term: bigint) => ({ clusterId: 'c1', leader: { leaderId, term } });
  it('GIVEN the leader just elected by MoveLeader while the majority still names the old one THEN it is no impostor', () => {
    const statuses = [status('a', 'a', 3), status('b', 'b', 4), status('c', 'a', 3)];
    // Even if the majority's view won, a leader of the newest term is never an impostor.
    assert.equal(isImpostor(member('b'), statuses[1] as EtcdStatus, cluster('a', 4n)), false);
    assert.equal(
      isImpostor(member('b'), statuses[1] as EtcdStatus, {
        clusterId: 'c1',
        leader: clusterLeader(statuses),
      }),
      false,
    );
  });
  it('GIVEN a wiped seed leading itself in an older term than the cluster THEN it is an impostor', () => {
    assert.equal(isImpostor(member('a'), status('a', 'a', 2), cluster('c', 5n)), true);
  });
  it('GIVEN an answer with another member id or another cluster id THEN it is an impostor', () => {
    assert.equal(isImpostor(member('a'), status('x', 'c', 5), cluster('c', 5n)), true);
    assert.equal(isImpostor(member('a'), status('a', 'c', 5, 'c2'), cluster('c', 5n)), true);
  });
  it('GIVEN a follower of another leader, or of no leader THEN it is no impostor (only not healthy)', () => {
    assert.equal(isImpostor(member('a'), status('a', 'b', 3), cluster('c', 5n)), false);
    assert.equal(isImpostor(member('a'), status('a', '0', 5), cluster('c', 5n)), false);
  });
});
