// Pure parts of the test environment's real nodes: the address and path layout, the socket-length guard, the
// volume the provisioner makes for a claim, and the names the CONNECT proxy looks up.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { clusterName } from '../../env/nodes/connect-proxy.js';
import { containerdConfig, containerdPaths } from '../../env/nodes/containerd.js';
import { kubeletConfig, kubeletPaths } from '../../env/nodes/kubelet.js';
import { checkSocketRoom, nodeLayout } from '../../env/nodes/layout.js';
import { needsVolume, storageClassName, volumeFor } from '../../env/nodes/provisioner.js';

describe('nodeLayout', () => {
  test('GIVEN node 2 WHEN laid out THEN it has its own address, Pod subnet, veth, namespace file and cgroup root', () => {
    const node = nodeLayout('/tmp/env', 2, 'egt-abc');
    assert.deepEqual(
      { ...node },
      {
        name: 'node-2',
        index: 2,
        ip: '10.77.0.12',
        podCidr: '10.244.2.0/24',
        podGateway: '10.244.2.1',
        hostVeth: 'egt-n2',
        dir: '/tmp/env/node-2',
        netnsPath: '/tmp/env/node-2/netns',
        cgroupRoot: '/egt-abc-node-2',
      },
    );
  });

  test('fails when the index is not 1 to 9, naming the value', () => {
    assert.throws(() => nodeLayout('/tmp/env', 0, 'x'), /node index must be an integer from 1 to 9, got 0/);
    assert.throws(() => nodeLayout('/tmp/env', 10, 'x'), /got 10/);
  });
});

describe('checkSocketRoom', () => {
  test('GIVEN a short directory WHEN checked THEN it passes', () => {
    checkSocketRoom('/tmp/egt-test-abcdef/etcd-gitops-env-abcdef');
  });

  test('fails when the directory leaves no room for a 107-byte socket path, naming the directory', () => {
    const long = `/tmp/${'x'.repeat(70)}`;
    assert.throws(() => checkSocketRoom(long), new RegExp(`the environment directory ${long} is too long`));
  });
});

describe('node configuration', () => {
  const node = nodeLayout('/tmp/env', 1, 'egt-abc');

  test('GIVEN a node WHEN its containerd config is rendered THEN root, state, socket, runc root and CNI are its own', () => {
    const paths = containerdPaths(node);
    const toml = containerdConfig(paths, node, 'registry.k8s.io/pause:3.10');
    assert.match(toml, /^root = '\/tmp\/env\/node-1\/containerd\/root'$/m);
    assert.match(toml, /^ {2}address = '\/tmp\/env\/node-1\/containerd.sock'$/m);
    assert.match(toml, /restrict_oom_score_adj = true/);
    assert.match(toml, /disabled_plugins = \['io.containerd.nri.v1.nri'\]/);
    assert.match(toml, /sandbox = 'registry.k8s.io\/pause:3.10'/);
    assert.match(toml, /conf_dir = '\/tmp\/env\/node-1\/containerd\/cni\/net.d'/);
  });

  test('GIVEN a node WHEN its kubelet config is made THEN it serves on the node IP with its cgroup root and CoreDNS', () => {
    const config = kubeletConfig(node, kubeletPaths(node), {
      caCert: '/ca.crt',
      containerdSocket: '/tmp/env/node-1/containerd.sock',
    }) as Record<string, unknown>;
    assert.equal(config.address, '10.77.0.11');
    assert.equal(config.cgroupRoot, '/egt-abc-node-1');
    assert.deepEqual(config.clusterDNS, ['10.77.0.1']);
    assert.equal(config.containerRuntimeEndpoint, 'unix:///tmp/env/node-1/containerd.sock');
    assert.equal(config.imageGCHighThresholdPercent, 100);
  });
});

describe('provisioner', () => {
  const claim = {
    metadata: {
      name: 'data',
      namespace: 'ns',
      uid: 'u-1',
      annotations: { 'volume.kubernetes.io/selected-node': 'node-3' },
    },
    spec: { storageClassName, resources: { requests: { storage: '64Mi' } }, accessModes: ['ReadWriteOnce'] },
  };

  test('GIVEN a claim the scheduler placed WHEN checked THEN it needs a volume on that node', () => {
    assert.equal(needsVolume(claim), 'node-3');
    assert.equal(needsVolume({ ...claim, spec: { ...claim.spec, volumeName: 'pv' } }), undefined);
    assert.equal(needsVolume({ ...claim, spec: { ...claim.spec, storageClassName: 'other' } }), undefined);
    assert.equal(needsVolume({ ...claim, metadata: { ...claim.metadata, annotations: {} } }), undefined);
  });

  test('GIVEN a claim WHEN its volume is made THEN it is a local volume on the node, bound to that claim', () => {
    const volume = volumeFor(claim, 'node-3', '/tmp/env/volumes/node-3/ns_data_u-1');
    assert.equal(volume.metadata?.name, 'pvc-u-1');
    assert.deepEqual(volume.spec?.claimRef, {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      namespace: 'ns',
      name: 'data',
      uid: 'u-1',
    });
    assert.deepEqual(volume.spec?.capacity, { storage: '64Mi' });
    assert.equal(volume.spec?.local?.path, '/tmp/env/volumes/node-3/ns_data_u-1');
    assert.deepEqual(
      volume.spec?.nodeAffinity?.required?.nodeSelectorTerms[0]?.matchExpressions?.[0]?.values,
      ['node-3'],
    );
  });
});

describe('clusterName', () => {
  test('GIVEN Service and Pod names WHEN looked up THEN .svc names get the cluster domain, others stay', () => {
    assert.equal(clusterName('demo-client.ns.svc', 'cluster.local'), 'demo-client.ns.svc.cluster.local');
    assert.equal(
      clusterName('demo-0.demo-peer.ns.svc.cluster.local', 'cluster.local'),
      'demo-0.demo-peer.ns.svc.cluster.local',
    );
    assert.equal(clusterName('10.244.1.2', 'cluster.local'), '10.244.1.2');
  });
});
