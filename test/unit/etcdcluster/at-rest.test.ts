// When a pass may be quiet (docs/design/controller-runtime.md, "Fresh passes and quiet passes"): only after a
// fresh pass found the cluster at rest (the reconciler keeps nothing otherwise), only while the informer caches hold the cluster, its Pods and its PVCs at
// the versions that pass read, and only until the remembered readings are as old as the fresh-read period.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type {
  KubernetesObject,
  V1CronJob,
  V1Node,
  V1PersistentVolumeClaim,
  V1Pod,
} from '@kubernetes/client-node';
import { backupSelector, memberSelector } from '../../../constructs/conventions/labels.js';
import type { EtcdCluster } from '../../../controller/etcdcluster/api.js';
import {
  type AtRest,
  cachedKubeSide,
  endsAtRest,
  isRestingPlan,
  type KubeSide,
  kubeVersions,
  mayBeQuiet,
} from '../../../controller/etcdcluster/at-rest.js';
import type { Action } from '../../../controller/etcdcluster/types.js';
import { nodeConditionsOnly } from '../../../controller/etcdcluster/views.js';
import type { CacheLister, ReconcilerListers } from '../../../controller/runtime/types.js';
import { joinOf } from './fixtures.js';

const NOW = Date.parse('2026-11-27T08:00:00Z');
const EVERY = 300_000;

const object = <T>(name: string, resourceVersion: string, labels: Record<string, string> = {}) =>
  ({ metadata: { name, namespace: 'db', resourceVersion, labels } }) as T;

const side = (
  clusterVersion = '10',
  pods = ['demo-0@11', 'demo-1@12'],
  pvcs = ['data-demo-0@13'],
  backups = { cronJobs: ['demo-backup@19'], pods: ['demo-backup-1-x@20'] },
): KubeSide => ({
  cluster: object<EtcdCluster>('demo', clusterVersion),
  pods: pods.map((pod) => object<V1Pod>(pod.split('@')[0], pod.split('@')[1])),
  pvcs: pvcs.map((pvc) => object<V1PersistentVolumeClaim>(pvc.split('@')[0], pvc.split('@')[1])),
  backups: {
    cronJobs: backups.cronJobs.map((c) => object<V1CronJob>(c.split('@')[0], c.split('@')[1])),
    pods: backups.pods.map((pod) => object<V1Pod>(pod.split('@')[0], pod.split('@')[1])),
  },
});

const remembered = (readAtMs = NOW - 30_000, from = side()): AtRest => ({
  versions: kubeVersions(from),
  readAtMs,
  nodes: new Map(),
  missingServices: [],
});

describe('isRestingPlan and endsAtRest', () => {
  const steady: Action = { kind: 'Steady' };
  const cases: Array<[string, Action, boolean, number, boolean]> = [
    ['Steady, same status, no Event', steady, false, 0, true],
    ['Paused, same status, no Event', { kind: 'Paused' }, false, 0, true],
    ['Steady with a status to write', steady, true, 0, false],
    ['Steady with an Event to record', steady, false, 1, false],
    [
      'a Wait',
      { kind: 'Wait', reason: 'MemberStarting', message: 'waiting', requeueAfterMs: 2_000 },
      false,
      0,
      false,
    ],
    ['an AddLearner', { kind: 'AddLearner', member: 'demo-2', join: joinOf('demo-2') }, false, 0, false],
  ];
  for (const [name, action, statusChanged, events, expected] of cases) {
    it(`GIVEN ${name} THEN the pass ${expected ? 'ends' : 'does not end'} at rest`, () => {
      assert.equal(endsAtRest({ action, statusChanged, events }), expected);
      if (!statusChanged && events === 0) assert.equal(isRestingPlan(action), expected);
    });
  }
});

