import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clusterKeysOfMember, clusterKeysOfRestore } from '../../../controller/runtime/owner-keys.js';

describe('clusterKeysOfMember', () => {
  const owner = (name: string, apiVersion = 'etcd.gitops.dev/v1alpha1', kind = 'EtcdCluster') => ({
    apiVersion,
    kind,
    name,
    uid: `uid-${name}`,
  });
  const table: Array<[string, object, Array<{ namespace: string; name: string }>]> = [
    [
      'maps a member Pod to its cluster by the instance label',
      { metadata: { namespace: 'db', name: 'main-0', labels: { 'app.kubernetes.io/instance': 'main' } } },
      [{ namespace: 'db', name: 'main' }],
    ],
    [
      'merges the label and an ownerReference to the same cluster',
      {
        metadata: {
          namespace: 'db',
          name: 'main-0',
          labels: { 'app.kubernetes.io/instance': 'main' },
          ownerReferences: [owner('main')],
        },
      },
      [{ namespace: 'db', name: 'main' }],
    ],
    [
      'maps an unlabelled object by its EtcdCluster ownerReference only',
      {
        metadata: {
          namespace: 'db',
          name: 'x',
          ownerReferences: [owner('a'), owner('b', 'apps/v1', 'ReplicaSet')],
        },
      },
      [{ namespace: 'db', name: 'a' }],
    ],
    [
      'ignores an EtcdCluster kind from another group',
      { metadata: { namespace: 'db', name: 'x', ownerReferences: [owner('a', 'other.io/v1')] } },
      [],
    ],
  ];
  for (const [name, object, expected] of table)
    it(name, () => assert.deepEqual(clusterKeysOfMember(object), expected));
});

describe('clusterKeysOfRestore', () => {
  it('maps a restore to spec.clusterName in its namespace', () => {
    const restore = { metadata: { namespace: 'db', name: 'r1' }, spec: { clusterName: 'main' } };
    assert.deepEqual(clusterKeysOfRestore(restore), [{ namespace: 'db', name: 'main' }]);
  });
  it('maps a restore without clusterName to nothing', () => {
    const restore = { metadata: { namespace: 'db', name: 'r1' }, spec: {} };
    assert.deepEqual(clusterKeysOfRestore(restore), []);
  });
});
