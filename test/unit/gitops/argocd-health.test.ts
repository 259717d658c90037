import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { repoRoot } from '../../env/binaries.js';
import { runHealthScript, toLua } from '../../health/lua.js';

const docs = join(repoRoot, 'docs', 'gitops');
const clusterScript = join(docs, 'health-etcdcluster.lua');
const restoreScript = join(docs, 'health-etcdrestore.lua');

const condition = (
  type: string,
  status: string,
  message = `${type} is ${status}`,
  reason = type === 'Ready' ? 'MembersReady' : 'Test',
) => ({
  type,
  status,
  reason,
  message,
  lastTransitionTime: '2026-01-01T00:00:00Z',
});

function cluster(generation: number, status?: Record<string, unknown>, spec: Record<string, unknown> = {}) {
  return {
    apiVersion: 'etcd.gitops.dev/v1alpha1',
    kind: 'EtcdCluster',
    metadata: { name: 'example', namespace: 'etcd-example', generation },
    spec: { size: 3, version: '3.6.16', ...spec },
    ...(status ? { status } : {}),
  };
}

const ready = [
  condition('Ready', 'True', '3/3 members ready'),
  condition('Available', 'True'),
  condition('Progressing', 'False'),
  condition('Degraded', 'False'),
];

describe('Argo CD health check of EtcdCluster (Lua 5.1)', () => {
  for (const [given, obj, expected] of [
    [
      'a new cluster without status',
      cluster(1),
      ['Progressing', 'Waiting for the controller to observe the cluster'],
    ],
    [
      'a ready cluster at the current generation',
      cluster(2, { observedGeneration: 2, conditions: ready }),
      ['Healthy', '3/3 members ready'],
    ],
    [
      'a ready cluster whose newest backup failed (BackupReady False, BackupFailed)',
      cluster(2, {
        observedGeneration: 2,
        conditions: [...ready, condition('BackupReady', 'False', 'the newest backup failed', 'BackupFailed')],
      }),
      ['Healthy', '3/3 members ready; backups: the newest backup failed'],
    ],
    [
      'a ready cluster whose backups are too old (BackupReady False, BackupTooOld)',
      cluster(2, {
        observedGeneration: 2,
        conditions: [...ready, condition('BackupReady', 'False', 'no backup for 2h', 'BackupTooOld')],
      }),
      ['Degraded', 'no backup for 2h'],
    ],
    [
      'a ready cluster whose newest backup failed its restore drill (BackupReady False, DrillFailed)',
      cluster(2, {
        observedGeneration: 2,
        conditions: [
          ...ready,
          condition('BackupReady', 'False', 'drill failed: CHECKSUM_MISMATCH', 'DrillFailed'),
        ],
      }),
      ['Degraded', 'drill failed: CHECKSUM_MISMATCH'],
    ],
    [
      'a ready cluster whose backups succeed (BackupReady True)',
      cluster(2, {
        observedGeneration: 2,
        conditions: [...ready, condition('BackupReady', 'True', 'fine', 'BackupsSucceeding')],
      }),
      ['Healthy', '3/3 members ready'],
    ],
    [
      'a ready cluster whose spec changed since the controller looked',
      cluster(3, { observedGeneration: 2, conditions: ready }),
      ['Progressing', 'Waiting for the controller to observe generation 3'],
    ],
    [
      'a cluster adding a learner',
      cluster(2, {
        observedGeneration: 2,
        conditions: [
          condition('Ready', 'False'),
          condition('Progressing', 'True', 'Adding learner example-3'),
        ],
      }),
      ['Progressing', 'Adding learner example-3'],
    ],
    [
      'a cluster that lost quorum',
      cluster(2, {
        observedGeneration: 2,
        conditions: [
          condition('Ready', 'False'),
          condition('Degraded', 'True', 'Quorum lost: 1/3 members healthy'),
        ],
      }),
      ['Degraded', 'Quorum lost: 1/3 members healthy'],
    ],
    [
      'a cluster not ready with nothing in progress',
      cluster(2, {
        observedGeneration: 2,
        conditions: [condition('Ready', 'False', 'member example-1 is not healthy')],
      }),
      ['Degraded', 'member example-1 is not healthy'],
    ],
    [
      'an observed cluster without conditions yet',
      cluster(1, { observedGeneration: 1 }),
      ['Progressing', 'Waiting for the Ready condition'],
    ],
    [
      'a paused cluster',
      cluster(1, { observedGeneration: 1, conditions: ready }, { paused: true }),
      ['Suspended', 'Paused: the controller reports status but changes nothing'],
    ],
    [
      'a member being replaced (Degraded and Progressing both True)',
      cluster(2, {
        observedGeneration: 2,
        conditions: [
          condition('Ready', 'False'),
          condition('Progressing', 'True', 'ReplacingMember example-1'),
          condition('Degraded', 'True', 'member example-1 is dead', 'MemberDead'),
          condition('Stalled', 'False'),
        ],
      }),
      ['Progressing', 'ReplacingMember example-1'],
    ],
    [
      'a stalled cluster (a refused spec, members fine)',
      cluster(2, {
        observedGeneration: 2,
        conditions: [
          condition('Ready', 'True'),
          condition('Progressing', 'False'),
          condition('Degraded', 'True', 'spec.storage.size: 3Gi is not allowed', 'InvalidSpec'),
          condition('Stalled', 'True', 'spec.storage.size: 3Gi is not allowed', 'InvalidSpec'),
        ],
      }),
      ['Degraded', 'spec.storage.size: 3Gi is not allowed'],
    ],
    [
      'Stalled=True whatever else says (Stalled before Progressing)',
      cluster(2, {
        observedGeneration: 2,
        conditions: [condition('Progressing', 'True'), condition('Stalled', 'True', 'stuck')],
      }),
      ['Degraded', 'stuck'],
    ],
    [
      'a ready cluster with an etcd alarm',
      cluster(2, {
        observedGeneration: 2,
        conditions: [
          condition('Ready', 'True'),
          condition('Progressing', 'False'),
          condition('Degraded', 'True', 'etcd alarm NOSPACE', 'NoSpace'),
        ],
      }),
      ['Degraded', 'etcd alarm NOSPACE'],
    ],
    [
      'a paused cluster that lost quorum',
      cluster(
        3,
        {
          observedGeneration: 3,
          conditions: [
            condition('Ready', 'False'),
            condition('Progressing', 'False', 'paused', 'Paused'),
            condition('Degraded', 'True', '1 of 3 voting members are healthy', 'QuorumLost'),
            condition('Stalled', 'True', '1 of 3 voting members are healthy', 'QuorumLost'),
          ],
        },
        { paused: true },
      ),
      ['Degraded', '1 of 3 voting members are healthy'],
    ],
    [
      'a cluster that lost quorum, paused just now (the controller has not seen the pause yet)',
      cluster(
        4,
        {
          observedGeneration: 3,
          conditions: [condition('Degraded', 'True', 'quorum lost', 'QuorumLost')],
        },
        { paused: true },
      ),
      ['Degraded', 'quorum lost'],
    ],
    [
      'a paused cluster with quorum and a member down',
      cluster(
        3,
        {
          observedGeneration: 3,
          conditions: [
            condition('Ready', 'False'),
            condition('Available', 'True'),
            condition('Degraded', 'True', 'member example-1: no Pod', 'MemberDown'),
          ],
        },
        { paused: true },
      ),
      ['Suspended', 'Paused: the controller reports status but changes nothing'],
    ],
    [
      'a new cluster with the API server default status',
      cluster(1, { observedGeneration: 0 }),
      ['Progressing', 'Waiting for the controller to observe generation 1'],
    ],
  ] as const) {
    it(`GIVEN ${given} WHEN Argo CD evaluates health THEN it is ${expected[0]}`, () => {
      const health = runHealthScript(clusterScript, obj);
      assert.deepEqual([health.status, health.message], expected);
    });
  }
});

