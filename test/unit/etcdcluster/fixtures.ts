// Builders of planner inputs for the table tests: a healthy cluster unless told otherwise.
import type {
  ClusterView,
  EtcdMemberView,
  EtcdView,
  JoinWrites,
  PlanInput,
  PodView,
  PvcView,
} from '../../../controller/etcdcluster/types.js';

export const UID = 'a1b2c3d4-0000-4000-8000-000000000000';
/** The pod revision of the fixture cluster's spec; every fixture Pod is at it unless told otherwise. */
export const REVISION = 'abcdef0123';

export function cluster(overrides: Partial<ClusterView> = {}): ClusterView {
  return {
    name: 'demo',
    namespace: 'ns',
    uid: UID,
    deleting: false,
    paused: false,
    size: 3,
    allowEvenSize: false,
    version: '3.6.16',
    storage: { size: '1Gi', ephemeral: false },
    whenScaled: 'Retain',
    backend: { storage: { size: '1Gi' } },
    revision: REVISION,
    knownMembers: [],
    schemes: { client: 'http', peer: 'http' },
    ...overrides,
  };
}

export function pod(index: number, overrides: Partial<PodView> = {}): PodView {
  return {
    name: `demo-${index}`,
    member: `demo-${index}`,
    terminating: false,
    running: true,
    ready: true,
    // Ready only a moment ago: a member that does not answer yet is still coming up (plan.ts step 5.6).
    readySettled: false,
    crashLooping: false,
    evict: false,
    ephemeral: false,
    version: '3.6.16',
    revision: REVISION,
    ...overrides,
  };
}

export function pvc(index: number, overrides: Partial<PvcView> = {}): PvcView {
  return {
    name: `demo-${index}-data`,
    member: `demo-${index}`,
    terminating: false,
    clusterUid: UID,
    size: '1Gi',
    retained: false,
    ...overrides,
  };
}

export function member(index: number, overrides: Partial<EtcdMemberView> = {}): EtcdMemberView {
  return {
    id: `${1000 + index}`,
    member: `demo-${index}`,
    started: true,
    learner: false,
    healthy: true,
    wrongIdentity: false,
    electing: false,
    caughtUp: (overrides.healthy ?? true) && !(overrides.learner ?? false),
    ...overrides,
  };
}

export function etcd(members: EtcdMemberView[], overrides: Partial<EtcdView> = {}): EtcdView {
  return { members, leaderId: members[0]?.id, quorum: true, ...overrides };
}

/** A steady cluster of `n` members demo-0..demo-(n-1), each with Pod and PVC; demo-0 leads. */
export function steady(n: number, overrides: Partial<PlanInput> = {}): PlanInput {
  const indexes = [...Array(n).keys()];
  return {
    cluster: cluster({ size: n, knownMembers: indexes.map((i) => `demo-${i}`) }),
    pods: indexes.map((i) => pod(i)),
    pvcs: indexes.map((i) => pvc(i)),
    etcd: etcd(indexes.map((i) => member(i))),
    nonce: 'abc123',
    ...overrides,
  };
}

/** The token of the fixture restore's seed (`status.restore.token`). */
export const RESTORE_TOKEN = 'demo-r1r1r1r1-abc123';

/** `status.restore` of EtcdRestore r1 in `phase`, seeding from a verified backup. */
export function restoreLock(
  phase: NonNullable<ClusterView['restore']>['phase'],
  overrides: Partial<NonNullable<ClusterView['restore']>> = {},
): NonNullable<ClusterView['restore']> {
  return {
    name: 'r1',
    uid: 'r1r1r1r1-0000',
    token: RESTORE_TOKEN,
    source: { backup: { bucket: 'backups', key: 'ns/demo/b.db', credentialsSecretName: 's3' } },
    phase,
    ...overrides,
  };
}

/** The writes a joiner's `AddLearner` carries, for tests that only need a well-formed one. */
export function joinOf(name: string, initialCluster: readonly string[] = ['demo-0', name]): JoinWrites {
  return {
    pvc: { kind: 'CreatePVC', member: name },
    pod: { kind: 'CreatePod', member: name, reason: 'join', state: 'existing', initialCluster },
  };
}
