// Table tests of planMembership: every step of docs/design/membership.md and every crash point.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { planMembership } from '../../../controller/etcdcluster/plan.js';
import type {
  Action,
  CreatePodAction,
  CreatePvcAction,
  PlanInput,
} from '../../../controller/etcdcluster/types.js';
import { cluster, etcd, member, pod, pvc, restoreLock, steady, UID } from './fixtures.js';

interface Case {
  readonly given: string;
  readonly input: PlanInput;
  readonly expect: Partial<Record<string, unknown>> & { kind: Action['kind'] };
}

const empty = (overrides: Partial<PlanInput> = {}): PlanInput => ({
  cluster: cluster(),
  pods: [],
  pvcs: [],
  etcd: undefined,
  nonce: 'abc123',
  ...overrides,
});

function withCluster(input: PlanInput, overrides: Partial<PlanInput['cluster']>): PlanInput {
  return { ...input, cluster: { ...input.cluster, ...overrides } };
}

const s3 = steady(3);

/** The initial membership of a static bootstrap of size 3 (docs/design/bootstrap.md). */
const INITIAL = ['demo-0', 'demo-1', 'demo-2'];
const staticPvc = (index: number) => pvc(index, { token: 'demo-a1b2c3d4-fedcba', initialCluster: INITIAL });
const starting = { running: false, ready: false, initialState: 'new' } as const;
const staticSeedPvc = (index: number): CreatePvcAction => ({
  kind: 'CreatePVC',
  member: `demo-${index}`,
  token: 'demo-a1b2c3d4-fedcba',
  initialCluster: INITIAL,
});
const staticSeedPod = (index: number): CreatePodAction => ({
  kind: 'CreatePod',
  member: `demo-${index}`,
  reason: 'seed',
  state: 'new',
  initialCluster: INITIAL,
  token: 'demo-a1b2c3d4-fedcba',
});

/** demo-0 and demo-1 formed the cluster and were marked existing; demo-2 is in etcd, named, and never ran. */
const staticFormed = (): PlanInput => ({
  cluster: cluster({ knownMembers: INITIAL }),
  pods: [pod(0), pod(1), pod(2, starting)],
  pvcs: [staticPvc(0), staticPvc(1), staticPvc(2)],
  etcd: etcd([member(0), member(1), member(2, { started: false, healthy: false })]),
  nonce: 'abc123',
});