describe('Argo CD health check of EtcdRestore (Lua 5.1)', () => {
  const restore = (status?: Record<string, unknown>) => ({
    kind: 'EtcdRestore',
    metadata: { name: 'r', generation: 1 },
    spec: { clusterName: 'example' },
    ...(status ? { status } : {}),
  });
  for (const [given, obj, expected] of [
    [
      'a restore without status',
      restore(),
      ['Progressing', 'Waiting for the controller to start the restore'],
    ],
    [
      'a verifying restore',
      restore({ phase: 'Verifying', observedGeneration: 1 }),
      ['Progressing', 'Verifying'],
    ],
    [
      'a completed restore',
      restore({ phase: 'Completed', observedGeneration: 1, message: 'Restored revision 42' }),
      ['Healthy', 'Restored revision 42'],
    ],
    [
      'a failed restore',
      restore({ phase: 'Failed', observedGeneration: 1, message: 'ChecksumMismatch: backup sha256 differs' }),
      ['Degraded', 'ChecksumMismatch: backup sha256 differs'],
    ],
    [
      'a restore with the API server default status',
      restore({ observedGeneration: 0 }),
      ['Progressing', 'Waiting for the controller to start the restore'],
    ],
    [
      'a restore retrying an unreachable S3 (Degraded and Progressing)',
      restore({
        phase: 'Verifying',
        observedGeneration: 1,
        message: 'S3 unreachable',
        conditions: [
          { type: 'Progressing', status: 'True', reason: 'S3Unavailable' },
          { type: 'Degraded', status: 'True', reason: 'S3Unavailable' },
          { type: 'Stalled', status: 'False', reason: 'AsExpected' },
        ],
      }),
      ['Progressing', 'Verifying: S3 unreachable'],
    ],
    [
      'a restore the controller reports stalled',
      restore({
        phase: 'Restoring',
        observedGeneration: 1,
        message: 'stuck',
        conditions: [{ type: 'Stalled', status: 'True', reason: 'Test' }],
      }),
      ['Degraded', 'stuck'],
    ],
    [
      'a completed restore whose spec changed since',
      { ...restore({ phase: 'Completed', observedGeneration: 1 }), metadata: { name: 'r', generation: 2 } },
      ['Progressing', 'Waiting for the controller to observe generation 2'],
    ],
  ] as const) {
    it(`GIVEN ${given} WHEN Argo CD evaluates health THEN it is ${expected[0]}`, () => {
      const health = runHealthScript(restoreScript, obj);
      assert.deepEqual([health.status, health.message], expected);
    });
  }
});

