import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EtcdCrds, EtcdOperator, type EtcdOperatorProps } from '../../../constructs/index.js';
import { type Manifest, matchSnapshot, only, synth, testChart } from './helpers.js';

function operator(props: EtcdOperatorProps = {}): Manifest[] {
  const chart = testChart(null);
  new EtcdOperator(chart, 'operator', props);
  return synth(chart);
}

const SECRETS = /secret/i;

describe('EtcdOperator construct', () => {
  it('GIVEN defaults WHEN synthesized THEN it matches the snapshot (CRDs excluded: they have their own test)', () => {
    matchSnapshot(
      'constructs',
      'etcd-operator-default',
      operator().filter((o) => o.kind !== 'CustomResourceDefinition'),
    );
  });

  it('GIVEN defaults THEN the namespace enforces Pod Security restricted', () => {
    const namespace = only(operator(), 'Namespace', 'etcd-gitops-system');
    assert.equal(namespace.metadata.labels['pod-security.kubernetes.io/enforce'], 'restricted');
  });

  it('GIVEN defaults THEN the Deployment runs 2 leader-electing replicas with probes on 8081 and a restricted Pod', () => {
    const deployment = only(operator(), 'Deployment', 'etcd-gitops-controller');
    assert.equal(deployment.metadata.namespace, 'etcd-gitops-system');
    assert.equal(deployment.spec.replicas, 2);
    assert.deepEqual(deployment.spec.selector.matchLabels, {
      'app.kubernetes.io/name': 'etcd-gitops',
      'app.kubernetes.io/instance': 'etcd-gitops',
      'app.kubernetes.io/component': 'controller',
    });
    const pod = deployment.spec.template.spec;
    const [container] = pod.containers;
    assert.deepEqual(container.command, ['/app/bin/etcd-gitops']);
    assert.deepEqual(container.args, [
      'controller',
      '--leader-elect',
      '--metrics-bind-address=:8080',
      '--health-probe-bind-address=:8081',
    ]);
    assert.equal(container.livenessProbe.httpGet.path, '/healthz');
    assert.equal(container.readinessProbe.httpGet.path, '/readyz');
    assert.ok(container.ports.some((p: Manifest) => p.name === 'health' && p.containerPort === 8081));
    assert.equal(container.image, 'ghcr.io/etcd-gitops/etcd-gitops:0.1.0');
    assert.deepEqual(pod.securityContext.seccompProfile, { type: 'RuntimeDefault' });
    assert.equal(pod.securityContext.runAsNonRoot, true);
    assert.deepEqual(container.securityContext.capabilities, { drop: ['ALL'] });
    assert.equal(container.securityContext.allowPrivilegeEscalation, false);
    assert.equal(container.securityContext.readOnlyRootFilesystem, true);
    assert.ok(container.resources.requests.cpu && container.resources.limits.memory);
  });

  it('GIVEN an image override THEN the controller runs it and hands the same image to the init containers it adds', () => {
    const image = 'registry.example/mirror/etcd-gitops:0.1.0';
    const [container] = only(operator({ image }), 'Deployment', 'etcd-gitops-controller').spec.template.spec
      .containers;
    assert.equal(container.image, image);
    assert.deepEqual(
      container.env.find((e: Manifest) => e.name === 'ETCD_GITOPS_IMAGE'),
      { name: 'ETCD_GITOPS_IMAGE', value: image },
    );
  });

  it('GIVEN defaults THEN the ClusterRole has no wildcard and no Secret access, and only the verbs the controller uses', () => {
    const role = only(operator(), 'ClusterRole', 'etcd-gitops-controller');
    for (const rule of role.rules as Manifest[]) {
      for (const field of ['apiGroups', 'resources', 'verbs'])
        assert.ok(!rule[field].includes('*'), JSON.stringify(rule));
      assert.ok(!rule.resources.some((r: string) => SECRETS.test(r)), JSON.stringify(rule));
    }
    const verbs = Object.fromEntries(
      (role.rules as Manifest[]).flatMap((r) => r.resources.map((res: string) => [res, r.verbs.join(',')])),
    );
    assert.deepEqual(verbs, {
      etcdclusters: 'get,list,watch',
      etcdrestores: 'get,list,watch',
      'etcdclusters/status': 'patch', // merge patches only, never a replace
      'etcdrestores/status': 'patch',
      'etcdclusters/finalizers': 'update', // blockOwnerDeletion on member Pods and PVCs
      pods: 'list,watch,create,delete,patch', // read through informers; patch: the member record, a budget recompute
      poddisruptionbudgets: 'list,watch', // the clusters' budgets, through an informer (disruption-budget.md)
      'pods/eviction': 'create', // a rolling change stops a healthy member through the PodDisruptionBudget
      persistentvolumeclaims: 'list,watch,create,delete,patch', // patch: PVCs a restore retains or abandons
      events: 'create,patch',
      nodes: 'get',
      services: 'get',
      cronjobs: 'list,watch', // the clusters' backup CronJobs, read only (backup-status.md)
    });
    // No Services: the controller reaches members by DNS names it derives, and never reads a Service object.
    // test/unit/constructs/controller-api-calls.test.ts derives these verbs from controller/ so they cannot drift.
  });

  it('GIVEN defaults THEN Leases are granted by a Role in the operator namespace only', () => {
    const objects = operator();
    const role = only(objects, 'Role', 'etcd-gitops-controller-leader-election');
    assert.equal(role.metadata.namespace, 'etcd-gitops-system');
    assert.deepEqual(role.rules, [
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'create', 'update'] },
    ]);
    const binding = only(objects, 'RoleBinding', 'etcd-gitops-controller-leader-election');
    assert.deepEqual(binding.subjects, [
      { kind: 'ServiceAccount', name: 'etcd-gitops-controller', namespace: 'etcd-gitops-system' },
    ]);
    const clusterBinding = only(objects, 'ClusterRoleBinding', 'etcd-gitops-controller');
    assert.equal(clusterBinding.roleRef.name, 'etcd-gitops-controller');
  });

  it('GIVEN defaults THEN a metrics Service selects the controller on port 8080', () => {
    const service = only(operator(), 'Service', 'etcd-gitops-controller-metrics');
    assert.deepEqual(service.spec.ports, [
      { name: 'metrics', port: 8080, protocol: 'TCP', targetPort: 'metrics' },
    ]);
    assert.equal(service.spec.selector['app.kubernetes.io/component'], 'controller');
  });

  it('GIVEN the default and crds:false THEN CRDs are included only by default', () => {
    assert.equal(operator().filter((o) => o.kind === 'CustomResourceDefinition').length, 2);
    assert.equal(operator({ crds: false }).filter((o) => o.kind === 'CustomResourceDefinition').length, 0);
  });

  it('GIVEN objects of the operator THEN cluster-scoped ones have no namespace and namespaced ones have ours', () => {
    const clusterScoped = new Set([
      'Namespace',
      'ClusterRole',
      'ClusterRoleBinding',
      'CustomResourceDefinition',
    ]);
    for (const o of operator({ namespace: 'ops' })) {
      assert.equal(
        o.metadata.namespace,
        clusterScoped.has(o.kind) ? undefined : 'ops',
        `${o.kind} ${o.metadata.name}`,
      );
    }
  });

  it('fails when placed in a chart with a namespace', () => {
    assert.throws(
      () => new EtcdOperator(testChart('apps'), 'operator'),
      /^Error: EtcdOperator must be in a chart without 'namespace' .* got namespace 'apps'$/,
    );
  });

  it('fails when a resource limit is not a quantity', () => {
    assert.throws(
      () => operator({ resources: { limits: { memory: '1 GB' } } }),
      /^Error: 'resources.limits.memory' must be a Kubernetes quantity such as 1Gi, 512Mi or 10G, got '1 GB'$/,
    );
  });

  it('fails when replicas is 0', () => {
    assert.throws(
      () => operator({ replicas: 0 }),
      /^Error: 'replicas' must be an integer from 1 to 10, got 0$/,
    );
  });
});