describe('mayBeQuiet', () => {
  it('GIVEN the caches at the remembered versions and readings 30 s old THEN the pass may be quiet', () => {
    assert.equal(mayBeQuiet(remembered(), side(), NOW, EVERY), true);
  });

  it('GIVEN the same Pods and PVCs listed in another order THEN it may still be quiet', () => {
    const reordered = side('10', ['demo-1@12', 'demo-0@11']);
    assert.equal(mayBeQuiet(remembered(), reordered, NOW, EVERY), true);
  });

  const changed: Array<[string, KubeSide]> = [
    ['the cluster changed (a spec edit or a status write)', side('14')],
    ['a member Pod changed', side('10', ['demo-0@11', 'demo-1@15'])],
    ['a member Pod is gone', side('10', ['demo-0@11'])],
    ['a member Pod was added', side('10', ['demo-0@11', 'demo-1@12', 'demo-2@16'])],
    ['a PVC changed', side('10', undefined, ['data-demo-0@17'])],
    ['a PVC was added', side('10', undefined, ['data-demo-0@13', 'data-demo-1@18'])],
    [
      'a backup CronJob changed (its last success)',
      side('10', undefined, undefined, { cronJobs: ['demo-backup@21'], pods: ['demo-backup-1-x@20'] }),
    ],
    [
      'a backup Pod ended',
      side('10', undefined, undefined, { cronJobs: ['demo-backup@19'], pods: ['demo-backup-1-x@22'] }),
    ],
  ];
  for (const [name, cached] of changed) {
    it(`GIVEN ${name} since the fresh read THEN the pass is fresh`, () => {
      assert.equal(mayBeQuiet(remembered(), cached, NOW, EVERY), false);
    });
  }

  it('GIVEN readings exactly the fresh-read period old THEN the pass is fresh; a millisecond younger, quiet', () => {
    assert.equal(mayBeQuiet(remembered(NOW - EVERY), side(), NOW, EVERY), false);
    assert.equal(mayBeQuiet(remembered(NOW - EVERY + 1), side(), NOW, EVERY), true);
  });
});

describe('cachedKubeSide', () => {
  const lister = <T extends KubernetesObject>(objects: T[]): CacheLister<T> => ({
    get: (namespace, name) =>
      objects.find((o) => o.metadata?.namespace === namespace && o.metadata?.name === name),
    list: (namespace) =>
      objects.filter((o) => namespace === undefined || o.metadata?.namespace === namespace),
  });
  const members = memberSelector('demo');
  const otherCluster = memberSelector('demo-2');
  const backups = backupSelector('demo');
  const listers: ReconcilerListers = {
    clusters: lister([object<KubernetesObject>('demo', '10')]),
    restores: lister([]),
    pods: lister([
      object<V1Pod>('demo-0', '11', members),
      object<V1Pod>('demo-2-0', '21', otherCluster),
      object<V1Pod>('demo-backup-1-x', '14', backups),
      object<V1Pod>('demo-2-backup-1-x', '24', backupSelector('demo-2')),
      {
        ...object<V1Pod>('demo-0', '31', members),
        metadata: { name: 'demo-0', namespace: 'other', labels: members },
      },
    ]),
    persistentVolumeClaims: lister([object<V1PersistentVolumeClaim>('data-demo-0', '13', members)]),
    cronJobs: lister([
      object<V1CronJob>('demo-backup', '15', backups),
      object<V1CronJob>('demo-2-backup', '25', backupSelector('demo-2')),
    ]),
  };

  it("GIVEN Pods and CronJobs of another cluster and of the same name in another namespace THEN only the cluster's own are taken, members and backups apart", () => {
    const cached = cachedKubeSide(listers, { namespace: 'db', name: 'demo' });
    assert.deepEqual(
      cached && kubeVersions(cached),
      'cluster/demo@10 backup-pod/demo-backup-1-x@14 cronjob/demo-backup@15 pod/demo-0@11 pvc/data-demo-0@13',
    );
  });

  it('GIVEN no cached cluster of that name THEN there is no cached side', () => {
    assert.equal(cachedKubeSide(listers, { namespace: 'db', name: 'gone' }), undefined);
  });
});

describe('nodeConditionsOnly', () => {
  it('GIVEN a Node with images and a missing Node THEN the conditions and the missing mark are kept, nothing else', () => {
    const conditions = [
      { type: 'Ready', status: 'False', lastTransitionTime: new Date(NOW - 5_000) },
    ] as NonNullable<V1Node['status']>['conditions'];
    const node = {
      metadata: { name: 'node-a', labels: { zone: 'a' } },
      status: { conditions, images: [{ names: ['etcd:3.6.16'], sizeBytes: 1 }] },
    } as V1Node;
    const kept = nodeConditionsOnly(
      new Map<string, V1Node | 'missing'>([
        ['node-a', node],
        ['node-b', 'missing'],
      ]),
    );
    assert.deepEqual(
      [...kept],
      [
        ['node-a', { metadata: { name: 'node-a' }, status: { conditions } }],
        ['node-b', 'missing'],
      ],
    );
  });
});
