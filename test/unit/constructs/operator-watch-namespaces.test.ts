// EtcdOperator's namespace-scoped mode (`watchNamespaces`): the controller's rights move from a ClusterRole into a
// Role per watched namespace (a ClusterRole keeps reading Nodes only), its Deployment watches only those
// namespaces, and a cluster or restore of the app outside them fails at synth instead of never being reconciled.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { App, Chart } from 'cdk8s';
import {
  EtcdCluster,
  EtcdOperator,
  type EtcdOperatorProps,
  KubeEtcdRestore,
} from '../../../constructs/index.js';
import { CONTROLLER_WATCHED_NAMESPACE_RULES } from '../../../constructs/operator-rbac.js';
import { type Manifest, only, synth, testChart } from './helpers.js';

function operator(props: EtcdOperatorProps): { chart: Chart; objects: () => Manifest[] } {
  const chart = testChart(null);
  new EtcdOperator(chart, 'operator', { crds: false, ...props });
  return { chart, objects: () => synth(chart) };
}

const subject = { kind: 'ServiceAccount', name: 'etcd-gitops-controller', namespace: 'etcd-gitops-system' };

describe('EtcdOperator watchNamespaces', () => {
  it('GIVEN watchNamespaces team-a, team-b WHEN synthesized THEN each has a Role and RoleBinding with the watched-namespace rules, and the ClusterRole only gets Nodes', () => {
    const objects = operator({ watchNamespaces: ['team-a', 'team-b'] }).objects();
    for (const namespace of ['team-a', 'team-b']) {
      const role = objects.find(
        (o) =>
          o.kind === 'Role' &&
          o.metadata.name === 'etcd-gitops-controller' &&
          o.metadata.namespace === namespace,
      );
      assert.ok(role, `Role etcd-gitops-controller in ${namespace}`);
      assert.deepEqual(role.rules, CONTROLLER_WATCHED_NAMESPACE_RULES);
      const binding = objects.find(
        (o) =>
          o.kind === 'RoleBinding' &&
          o.metadata.name === 'etcd-gitops-controller' &&
          o.metadata.namespace === namespace,
      );
      assert.deepEqual(binding?.roleRef, {
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'Role',
        name: 'etcd-gitops-controller',
      });
      assert.deepEqual(binding?.subjects, [subject]);
    }
    assert.deepEqual(only(objects, 'ClusterRole', 'etcd-gitops-controller').rules, [
      { apiGroups: [''], resources: ['nodes'], verbs: ['get'] },
    ]);
    assert.deepEqual(only(objects, 'ClusterRoleBinding', 'etcd-gitops-controller').subjects, [subject]);
    // Only the two watched namespaces and the leader election Role in the operator's own.
    assert.deepEqual(
      objects
        .filter((o) => o.kind === 'Role')
        .map((o) => `${o.metadata.namespace}/${o.metadata.name}`)
        .sort(),
      [
        'etcd-gitops-system/etcd-gitops-controller-leader-election',
        'team-a/etcd-gitops-controller',
        'team-b/etcd-gitops-controller',
      ],
    );
  });

  it('GIVEN watchNamespaces WHEN synthesized THEN the controller is told to watch exactly them', () => {
    const [container] = only(operator({ watchNamespaces: ['team-a', 'team-b'] }).objects(), 'Deployment').spec
      .template.spec.containers;
    assert.deepEqual(container.args, [
      'controller',
      '--leader-elect',
      '--metrics-bind-address=:8080',
      '--health-probe-bind-address=:8081',
      '--watch-namespaces=team-a,team-b',
    ]);
  });

  it('GIVEN no watchNamespaces THEN one ClusterRole grants the watched-namespace rules everywhere and no Role does', () => {
    const objects = operator({}).objects();
    assert.deepEqual(only(objects, 'ClusterRole', 'etcd-gitops-controller').rules, [
      ...CONTROLLER_WATCHED_NAMESPACE_RULES,
      { apiGroups: [''], resources: ['nodes'], verbs: ['get'] },
    ]);
    assert.deepEqual(
      objects.filter((o) => o.kind === 'Role').map((o) => o.metadata.name),
      ['etcd-gitops-controller-leader-election'],
    );
  });

  it('GIVEN a cluster in a watched namespace THEN it synthesizes; one outside fails at synth naming the namespace, the list and the fix', () => {
    const { chart } = operator({ watchNamespaces: ['team-a'] });
    const app = App.of(chart);
    new EtcdCluster(new Chart(app, 'a', { namespace: 'team-a' }), 'main', { version: '3.6.16' });
    assert.doesNotThrow(() => app.synth());
    const outside = new Chart(app, 'b', { namespace: 'team-b' });
    new EtcdCluster(outside, 'orders', { version: '3.6.16' });
    assert.throws(
      () => synth(outside),
      /\[b\/orders\] EtcdCluster 'orders' is in namespace 'team-b', but its operator watches only 'team-a' \(watchNamespaces\), so no controller would act on it: add 'team-b' to the EtcdOperator's watchNamespaces or use one of those namespaces/,
    );
  });

  it('fails at synth for a cluster without a namespace, and for a restore outside the watched namespaces', () => {
    const { chart } = operator({ watchNamespaces: ['team-a'] });
    const app = App.of(chart);
    const unset = new Chart(app, 'unset');
    new EtcdCluster(unset, 'main', { version: '3.6.16' });
    assert.throws(
      () => synth(unset),
      /EtcdCluster 'main' has no namespace at synth time, but its operator watches only 'team-a' \(watchNamespaces\): set 'namespace' \(or the chart's\) to one of them/,
    );
    const restores = new Chart(new App(), 'restores', { namespace: 'team-b' });
    new EtcdOperator(new Chart(App.of(restores), 'operator'), 'operator', {
      crds: false,
      watchNamespaces: ['team-a'],
    });
    new KubeEtcdRestore(restores, 'restore', {
      metadata: { name: 'rewind' },
      spec: { clusterName: 'main', survivor: { newest: true } },
    });
    assert.throws(
      () => synth(restores),
      /EtcdRestore 'rewind' is in namespace 'team-b', but its operator watches only 'team-a'/,
    );
  });

  const refused: Array<[string, readonly string[], RegExp]> = [
    [
      'an empty list',
      [],
      /^Error: 'watchNamespaces' must name at least one namespace \(leave it unset to watch every namespace\), got \[\]$/,
    ],
    [
      'a name twice',
      ['team-a', 'team-a'],
      /^Error: 'watchNamespaces' names 'team-a' twice, got \["team-a","team-a"\]$/,
    ],
    [
      'a bad name',
      ['team-a', 'Team_B'],
      /^Error: 'watchNamespaces\[1\]' must be at most 63 characters .*, got 'Team_B'$/,
    ],
  ];
  for (const [what, watchNamespaces, message] of refused) {
    it(`fails on ${what} in watchNamespaces`, () => {
      assert.throws(() => operator({ watchNamespaces }).objects(), message);
    });
  }
});