const cases: Case[] = [
  // 1-4: deletion, pause, refusals, terminating Pods
  {
    given: 'a cluster being deleted',
    input: withCluster(s3, { deleting: true }),
    expect: { kind: 'Wait', reason: 'ClusterDeleting' },
  },
  {
    given: 'a paused cluster that lost a member',
    input: withCluster(steady(2), { paused: true, size: 3 }),
    expect: { kind: 'Paused' },
  },
  {
    given: 'size 11',
    input: withCluster(s3, { size: 11 }),
    expect: { kind: 'Refuse', field: 'spec.size', value: '11' },
  },
  { given: 'size 0', input: withCluster(s3, { size: 0 }), expect: { kind: 'Refuse', field: 'spec.size' } },
  {
    given: 'size 4 without allowEvenSize',
    input: withCluster(s3, { size: 4 }),
    expect: { kind: 'Refuse', field: 'spec.size', value: '4' },
  },
  {
    given: 'size 4 with allowEvenSize',
    input: withCluster(s3, { size: 4, allowEvenSize: true }),
    expect: { kind: 'AddLearner', member: 'demo-3' },
  },
  {
    given: 'a version downgrade',
    input: withCluster(s3, { version: '3.5.35', runningVersion: '3.6.16' }),
    expect: { kind: 'Refuse', field: 'spec.version', value: '3.5.35' },
  },
  {
    given: 'a jump of two minors',
    input: {
      ...s3,
      cluster: { ...s3.cluster, version: '3.6.16' },
      pods: s3.pods.map((p) => ({ ...p, version: '3.4.23' })),
    },
    expect: { kind: 'Refuse', field: 'spec.version', value: '3.6.16' },
  },
  {
    given: 'a version that is not X.Y.Z',
    input: withCluster(s3, { version: 'latest' }),
    expect: { kind: 'Refuse', field: 'spec.version', value: 'latest' },
  },
  {
    given: 'an unsupported minor',
    input: withCluster(empty(), { version: '3.3.27' }),
    expect: { kind: 'Refuse', field: 'spec.version' },
  },
  {
    given: 'a one-minor upgrade',
    input: withCluster(steady(3), { version: '3.6.16', runningVersion: '3.5.35' }),
    expect: { kind: 'Steady' },
  },
  {
    given: 'a storage class change',
    input: {
      ...s3,
      cluster: { ...s3.cluster, storage: { size: '1Gi', ephemeral: false, storageClassName: 'fast' } },
      pvcs: s3.pvcs.map((p) => ({ ...p, storageClassName: 'standard' })),
    },
    expect: { kind: 'Refuse', field: 'spec.storage.storageClassName', value: 'fast' },
  },
  {
    given: 'a storage size change',
    input: withCluster(s3, { storage: { size: '2Gi', ephemeral: false } }),
    expect: { kind: 'Refuse', field: 'spec.storage.size', value: '2Gi' },
  },
  {
    given: 'an extra flag the controller owns (written past admission)',
    input: withCluster(s3, { backend: { storage: { size: '1Gi' }, extraFlags: { 'data-dir': '/tmp' } } }),
    expect: {
      kind: 'Refuse',
      field: 'spec.extraFlags',
      value: 'data-dir',
      allowed: 'a flag the product does not set (the controller (the member volume) sets it)',
    },
  },
  {
    given: 'a quota larger than the member volume',
    input: withCluster(s3, { backend: { storage: { size: '1Gi' }, quotaBackendBytes: '2Gi' } }),
    expect: { kind: 'Refuse', field: 'spec.quotaBackendBytes', value: '2Gi' },
  },
  {
    given: 'a revision-mode retention that is a duration',
    input: withCluster(s3, {
      backend: { storage: { size: '1Gi' }, autoCompaction: { mode: 'revision', retention: '1h' } },
    }),
    expect: { kind: 'Refuse', field: 'spec.autoCompaction.retention', value: '1h' },
  },
  {
    given: 'the same storage size written in bytes',
    input: withCluster(s3, { storage: { size: 1073741824, ephemeral: false } }),
    expect: { kind: 'Steady' },
  },
  {
    given: 'a switch to ephemeral storage',
    input: withCluster(s3, { storage: { size: '1Gi', ephemeral: true } }),
    expect: { kind: 'Refuse', field: 'spec.storage.ephemeral', value: 'true' },
  },
  {
    given: 'a member Pod terminating',
    input: { ...s3, pods: [pod(0), pod(1), pod(2, { terminating: true })] },
    expect: { kind: 'Wait', reason: 'PodTerminating' },
  },
  // 4 and 10: a member deleted with its data (Pod and PVC terminating) is dead at once (membership.md, "Dead members")
  {
    given: 'a member whose Pod and PVC are both being deleted, still answering: removed at once',
    input: {
      ...s3,
      pods: [pod(0), pod(1, { terminating: true }), pod(2)],
      pvcs: [pvc(0), pvc(1, { terminating: true }), pvc(2)],
    },
    expect: {
      kind: 'RemoveMember',
      member: 'demo-1',
      reason: 'dead',
      detail: 'its Pod and its PVC are being deleted',
    },
  },
  {
    given: 'a member deleted with its data, its etcd stopped already: removed, not waited for',
    input: {
      ...s3,
      pods: [pod(0), pod(1, { terminating: true, running: false, ready: false }), pod(2)],
      pvcs: [pvc(0), pvc(1, { terminating: true }), pvc(2)],
      etcd: etcd([member(0), member(1, { healthy: false }), member(2)]),
    },
    expect: { kind: 'RemoveMember', member: 'demo-1', reason: 'dead' },
  },
  {
    given: 'a crash after removing a member deleted with its data: its replacement is added under a new name',
    input: {
      ...s3,
      pods: [pod(0), pod(1, { terminating: true }), pod(2)],
      pvcs: [pvc(0), pvc(1, { terminating: true }), pvc(2)],
      etcd: etcd([member(0), member(2)]),
    },
    expect: { kind: 'AddLearner', member: 'demo-3' },
  },
  {
    given:
      'the replacement of a member deleted with its data, added: its PVC is made while the old one terminates',
    input: {
      ...s3,
      pods: [pod(0), pod(1, { terminating: true }), pod(2)],
      pvcs: [pvc(0), pvc(1, { terminating: true }), pvc(2)],
      etcd: etcd([member(0), member(2), member(3, { learner: true, started: false, healthy: false })]),
    },
    expect: { kind: 'CreatePVC', member: 'demo-3' },
  },
  {
    given:
      'two of three members deleted with their data, both still answering: no removal, quorum would be lost',
    input: {
      ...s3,
      pods: [pod(0), pod(1, { terminating: true }), pod(2, { terminating: true })],
      pvcs: [pvc(0), pvc(1, { terminating: true }), pvc(2, { terminating: true })],
    },
    expect: {
      kind: 'Wait',
      reason: 'ReplacementWouldLoseQuorum',
      message:
        'removing dead member demo-1 (its Pod and its PVC are being deleted), counting demo-2 as stopped, would lose quorum',
    },
  },
  {
    given: 'a member deleted with its data while another PVC (only) is being deleted: no removal',
    input: {
      ...s3,
      pods: [pod(0), pod(1, { terminating: true }), pod(2)],
      pvcs: [pvc(0), pvc(1, { terminating: true }), pvc(2, { terminating: true })],
    },
    expect: { kind: 'Wait', reason: 'ReplacementWouldLoseQuorum' },
  },
  {
    given:
      'two of three members force-deleted (Pods gone at once, etcd still answering), PVCs terminating: no removal',
    input: {
      ...s3,
      pods: [pod(0)],
      pvcs: [pvc(0), pvc(1, { terminating: true }), pvc(2, { terminating: true })],
    },
    expect: {
      kind: 'Wait',
      reason: 'ReplacementWouldLoseQuorum',
      message: 'removing dead member demo-1, counting demo-2 as stopped, would lose quorum',
    },
  },
  {
    given: 'a member deleted with its data while another Pod (only) terminates: that Pod is waited for',
    input: {
      ...s3,
      pods: [pod(0), pod(1, { terminating: true }), pod(2, { terminating: true })],
      pvcs: [pvc(0), pvc(1, { terminating: true }), pvc(2)],
    },
    expect: { kind: 'Wait', reason: 'PodTerminating', message: 'member Pod demo-2 is terminating' },
  },
  {
    given: 'two of five members deleted with their data: the first removed (three stay healthy of four)',
    input: {
      ...steady(5),
      pods: [pod(0), pod(1, { terminating: true }), pod(2, { terminating: true }), pod(3), pod(4)],
      pvcs: [pvc(0), pvc(1, { terminating: true }), pvc(2, { terminating: true }), pvc(3), pvc(4)],
    },
    expect: { kind: 'RemoveMember', member: 'demo-1', reason: 'dead' },
  },
  {
    given: 'the lone member of size 1 deleted with its data: nothing to keep quorum with',
    input: {
      ...steady(1),
      pods: [pod(0, { terminating: true })],
      pvcs: [pvc(0, { terminating: true })],
    },
    expect: { kind: 'Wait', reason: 'ReplacementWouldLoseQuorum' },
  },
  {
    given: 'an ephemeral member Pod terminating: waited for (only PVC-backed members are dead at once)',
    input: {
      ...withCluster(s3, { storage: { size: '1Gi', ephemeral: true } }),
      pods: [
        pod(0, { ephemeral: true }),
        pod(1, { ephemeral: true, terminating: true }),
        pod(2, { ephemeral: true }),
      ],
      pvcs: [],
    },
    expect: { kind: 'Wait', reason: 'PodTerminating' },
  },
  {
    given: 'two of three members deleted, their Pods terminating with stopped containers: quorum lost',
    input: {
      ...s3,
      pods: [
        pod(0),
        pod(1, { terminating: true, running: false, ready: false }),
        pod(2, { terminating: true, running: false, ready: false }),
      ],
      etcd: etcd([member(0), member(1, { healthy: false }), member(2, { healthy: false })], {
        quorum: false,
        leaderId: undefined,
      }),
    },
    expect: {
      kind: 'ReportQuorumLost',
      message: '1 of 3 voting members are healthy; member Pod demo-1 is terminating',
    },
  },
  {
    given: 'quorum lost while a Pod terminates and an out-of-date Pod crash-loops: reported, nothing rolled',
    input: {
      ...withCluster(s3, { revision: 'next' }),
      pods: [
        pod(0),
        pod(1, { terminating: true, running: false, ready: false }),
        pod(2, { crashLooping: true, running: false, ready: false }),
      ],
      etcd: etcd([member(0), member(1, { healthy: false }), member(2, { healthy: false })], {
        quorum: false,
        leaderId: undefined,
      }),
    },
    expect: { kind: 'ReportQuorumLost' },
  },
  {
    given: 'a Pod terminating while the followers elect a new leader: a wait, not a loss',
    input: {
      ...s3,
      pods: [pod(0, { terminating: true, running: false, ready: false }), pod(1), pod(2)],
      etcd: etcd([member(0, { healthy: false }), member(1), member(2)], { quorum: false }),
    },
    expect: { kind: 'Wait', reason: 'PodTerminating' },
  },
  {
    given: 'quorum lost while a Pod terminates and another is still starting: a wait',
    input: {
      ...s3,
      pods: [
        pod(0),
        pod(1, { terminating: true, running: false, ready: false }),
        pod(2, { running: false, ready: false }),
      ],
      etcd: etcd([member(0), member(1, { healthy: false }), member(2, { healthy: false })], {
        quorum: false,
        leaderId: undefined,
      }),
    },
    expect: { kind: 'Wait', reason: 'PodTerminating' },
  },
  {
    given: 'an in-place restore holding the cluster (its branch comes first, plan-restore.test.ts)',
    input: withCluster(steady(1), { restore: restoreLock('Restoring'), size: 3 }),
    expect: { kind: 'RetainPVC', pvc: 'demo-0-data', restore: 'r1' },
  },
  {
    given: 'a restore growing the cluster',
    input: withCluster(steady(1), { restore: restoreLock('Growing'), size: 3 }),
    expect: { kind: 'AddLearner', member: 'demo-1' },
  },
  {
    given: 'PVCs retained by a restore and whenScaled Delete',
    input: {
      ...steady(1),
      cluster: cluster({ size: 3, whenScaled: 'Delete' }),
      pods: [pod(3)],
      pvcs: [pvc(0, { retained: true }), pvc(1, { retained: true }), pvc(3)],
      etcd: etcd([member(3)]),
    },
    expect: { kind: 'AddLearner', member: 'demo-2' },
  },
  // 5: no member answers. A new cluster starts from its whole initial membership (docs/design/bootstrap.md).
  {
    given:
      'a new cluster of 3: every seed PVC in one pass, each recording the token and the whole membership, then every seed Pod in that pass',
    input: empty(),
    expect: {
      kind: 'CreatePVCs',
      pvcs: INITIAL.map((member) => ({
        kind: 'CreatePVC',
        member,
        token: 'demo-a1b2c3d4-abc123',
        initialCluster: INITIAL,
      })),
      pods: INITIAL.map((member) => ({
        kind: 'CreatePod',
        member,
        reason: 'seed',
        state: 'new',
        initialCluster: INITIAL,
        token: 'demo-a1b2c3d4-abc123',
      })),
    },
  },
  {
    given: 'a new cluster of 1: a lone seed',
    input: empty({ cluster: cluster({ size: 1 }) }),
    expect: { kind: 'CreatePVC', member: 'demo-0', token: 'demo-a1b2c3d4-abc123' },
  },
  {
    given: 'a new cluster of 3 that restores spec.bootstrap.backup: a lone seed',
    input: empty({ cluster: cluster({ bootstrapsFromBackup: true }) }),
    expect: { kind: 'CreatePVC', member: 'demo-0', token: 'demo-a1b2c3d4-abc123' },
  },
  {
    given:
      'only the first static seed PVC exists (a refused create, or a crash amid the pass): the other two at once, same token and membership',
    input: empty({ pvcs: [staticPvc(0)] }),
    expect: {
      kind: 'CreatePVCs',
      pvcs: [staticSeedPvc(1), staticSeedPvc(2)],
      pods: [0, 1, 2].map((index) => staticSeedPod(index)),
    },
  },
  {
    given:
      'the first static seed PVC and its Pod exist, the other two PVCs missing: those PVCs, then the Pods of those without one',
    input: empty({ pods: [pod(0, starting)], pvcs: [staticPvc(0)] }),
    expect: {
      kind: 'CreatePVCs',
      pvcs: [staticSeedPvc(1), staticSeedPvc(2)],
      pods: [staticSeedPod(1), staticSeedPod(2)],
    },
  },
  {
    given: 'only the middle static seed PVC exists: the record is read from it, the other two at once',
    input: empty({ pvcs: [staticPvc(1)] }),
    expect: {
      kind: 'CreatePVCs',
      pvcs: [staticSeedPvc(0), staticSeedPvc(2)],
      pods: [0, 1, 2].map((index) => staticSeedPod(index)),
    },
  },
  {
    given:
      'two static seed PVCs exist, the size changed to 5 meanwhile: the recorded membership wins, the last PVC alone',
    input: empty({ cluster: cluster({ size: 5 }), pvcs: [staticPvc(1), staticPvc(0)] }),
    expect: staticSeedPvc(2),
  },
  {
    given: 'a static seed PVC still missing while an earlier incarnation’s PVC of that name terminates: wait',
    input: empty({ pvcs: [staticPvc(0), staticPvc(1), pvc(2, { terminating: true })] }),
    expect: { kind: 'Wait', reason: 'PVCTerminating' },
  },
  {
    given: 'every static seed PVC made: every seed Pod in one pass',
    input: empty({ pvcs: [staticPvc(0), staticPvc(1), staticPvc(2)] }),
    expect: {
      kind: 'CreatePods',
      pods: [0, 1, 2].map((index) => staticSeedPod(index)),
    },
  },
  {
    given:
      'only the first static seed Pod exists (a refused create, or a crash amid the pass), not running: the other two at once, without waiting',
    input: empty({
      pods: [pod(0, { running: false, ready: false, initialState: 'new' })],
      pvcs: [staticPvc(0), staticPvc(1), staticPvc(2)],
    }),
    expect: { kind: 'CreatePods', pods: [staticSeedPod(1), staticSeedPod(2)] },
  },
  {
    given: 'two static seed Pods exist, none answers yet: the last one alone',
    input: empty({
      pods: [pod(0, starting), pod(2, starting)],
      pvcs: [staticPvc(0), staticPvc(1), staticPvc(2)],
    }),
    expect: staticSeedPod(1),
  },
  {
    given: 'every static seed Pod made, one running, no quorum yet',
    input: empty({
      pods: [
        pod(0, { ready: false, initialState: 'new' }),
        pod(1, { running: false, ready: false, initialState: 'new' }),
        pod(2, { running: false, ready: false, initialState: 'new' }),
      ],
      pvcs: [staticPvc(0), staticPvc(1), staticPvc(2)],
    }),
    expect: {
      kind: 'Wait',
      reason: 'MembersStarting',
      message:
        'waiting for a majority of the 3 initial members to start and elect a leader; not running yet: demo-1, demo-2',
      requeueAfterMs: 2_000,
    },
  },
  {
    given:
      'every static seed Pod running, no leader yet: etcd elects, no Pod event follows, so the next look is soon',
    input: empty({
      pods: [0, 1, 2].map((i) => pod(i, { ready: false, initialState: 'new' })),
      pvcs: [staticPvc(0), staticPvc(1), staticPvc(2)],
    }),
    expect: {
      kind: 'Wait',
      reason: 'MembersStarting',
      message: 'waiting for a majority of the 3 initial members to start and elect a leader',
      requeueAfterMs: 1_000,
    },
  },
  {
    given: 'a static seed PVC deleted by hand before its Pod was made: it is made again with the same record',
    input: empty({ pods: [pod(0, { initialState: 'new' })], pvcs: [staticPvc(0), staticPvc(2)] }),
    expect: { kind: 'CreatePVC', member: 'demo-1', token: 'demo-a1b2c3d4-fedcba', initialCluster: INITIAL },
  },
  {
    given: 'a static seed PVC deleted by hand while its Pod still holds it: waited for, not created over it',
    input: empty({
      pods: [pod(0, { initialState: 'new' }), pod(1, { initialState: 'new' })],
      pvcs: [staticPvc(0), { ...staticPvc(1), terminating: true }, staticPvc(2)],
    }),
    expect: { kind: 'Wait', reason: 'PVCTerminating', message: 'PVC demo-1-data is terminating' },
  },
  {
    given: 'two static members formed the cluster: the first that served is marked existing',
    input: {
      ...staticFormed(),
      pods: [pod(0, { initialState: 'new' }), pod(1, { initialState: 'new' }), pod(2, starting)],
    },
    expect: { kind: 'MarkExisting', member: 'demo-0' },
  },
  {
    given: 'two static members formed and marked, the third named in etcd but never ran, its Pod starting',
    input: staticFormed(),
    expect: {
      kind: 'Wait',
      reason: 'MembersNotReady',
      message: 'waiting for member demo-2 to be healthy',
      requeueAfterMs: 2_000,
    },
  },
  {
    given: 'the third static member running but not healthy yet: polled soon',
    input: { ...staticFormed(), pods: [pod(0), pod(1), pod(2, { ready: false })] },
    expect: { kind: 'Wait', reason: 'MembersNotReady', requeueAfterMs: 1_000 },
  },
  {
    given: 'a member running whose node is not Ready: not polled faster (the node, not etcd, is awaited)',
    input: {
      ...staticFormed(),
      pods: [pod(0), pod(1), pod(2, { ready: false, nodeNotReady: 'node node-3 not Ready for 5s' })],
    },
    expect: { kind: 'Wait', reason: 'MembersNotReady', requeueAfterMs: 2_000 },
  },
  {
    given: 'two static members formed, the third never ran and its Pod was never made: it joins as existing',
    input: { ...staticFormed(), pods: [pod(0), pod(1)] },
    expect: {
      kind: 'CreatePod',
      member: 'demo-2',
      reason: 'join',
      state: 'existing',
      initialCluster: INITIAL,
    },
  },
  {
    given: 'two static members formed, the third never ran and its Pod is lost: it is removed (no data)',
    input: { ...staticFormed(), pods: [pod(0), pod(1), pod(2, { ...starting, lost: 'its node is gone' })] },
    expect: { kind: 'RemoveMember', member: 'demo-2', reason: 'lost' },
  },
  {
    given: 'a new ephemeral cluster',
    input: empty({ cluster: cluster({ storage: { size: '1Gi', ephemeral: true } }) }),
    expect: { kind: 'CreatePod', member: 'demo-0', reason: 'seed', state: 'new', initialCluster: ['demo-0'] },
  },
  {
    given: 'a crash after the seed PVC was created',
    input: empty({ pvcs: [pvc(0, { token: 'demo-a1b2c3d4-fedcba' })] }),
    expect: {
      kind: 'CreatePod',
      member: 'demo-0',
      reason: 'seed',
      state: 'new',
      initialCluster: ['demo-0'],
      token: 'demo-a1b2c3d4-fedcba',
    },
  },
  {
    given: 'a new cluster applied without its Services, past the bound: reported, no seed made',
    input: empty({ missingServices: ['demo-peer', 'demo-client'] }),
    expect: {
      kind: 'Wait',
      reason: 'ServiceMissing',
      degraded: true,
      stalled: true,
      message:
        'Services demo-peer and demo-client are missing: members find each other through demo-peer (headless, ' +
        'publishing not-ready addresses) and clients reach them through demo-client. The EtcdCluster construct ' +
        'synthesizes both beside the EtcdCluster (dist/ holds them): apply them; nothing else is done until they exist',
    },
  },
  {
    given: 'a steady cluster whose client Service was deleted: reported, nothing else done',
    input: { ...s3, missingServices: ['demo-client'] },
    expect: {
      kind: 'Wait',
      reason: 'ServiceMissing',
      message:
        'Service demo-client is missing: members find each other through demo-peer (headless, publishing not-ready ' +
        'addresses) and clients reach them through demo-client. The EtcdCluster construct synthesizes both beside ' +
        'the EtcdCluster (dist/ holds them): apply them; nothing else is done until they exist',
    },
  },
  {
    given: 'a refused spec and a missing Service: the refusal names the spec first',
    input: {
      ...withCluster(s3, { storage: { size: '1Gi', ephemeral: true } }),
      missingServices: ['demo-peer'],
    },
    expect: { kind: 'Refuse', field: 'spec.storage.ephemeral' },
  },
  {
    given: 'a new cluster whose name has retained PVCs of an earlier incarnation',
    input: empty({
      pvcs: [
        pvc(0, { clusterUid: 'old' }),
        pvc(1, { clusterUid: 'old', token: 'old-token', initialCluster: ['demo-0', 'demo-1', 'demo-9'] }),
      ],
    }),
    expect: {
      kind: 'CreatePVCs',
      pvcs: ['demo-2', 'demo-3', 'demo-4'].map((member) => ({
        kind: 'CreatePVC',
        member,
        token: 'demo-a1b2c3d4-abc123',
        initialCluster: ['demo-2', 'demo-3', 'demo-4'],
      })),
    },
  },
  {
    given: 'a crash after the seed Pod was created',
    input: empty({ pods: [pod(0, { running: false, ready: false })], pvcs: [pvc(0, { token: 't' })] }),
    expect: { kind: 'Wait', reason: 'SeedStarting' },
  },
  {
    given: 'a seed Pod Ready for long that does not answer the controller',
    input: empty({ pods: [pod(0, { readySettled: true })], pvcs: [pvc(0, { token: 't' })] }),
    expect: {
      kind: 'Wait',
      reason: 'MembersUnreachable',
      degraded: true,
      stalled: true,
      message:
        "1 member Pod is Ready (the kubelet's health checks pass) but none answers the controller on client " +
        "port 2379: a NetworkPolicy that does not admit the controller's Pods (the cluster's own policy admits them " +
        'by namespace and labels), a firewall or DNS stands between them',
    },
  },
  {
    given: 'a seed whose restore init container failed (spec.bootstrap.backup)',
    input: empty({
      pods: [
        pod(0, { running: false, ready: false, restoreFailure: 'exit code 4 (BackupNotFound: no such key)' }),
      ],
      pvcs: [pvc(0, { token: 't' })],
    }),
    expect: {
      kind: 'Wait',
      reason: 'BootstrapRestoreFailed',
      degraded: true,
      message:
        "the seed demo-0 could not restore spec.bootstrap.backup: exit code 4 (BackupNotFound: no such key); it is retried, the seed's PVC is kept",
      stalled: true,
    },
  },
  {
    given: 'a seed whose restore init container failed with a fault a retry may clear (S3Unavailable)',
    input: empty({
      pods: [
        pod(0, {
          running: false,
          ready: false,
          restoreFailure: 'exit code 4 (S3Unavailable: connect ECONNREFUSED) after 2 restart(s)',
          restoreFailureTransient: true,
        }),
      ],
      pvcs: [pvc(0, { token: 't' })],
    }),
    expect: { kind: 'Wait', reason: 'BootstrapRestoreFailed', degraded: true, stalled: undefined },
  },
  {
    given: 'a seed whose restore failed once, now answering',
    input: {
      ...steady(1),
      pods: [pod(0, { restoreFailure: 'exit code 4 (S3Unavailable)' })],
      cluster: cluster({ size: 1 }),
    },
    expect: { kind: 'Steady' },
  },
  {
    given: 'every Pod of a size-1 cluster gone, its PVC kept',
    input: { ...steady(1), pods: [], etcd: undefined },
    expect: {
      kind: 'CreatePod',
      member: 'demo-0',
      reason: 'recreate',
      state: 'existing',
      initialCluster: ['demo-0'],
    },
  },
  {
    given: 'every Pod of a size-3 cluster gone, one already recreated and starting',
    input: { ...s3, pods: [pod(0, { running: false, ready: false })], etcd: undefined },
    expect: {
      kind: 'CreatePod',
      member: 'demo-1',
      reason: 'recreate',
      initialCluster: ['demo-0', 'demo-1', 'demo-2'],
    },
  },
  {
    given: 'no member answers and every Pod runs',
    input: { ...s3, pods: s3.pods.map((p) => ({ ...p, ready: false })), etcd: undefined },
    expect: { kind: 'ReportQuorumLost' },
  },
  {
    given: 'no member answers while every member Pod has been Ready for long: the path is cut, not quorum',
    input: { ...s3, pods: s3.pods.map((p) => ({ ...p, readySettled: true })), etcd: undefined },
    expect: {
      kind: 'Wait',
      reason: 'MembersUnreachable',
      degraded: true,
      stalled: true,
      message:
        "3 member Pods are Ready (the kubelet's health checks pass) but none answers the controller on client " +
        "port 2379: a NetworkPolicy that does not admit the controller's Pods (the cluster's own policy admits them " +
        'by namespace and labels), a firewall or DNS stands between them',
    },
  },
  {
    given: 'no member answers, every Pod Ready but one only just: a member still coming up, quorum lost',
    input: {
      ...s3,
      pods: [pod(0, { readySettled: true }), pod(1, { readySettled: true }), pod(2)],
      etcd: undefined,
    },
    expect: { kind: 'ReportQuorumLost' },
  },
  {
    given: 'no member answers, two Pods long Ready and one member without a Pod (being recreated elsewhere)',
    input: {
      ...s3,
      pods: [pod(0, { readySettled: true }), pod(1, { readySettled: true })],
      pvcs: [pvc(0), pvc(1)],
      etcd: undefined,
    },
    expect: { kind: 'ReportQuorumLost' },
  },
  {
    given: 'no member answers, no Pod and no PVC left of known members',
    input: { ...s3, pods: [], pvcs: [], etcd: undefined },
    expect: { kind: 'ReportQuorumLost' },
  },
  // 6: resume an add
  {
    given: 'a crash after AddLearner (learner, no PVC, no Pod)',
    input: {
      ...steady(1),
      cluster: cluster({ size: 3, knownMembers: ['demo-0'] }),
      etcd: etcd([member(0), member(1, { learner: true, started: false, healthy: false })]),
    },
    expect: { kind: 'CreatePVC', member: 'demo-1' },
  },
  {
    given: 'a crash after the joiner PVC was created',
    input: {
      ...steady(1),
      cluster: cluster({ size: 3, knownMembers: ['demo-0'] }),
      pvcs: [pvc(0), pvc(1)],
      etcd: etcd([member(0), member(1, { learner: true, started: false, healthy: false })]),
    },
    expect: {
      kind: 'CreatePod',
      member: 'demo-1',
      reason: 'join',
      state: 'existing',
      initialCluster: ['demo-0', 'demo-1'],
    },
  },
  {
    given: 'an ephemeral cluster after AddLearner',
    input: {
      ...steady(1),
      cluster: cluster({ size: 3, storage: { size: '1Gi', ephemeral: true } }),
      pods: [pod(0, { ephemeral: true })],
      pvcs: [],
      etcd: etcd([member(0), member(1, { learner: true, started: false, healthy: false })]),
    },
    expect: { kind: 'CreatePod', member: 'demo-1', reason: 'join' },
  },
  {
    given: 'a member Pod deleted, its PVC kept',
    input: {
      ...s3,
      pods: [pod(0), pod(2)],
      etcd: etcd([member(0), member(1, { healthy: false }), member(2)]),
    },
    expect: { kind: 'CreatePod', member: 'demo-1', reason: 'recreate', state: 'existing' },
  },
  {
    given: 'a member Pod deleted while quorum is lost (non-destructive recovery first)',
    input: {
      ...s3,
      pods: [pod(0), pod(2, { crashLooping: true, running: false, ready: false })],
      etcd: etcd([member(0), member(1, { healthy: false }), member(2, { healthy: false })], {
        quorum: false,
      }),
    },
    expect: { kind: 'CreatePod', member: 'demo-1', reason: 'recreate' },
  },
  {
    given: 'a learner whose PVC is still terminating',
    input: {
      ...steady(1),
      cluster: cluster({ size: 3 }),
      pvcs: [pvc(0), pvc(1, { terminating: true })],
      etcd: etcd([member(0), member(1, { learner: true, started: false, healthy: false })]),
    },
    expect: { kind: 'Wait', reason: 'PVCTerminating' },
  },
  // 7: quorum lost
  {
    given: 'a majority killed with their data',
    input: {
      ...s3,
      pods: [pod(0)],
      pvcs: [pvc(0)],
      etcd: etcd(
        [member(0, { healthy: false }), member(1, { healthy: false }), member(2, { healthy: false })],
        {
          quorum: false,
          leaderId: undefined,
        },
      ),
    },
    expect: { kind: 'ReportQuorumLost', message: '0 of 3 voting members are healthy' },
  },
  {
    given: 'the leader just killed: its followers still name it, so the member list is not the leader’s',
    input: {
      ...s3,
      pods: [pod(0, { running: true, ready: false }), pod(1), pod(2)],
      etcd: etcd([member(0, { healthy: false }), member(1), member(2)], { quorum: false }),
    },
    expect: { kind: 'Wait', reason: 'LeaderChanging' },
  },
  {
    given:
      'the leader just killed and its followers past their election timeout: they name no leader, their Pods still Ready',
    input: {
      ...s3,
      pods: [pod(0, { running: true, ready: false }), pod(1), pod(2)],
      etcd: etcd(
        [
          member(0, { healthy: false }),
          member(1, { healthy: false, electing: true }),
          member(2, { healthy: false, electing: true }),
        ],
        { quorum: false, leaderId: undefined },
      ),
    },
    expect: {
      kind: 'Wait',
      reason: 'LeaderChanging',
      message:
        'demo-1, demo-2 answer without a leader while their Pods are still Ready: an election is under way (2 of 3 voting members answer); waiting for the next leader',
    },
  },
  {
    given:
      'the same two without a leader once the kubelet turned their Pods NotReady (no leader for its whole budget)',
    input: {
      ...s3,
      pods: [pod(0, { running: true, ready: false }), pod(1, { ready: false }), pod(2, { ready: false })],
      etcd: etcd(
        [
          member(0, { healthy: false }),
          member(1, { healthy: false, electing: true }),
          member(2, { healthy: false, electing: true }),
        ],
        { quorum: false, leaderId: undefined },
      ),
    },
    expect: { kind: 'ReportQuorumLost', message: '0 of 3 voting members are healthy' },
  },
  {
    given: 'one survivor of three answers without a leader, its Pod still Ready: no election can be won',
    input: {
      ...s3,
      pods: [pod(0)],
      pvcs: [pvc(0)],
      etcd: etcd(
        [
          member(0, { healthy: false, electing: true }),
          member(1, { healthy: false }),
          member(2, { healthy: false }),
        ],
        { quorum: false, leaderId: undefined },
      ),
    },
    expect: { kind: 'ReportQuorumLost', message: '0 of 3 voting members are healthy' },
  },
  {
    given: 'a majority crash-looping on lost data',
    input: {
      ...s3,
      pods: [
        pod(0),
        pod(1, { crashLooping: true, running: false }),
        pod(2, { crashLooping: true, running: false }),
      ],
      etcd: etcd(
        [member(0, { healthy: false }), member(1, { healthy: false }), member(2, { healthy: false })],
        {
          quorum: false,
        },
      ),
    },
    expect: { kind: 'ReportQuorumLost' },
  },
  {
    given: 'no quorum while Pods are still starting',
    input: {
      ...s3,
      pods: [pod(0), pod(1, { running: false, ready: false }), pod(2, { running: false, ready: false })],
      etcd: etcd(
        [member(0, { healthy: false }), member(1, { healthy: false }), member(2, { healthy: false })],
        {
          quorum: false,
        },
      ),
    },
    expect: { kind: 'Wait', reason: 'MembersStarting' },
  },
  // 8: the seed is marked existing once it has served
  {
    given: 'a healthy seed of size 1 whose Pod still says new',
    input: steady(1, { pods: [pod(0, { initialState: 'new' })] }),
    expect: { kind: 'MarkExisting', member: 'demo-0', pod: 'demo-0' },
  },
  {
    given: 'a healthy seed that says new and members still to add (before AddLearner)',
    input: withCluster(steady(1, { pods: [pod(0, { initialState: 'new' })] }), { size: 3 }),
    expect: { kind: 'MarkExisting', member: 'demo-0' },
  },
  {
    given: 'a crash after MarkExisting (the seed says existing)',
    input: withCluster(steady(1, { pods: [pod(0, { initialState: 'existing' })] }), { size: 3 }),
    expect: { kind: 'AddLearner', member: 'demo-1' },
  },
  {
    given: 'the restored seed of an in-place restore that says new among grown members',
    input: { ...s3, pods: [pod(0, { initialState: 'new' }), pod(1), pod(2)] },
    expect: { kind: 'MarkExisting', member: 'demo-0' },
  },
  {
    given: 'a seed that says new but is not healthy yet',
    input: {
      ...steady(1, { pods: [pod(0, { initialState: 'new', ready: false })] }),
      etcd: etcd([member(0, { healthy: false })]),
    },
    expect: { kind: 'Wait', reason: 'MembersNotReady' },
  },
  {
    given: 'a seed that says new while quorum is lost',
    input: {
      ...s3,
      pods: [pod(0, { initialState: 'new' }), pod(1), pod(2)],
      etcd: etcd([member(0), member(1, { healthy: false }), member(2, { healthy: false })], {
        quorum: false,
      }),
    },
    expect: { kind: 'ReportQuorumLost' },
  },
  {
    given:
      'every static seed running and answering, no leader elected yet: the bootstrap is forming, nothing is lost',
    input: {
      ...empty({
        pods: [0, 1, 2].map((i) => pod(i, { ready: false, initialState: 'new' })),
        pvcs: [staticPvc(0), staticPvc(1), staticPvc(2)],
      }),
      etcd: etcd(
        [0, 1, 2].map((i) => member(i, { healthy: false })),
        { quorum: false, leaderId: undefined },
      ),
    },
    expect: {
      kind: 'Wait',
      reason: 'MembersStarting',
      message: 'waiting for a majority of the 3 initial members to start and elect a leader',
    },
  },
  {
    given: 'a forming static bootstrap with one seed crash-looping: not waited for as forming',
    input: {
      ...empty({
        pods: [
          pod(0, { ready: false, initialState: 'new', crashLooping: true }),
          pod(1, { ready: false, initialState: 'new' }),
          pod(2, { ready: false, initialState: 'new' }),
        ],
        pvcs: [staticPvc(0), staticPvc(1), staticPvc(2)],
      }),
      etcd: etcd(
        [0, 1, 2].map((i) => member(i, { healthy: false })),
        { quorum: false, leaderId: undefined },
      ),
    },
    expect: { kind: 'ReportQuorumLost' },
  },
  // 9: leftovers of a remove
  {
    given: 'a crash after RemoveMember (Pod without member)',
    input: {
      ...steady(3),
      cluster: cluster({ size: 2, allowEvenSize: true }),
      etcd: etcd([member(0), member(1)]),
    },
    expect: { kind: 'DeletePod', member: 'demo-2', pod: 'demo-2' },
  },
  {
    given: 'a crash after DeletePod with whenScaled Delete',
    input: {
      ...steady(2),
      cluster: cluster({ size: 2, allowEvenSize: true, whenScaled: 'Delete' }),
      pvcs: [pvc(0), pvc(1), pvc(2)],
    },
    expect: { kind: 'DeletePVC', member: 'demo-2', pvc: 'demo-2-data' },
  },
  {
    given: 'a crash after DeletePod with whenScaled Retain',
    input: {
      ...steady(2),
      cluster: cluster({ size: 2, allowEvenSize: true }),
      pvcs: [pvc(0), pvc(1), pvc(2)],
    },
    expect: { kind: 'Steady' },
  },
  {
    given: 'a PVC of an earlier incarnation with whenScaled Delete',
    input: {
      ...steady(1),
      cluster: cluster({ size: 1, whenScaled: 'Delete' }),
      pvcs: [pvc(0), pvc(5, { clusterUid: 'old' })],
    },
    expect: { kind: 'Steady' },
  },
  {
    given: 'a stray Pod whose member is not in etcd',
    input: { ...s3, pods: [...s3.pods, pod(7, { running: false })] },
    expect: { kind: 'DeletePod', member: 'demo-7' },
  },
  // 10: dead members
  {
    given: 'a member crash-looping (lost PVC data)',
    input: {
      ...s3,
      pods: [pod(0), pod(1, { crashLooping: true, running: false, ready: false }), pod(2)],
      etcd: etcd([member(0), member(1, { healthy: false }), member(2)]),
    },
    expect: { kind: 'RemoveMember', member: 'demo-1', id: '1001', reason: 'dead' },
  },
  {
    given: 'a started member whose Pod and PVC are gone',
    input: {
      ...s3,
      pods: [pod(0), pod(2)],
      pvcs: [pvc(0), pvc(2)],
      etcd: etcd([member(0), member(1, { healthy: false }), member(2)]),
    },
    expect: { kind: 'RemoveMember', member: 'demo-1', reason: 'dead' },
  },
  {
    given: 'a member answering with another identity',
    input: { ...s3, etcd: etcd([member(0), member(1), member(2, { healthy: false, wrongIdentity: true })]) },
    expect: { kind: 'RemoveMember', member: 'demo-2', reason: 'dead' },
  },
  {
    given: 'a crash-looping member of 2 (removing it leaves a quorum of 1)',
    input: {
      ...steady(2),
      cluster: cluster({ size: 2, allowEvenSize: true }),
      pods: [pod(0), pod(1, { crashLooping: true, running: false })],
      etcd: etcd([member(0), member(1, { healthy: false })], { quorum: true }),
    },
    expect: { kind: 'RemoveMember', member: 'demo-1' },
  },
  {
    given: 'a dead member while another is unhealthy in a 3-member cluster',
    input: {
      ...s3,
      pods: [pod(0), pod(1, { crashLooping: true, running: false }), pod(2)],
      etcd: etcd([member(0), member(1, { healthy: false }), member(2, { healthy: false })], {
        quorum: false,
      }),
    },
    expect: { kind: 'ReportQuorumLost' },
  },
  {
    given: 'a dead member of 5 while one other is down (the removal keeps quorum)',
    input: {
      ...steady(5),
      pods: [
        pod(0),
        pod(1, { crashLooping: true, running: false }),
        pod(2, { running: true, ready: false }),
        pod(3),
        pod(4),
      ],
      etcd: etcd([
        member(0),
        member(1, { healthy: false }),
        member(2, { healthy: false }),
        member(3),
        member(4),
      ]),
    },
    expect: { kind: 'RemoveMember', member: 'demo-1' },
  },
  {
    given: 'three of five members down',
    input: {
      ...steady(5),
      cluster: cluster({ size: 5 }),
      pods: [pod(0), pod(1, { crashLooping: true }), pod(2, { crashLooping: true }), pod(3), pod(4)],
      etcd: etcd(
        [
          member(0),
          member(1, { healthy: false }),
          member(2, { healthy: false }),
          member(3, { healthy: false }),
          member(4),
        ],
        { quorum: false },
      ),
    },
    expect: { kind: 'ReportQuorumLost' },
  },
  {
    given: 'a dead learner',
    input: {
      ...steady(1),
      cluster: cluster({ size: 3 }),
      pods: [pod(0), pod(1, { crashLooping: true, running: false })],
      pvcs: [pvc(0), pvc(1)],
      etcd: etcd([member(0), member(1, { learner: true, started: false, healthy: false })]),
    },
    expect: { kind: 'RemoveMember', member: 'demo-1', reason: 'dead' },
  },
  {
    given: 'a member that restarted once (killed process, not crash-looping)',
    input: {
      ...s3,
      pods: [pod(0), pod(1, { running: true, ready: false }), pod(2)],
      etcd: etcd([member(0), member(1, { healthy: false }), member(2)]),
    },
    expect: { kind: 'Wait', reason: 'MembersNotReady' },
  },
  // 11: learners
  {
    given: 'a crash after the joiner Pod was created, not started yet',
    input: {
      ...steady(1),
      cluster: cluster({ size: 3 }),
      pods: [pod(0), pod(1, { running: false, ready: false })],
      pvcs: [pvc(0), pvc(1)],
      etcd: etcd([member(0), member(1, { learner: true, started: false, healthy: false })]),
    },
    // The Pod's status changes wake the controller; REQUEUE.starting is the fallback.
    expect: { kind: 'Wait', reason: 'LearnerStarting', requeueAfterMs: 2_000 },
  },
  {
    given: 'a learner whose Pod runs',
    input: {
      ...steady(1),
      cluster: cluster({ size: 3 }),
      pods: [pod(0), pod(1, { ready: false })],
      pvcs: [pvc(0), pvc(1)],
      etcd: etcd([member(0), member(1, { learner: true, started: true, healthy: true })]),
    },
    expect: { kind: 'PromoteLearner', member: 'demo-1', id: '1001' },
  },
  {
    given:
      'a learner whose Pod runs but that does not answer yet (promoting it would cost quorum in a 1 → 2 growth)',
    input: {
      ...steady(1),
      cluster: cluster({ size: 3 }),
      pods: [pod(0), pod(1, { ready: false })],
      pvcs: [pvc(0), pvc(1)],
      etcd: etcd([member(0), member(1, { learner: true, started: true, healthy: false })]),
    },
    // Nothing in Kubernetes changes when etcd starts answering: looked at again in REQUEUE.learner.
    expect: { kind: 'Wait', reason: 'LearnerStarting', requeueAfterMs: 250 },
  },
  {
    given: 'a learner while the cluster was scaled back down (undo the add)',
    input: {
      ...steady(1),
      cluster: cluster({ size: 1 }),
      pods: [pod(0), pod(1)],
      pvcs: [pvc(0), pvc(1)],
      etcd: etcd([member(0), member(1, { learner: true })]),
    },
    expect: { kind: 'RemoveMember', member: 'demo-1', reason: 'undo' },
  },
  // 12-15: scale
  {
    given: 'a seed just started',
    input: {
      ...steady(1),
      cluster: cluster({ size: 3, knownMembers: [] }),
    },
    expect: { kind: 'AddLearner', member: 'demo-1' },
  },
  {
    given: 'size 3 → 5',
    input: withCluster(s3, { size: 5 }),
    expect: { kind: 'AddLearner', member: 'demo-3' },
  },
  {
    given: 'size 3 → 5 with a retained PVC of a removed member',
    input: { ...withCluster(s3, { size: 5 }), pvcs: [...s3.pvcs, pvc(3)] },
    expect: { kind: 'AddLearner', member: 'demo-4' },
  },
  {
    given: 'scale-up while a member is not healthy',
    input: {
      ...withCluster(s3, { size: 5 }),
      etcd: etcd([member(0), member(1), member(2, { healthy: false })]),
    },
    expect: { kind: 'Wait', reason: 'MembersNotReady' },
  },
  {
    given: 'size 5 → 3',
    input: withCluster(steady(5), { size: 3 }),
    expect: { kind: 'RemoveMember', member: 'demo-4', id: '1004', reason: 'scale-in' },
  },
  {
    given: 'size 3 → 1 with the highest member leading',
    input: {
      ...withCluster(s3, { size: 1 }),
      etcd: etcd([member(0), member(1), member(2)], { leaderId: '1002' }),
    },
    expect: { kind: 'MoveLeader', fromId: '1002', toId: '1000', toMember: 'demo-0' },
  },
  {
    given: 'a crash after MoveLeader',
    input: {
      ...withCluster(s3, { size: 1 }),
      etcd: etcd([member(0), member(1), member(2)], { leaderId: '1000' }),
    },
    expect: { kind: 'RemoveMember', member: 'demo-2' },
  },
  {
    given: 'size 2 → 1 (allowEvenSize)',
    input: withCluster(steady(2), { size: 1, allowEvenSize: true }),
    expect: { kind: 'RemoveMember', member: 'demo-1' },
  },
  {
    given: 'a member of a foreign peer URL and one too many members',
    input: {
      ...s3,
      etcd: etcd([member(0), member(1), member(2), member(9, { member: undefined, id: '77' })]),
    },
    expect: { kind: 'RemoveMember', id: '77', reason: 'scale-in' },
  },
  { given: 'a steady cluster of 3', input: s3, expect: { kind: 'Steady' } },
  { given: 'a steady cluster of 1', input: steady(1), expect: { kind: 'Steady' } },
];

