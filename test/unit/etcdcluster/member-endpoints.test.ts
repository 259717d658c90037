// What a pass asks each member (observe.ts, `memberEndpoints`): every member Pod that is not terminating, Ready or
// not, with the same deadline (docs/design/membership.md, "The etcd view").
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Pod } from '@kubernetes/client-node';
import type { EtcdCluster } from '../../../controller/etcdcluster/api.js';
import { memberEndpoints } from '../../../controller/etcdcluster/observe.js';

const cluster: EtcdCluster = {
  apiVersion: 'etcd.gitops.dev/v1alpha1',
  kind: 'EtcdCluster',
  metadata: { name: 'demo', namespace: 'ns', uid: 'u-1' },
  spec: { size: 3, version: '3.6.16' },
};

function memberPod(member: string, options: { ready: boolean; terminating?: boolean }): V1Pod {
  return {
    metadata: {
      name: member,
      labels: { 'etcd.gitops.dev/member': member },
      ...(options.terminating ? { deletionTimestamp: new Date() } : {}),
    },
    status: {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: options.ready ? 'True' : 'False' }],
    },
  };
}

describe('memberEndpoints', () => {
  it('GIVEN a Ready Pod, one not Ready and one terminating THEN the first two are asked, alike', () => {
    const endpoints = memberEndpoints(
      cluster,
      [
        memberPod('demo-0', { ready: true }),
        memberPod('demo-1', { ready: false }),
        memberPod('demo-2', { ready: true, terminating: true }),
      ],
      undefined,
    );
    assert.deepEqual(endpoints, [
      { member: 'demo-0', clientURL: 'http://demo-0.demo-peer.ns.svc:2379' },
      { member: 'demo-1', clientURL: 'http://demo-1.demo-peer.ns.svc:2379' },
    ]);
  });
});