describe('the argocd-cm snippet', () => {
  it('GIVEN docs/gitops/argocd-cm.yaml THEN it is what scripts/gen-argocd-cm.mjs writes from the Lua scripts', async () => {
    const cm = readFileSync(join(docs, 'argocd-cm.yaml'), 'utf8');
    const generator = pathToFileURL(join(repoRoot, 'scripts', 'gen-argocd-cm.mjs')).href;
    const { argocdCm } = (await import(generator)) as { argocdCm(): string };
    assert.equal(cm, argocdCm(), 'docs/gitops/argocd-cm.yaml is stale: run node scripts/gen-argocd-cm.mjs');
    for (const [key, script] of [
      ['resource.customizations.health.etcd.gitops.dev_EtcdCluster', clusterScript],
      ['resource.customizations.health.etcd.gitops.dev_EtcdRestore', restoreScript],
    ] as const) {
      const body = readFileSync(script, 'utf8')
        .split('\n')
        .map((line) => (line ? `    ${line}` : line))
        .join('\n');
      assert.ok(cm.includes(`  ${key}: |\n${body}`), `${key} is missing or differs from ${script}`);
    }
  });

  it('GIVEN strings with quotes and newlines THEN the Lua table literal escapes them', () => {
    assert.equal(toLua({ a: ['x"y', 'l\n2'], b: null }), '{["a"] = {"x\\"y", "l\\n2"}, ["b"] = nil}');
  });
});
