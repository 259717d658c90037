// The soak deletes a lost seed as the user would (test/soak/runbook.ts): only the seed the status reports lost, only
// on a node the soak took out, and each Pod once.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Pod } from '@kubernetes/client-node';
import { ANNOTATION_CLUSTER_TOKEN } from '../../../constructs/conventions/annotations.js';
import type { EtcdCluster } from '../../../controller/etcdcluster/api.js';
import { lostSeed } from '../../soak/runbook.js';

const cluster = (reason: string, token = 't1'): EtcdCluster =>
  ({
    metadata: { name: 'plain' },
    spec: { size: 3 },
    status: {
      conditions: [
        { type: 'Ready', status: 'False', reason, message: '', lastTransitionTime: '2026-12-02T00:00:00Z' },
        { type: 'Degraded', status: 'True', reason, message: '', lastTransitionTime: '2026-12-02T00:00:00Z' },
      ],
      restore: { name: 'plain-restore-1', uid: 'r', phase: 'StoppingMembers', token },
    },
  }) as unknown as EtcdCluster;

const pod = (name: string, uid: string, node: string | undefined, token?: string): V1Pod => ({
  metadata: { name, uid, annotations: token ? { [ANNOTATION_CLUSTER_TOKEN]: token } : {} },
  spec: { containers: [], ...(node ? { nodeName: node } : {}) },
});

const out = new Set(['node-2']);
const pods = [pod('plain-0', 'u0', 'node-1', 'old'), pod('plain-3', 'u3', 'node-2', 't1')];

describe('lostSeed', () => {
  it('names the seed (the lock token) on a node taken out while the status says SeedLost', () =>
    assert.equal(lostSeed(cluster('SeedLost'), pods, out, new Set())?.metadata?.name, 'plain-3'));

  it('names none while the status says anything else, though the seed is on a node taken out', () => {
    assert.equal(lostSeed(cluster('SeedStarting'), pods, out, new Set()), undefined);
    assert.equal(lostSeed(cluster('PVCTerminating'), pods, out, new Set()), undefined);
  });

  it('names none for a seed on a node that is up or not yet scheduled (the next seed, the status not yet rewritten)', () => {
    assert.equal(
      lostSeed(cluster('SeedLost'), [pod('plain-4', 'u4', 'node-1', 't1')], out, new Set()),
      undefined,
    );
    assert.equal(
      lostSeed(cluster('SeedLost'), [pod('plain-4', 'u4', undefined, 't1')], out, new Set()),
      undefined,
    );
  });

  it('names none for a Pod of another token, or one the soak already deleted', () => {
    assert.equal(lostSeed(cluster('SeedLost', 't2'), pods, out, new Set()), undefined);
    assert.equal(lostSeed(cluster('SeedLost'), pods, out, new Set(['u3'])), undefined);
  });
});