describe('planMembership', () => {
  for (const { given, input, expect } of cases) {
    it(`GIVEN ${given} THEN ${expect.kind}${expect.member ? ` ${expect.member}` : ''}`, () => {
      // WHEN
      const action = planMembership(input) as unknown as Record<string, unknown>;
      // THEN
      for (const [key, value] of Object.entries(expect)) {
        assert.deepEqual(action[key], value, `${key} of ${JSON.stringify(action)}`);
      }
    });
  }

  // docs/design/membership.md, "A joiner in one pass": the writes an AddLearner carries are the ones steps 6.2 and
  // 6.1 plan once the learner is in etcd, then once its PVC exists (one derivation, `joinerWrites`).
  for (const { given, input, pvc: withPvc } of [
    { given: 'a size-3 cluster of 2', input: withCluster(steady(2), { size: 3 }), pvc: true },
    {
      given: 'an ephemeral size-3 cluster of 2',
      input: {
        ...withCluster(steady(2), { size: 3, storage: { size: '1Gi', ephemeral: true } }),
        pods: [pod(0, { ephemeral: true }), pod(1, { ephemeral: true })],
        pvcs: [],
      },
      pvc: false,
    },
    {
      given: 'a size-3 cluster of demo-0 and demo-2 (the new name fills the gap)',
      input: {
        ...withCluster(steady(3), { size: 3 }),
        pods: [pod(0), pod(2)],
        pvcs: [pvc(0), pvc(2)],
        etcd: etcd([member(0), member(2)]),
      },
      pvc: true,
    },
    {
      given: 'a member of three deleted with its data and removed',
      input: {
        ...steady(3),
        pods: [pod(0), pod(1, { terminating: true }), pod(2)],
        pvcs: [pvc(0), pvc(1, { terminating: true }), pvc(2)],
        etcd: etcd([member(0), member(2)]),
      },
      pvc: true,
    },
  ]) {
    it(`GIVEN ${given} THEN AddLearner carries the ${withPvc ? 'PVC and ' : ''}Pod that steps 6.2 and 6.1 plan after it`, () => {
      const action = planMembership(input);
      assert.equal(action.kind, 'AddLearner');
      if (action.kind !== 'AddLearner') return;
      const learner = member(Number(action.member.split('-')[1]), {
        learner: true,
        started: false,
        healthy: false,
        id: '4242',
      });
      const added: PlanInput = { ...input, etcd: etcd([...(input.etcd?.members ?? []), learner]) };
      assert.ok(action.join.pod.initialCluster.includes(action.member));
      if (withPvc) {
        assert.deepEqual(planMembership(added), action.join.pvc);
        const withItsPvc = { ...added, pvcs: [...added.pvcs, pvc(Number(action.member.split('-')[1]))] };
        assert.deepEqual(planMembership(withItsPvc), action.join.pod);
      } else {
        assert.equal(action.join.pvc, undefined);
        assert.deepEqual(planMembership(added), action.join.pod);
      }
    });
  }

  for (const [given, input] of [
    ['a new cluster of 3', empty()],
    ['a new cluster of 5', empty({ cluster: cluster({ size: 5 }) })],
    ['a static seed of 3 whose first PVC exists', empty({ pvcs: [staticPvc(0)] })],
  ] as const) {
    it(`GIVEN ${given} THEN CreatePVCs carries the seed Pods that step 5.2 plans once those PVCs exist`, () => {
      const action = planMembership(input);
      assert.equal(action.kind, 'CreatePVCs');
      if (action.kind !== 'CreatePVCs') return;
      const made = action.pvcs.map((write) =>
        pvc(Number(write.member.split('-')[1]), {
          token: write.token,
          ...(write.initialCluster ? { initialCluster: write.initialCluster } : {}),
        }),
      );
      const next = planMembership({ ...input, pvcs: [...input.pvcs, ...made] });
      assert.deepEqual(next, { kind: 'CreatePods', pods: action.pods });
    });
  }

  it('GIVEN the seed token THEN it is unique to the incarnation (uid prefix and nonce)', () => {
    const lone = (nonce: string, uid = UID) =>
      planMembership(empty({ nonce, cluster: cluster({ size: 1, uid }) }));
    const first = lone('aaaaaa');
    const second = lone('bbbbbb', 'ffffffff-1');
    assert.equal(first.kind === 'CreatePVC' && first.token, `demo-${UID.slice(0, 8)}-aaaaaa`);
    assert.equal(second.kind === 'CreatePVC' && second.token, 'demo-ffffffff-bbbbbb');
  });
});