describe('EtcdCrds construct', () => {
  it('GIVEN the CRDs WHEN synthesized THEN they match the snapshot, come first in Argo CD and are never pruned', () => {
    const chart = testChart(null);
    new EtcdCrds(chart, 'crds');
    const crds = synth(chart);
    matchSnapshot('constructs', 'etcd-crds', crds);
    assert.deepEqual(
      crds.map((c) => c.metadata.name),
      ['etcdclusters.etcd.gitops.dev', 'etcdrestores.etcd.gitops.dev'],
    );
    for (const crd of crds) {
      assert.equal(crd.metadata.annotations['argocd.argoproj.io/sync-wave'], '-2');
      assert.equal(crd.metadata.annotations['argocd.argoproj.io/sync-options'], 'Prune=false,Delete=false');
      assert.equal(crd.metadata.namespace, undefined);
      assert.deepEqual(crd.spec.names.categories, ['etcd-gitops']);
    }
    assert.deepEqual(crds[0]!.spec.names.shortNames, ['etcd', 'etcdc']);
    assert.deepEqual(
      crds[0]!.spec.versions[0].additionalPrinterColumns.map((c: Manifest) => c.name),
      ['Size', 'Ready', 'Version', 'Phase', 'Available', 'Paused', 'Last Backup', 'Age'],
    );
  });

  it('fails when placed in a chart with a namespace', () => {
    assert.throws(
      () => new EtcdCrds(testChart('apps'), 'crds'),
      /^Error: EtcdCrds must be in a chart without 'namespace'/,
    );
  });
  it('GIVEN 2 replicas (the default) THEN a PodDisruptionBudget lets node drains take one at a time; 1 replica has none', () => {
    const budget = only(operator(), 'PodDisruptionBudget', 'etcd-gitops-controller');
    assert.deepEqual(budget.spec, {
      maxUnavailable: 1,
      selector: { matchLabels: only(operator(), 'Deployment').spec.selector.matchLabels },
    });
    assert.equal(budget.metadata.namespace, 'etcd-gitops-system');
    assert.deepEqual(
      operator({ replicas: 1 }).filter((o) => o.kind === 'PodDisruptionBudget'),
      [],
    );
  });

  it('GIVEN nodeSelector, tolerations and priorityClassName THEN the controller Pods carry them; a bad class name fails', () => {
    const spec = only(
      operator({
        nodeSelector: { 'node-role.kubernetes.io/infra': '' },
        tolerations: [{ key: 'infra', operator: 'Exists', effect: 'NoSchedule' }],
        priorityClassName: 'system-cluster-critical',
      }),
      'Deployment',
    ).spec.template.spec;
    assert.deepEqual(spec.nodeSelector, { 'node-role.kubernetes.io/infra': '' });
    assert.deepEqual(spec.tolerations, [{ key: 'infra', operator: 'Exists', effect: 'NoSchedule' }]);
    assert.equal(spec.priorityClassName, 'system-cluster-critical');
    assert.throws(
      () => operator({ priorityClassName: 'Critical!' }),
      /^Error: 'priorityClassName' must be a Kubernetes object name .*, got 'Critical!'$/,
    );
  });
  it('fails when a controller memory limit is below its request', () => {
    assert.throws(
      () => operator({ resources: { requests: { memory: '512Mi' } } }),
      /^Error: 'resources.limits.memory' must be at least 'resources.requests.memory' \(512Mi\): .*, got 256Mi$/,
    );
  });

  it('GIVEN the default memory limit THEN NODE_OPTIONS caps the V8 heap at half of it and the semi-spaces at 2 MiB; another limit moves the cap, none removes both', () => {
    const nodeOptions = (props: EtcdOperatorProps) =>
      only(operator(props), 'Deployment', 'etcd-gitops-controller').spec.template.spec.containers[0].env.find(
        (variable: Manifest) => variable.name === 'NODE_OPTIONS',
      )?.value;
    assert.equal(nodeOptions({}), '--max-old-space-size=128 --max-semi-space-size=2');
    assert.equal(
      nodeOptions({ resources: { limits: { memory: '1Gi' } } }),
      '--max-old-space-size=512 --max-semi-space-size=2',
    );
    assert.equal(nodeOptions({ resources: { requests: { memory: '64Mi' }, limits: {} } }), undefined);
  });
});
