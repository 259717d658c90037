// The Prometheus Operator objects our constructs synthesize, applied to a real API server that has the Prometheus
// Operator's own CRDs (from its module, test/env/versions.env): strict field validation accepts every field, and
// what is stored is what we wrote (nothing pruned).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type ApiObject, App, Chart } from 'cdk8s';
import { EtcdCluster, EtcdOperator } from '../../constructs/index.js';
import { type ControlPlane, startControlPlane } from '../env/control-plane.js';
import { kubectl } from '../env/kubectl.js';
import { applyMonitoringCrds } from '../env/prometheus/crds.js';

describe('PodMonitor, ServiceMonitor and PrometheusRule on a real API server', () => {
  let cp: ControlPlane;
  const run = (args: string[], input?: string) =>
    kubectl(cp.kubeconfigPath, args, { allowFailure: true, ...(input === undefined ? {} : { input }) });
  const applyStrict = (objects: unknown[]) =>
    run(
      ['apply', '--server-side', '--validate=strict', '-f', '-'],
      JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }),
    );

  before(async () => {
    cp = await startControlPlane({ waitForControllers: false });
    await applyMonitoringCrds(cp.kubeconfigPath);
    for (const ns of ['db', 'etcd-gitops-system'])
      await kubectl(cp.kubeconfigPath, ['create', 'namespace', ns]);
  });
  after(() => cp?.stop());

  test('GIVEN an app with monitors and rules WHEN applied with strict validation THEN all are accepted and stored unchanged', async () => {
    const app = new App();
    const operator = new EtcdOperator(new Chart(app, 'ops'), 'operator');
    const cluster = new EtcdCluster(new Chart(app, 'db', { namespace: 'db' }), 'main', { version: '3.6.16' });
    cluster.addBackupSchedule({
      schedule: '0 */6 * * *',
      bucket: 'etcd-backups',
      credentialsSecretName: 's3',
    });
    const labels = { release: 'kube-prometheus-stack' };
    const made: ApiObject[] = [
      cluster.addPodMonitor({ labels }),
      cluster.addPrometheusRule({ labels }),
      operator.addServiceMonitor({ labels }),
      operator.addPrometheusRule({ labels }),
    ];
    const objects = made.map((object) => object.toJson());
    const applied = await applyStrict(objects);
    assert.equal(applied.code, 0, applied.stderr);
    for (const object of objects) {
      const stored = JSON.parse(
        (await run(['get', object.kind, object.metadata.name, '-n', object.metadata.namespace, '-o', 'json']))
          .stdout,
      );
      assert.deepEqual(stored.spec, object.spec, `${object.kind} ${object.metadata.name} stored as written`);
    }
  });

  test('fails when a field is misspelled: strict validation names it (the check above can fail)', async () => {
    const app = new App();
    const cluster = new EtcdCluster(new Chart(app, 'db', { namespace: 'db' }), 'typo', {
      version: '3.6.16',
      operatorNamespace: 'etcd-gitops-system',
    });
    const monitor = cluster.addPodMonitor().toJson();
    monitor.spec.podMetricsEndpoints[0].honourLabels = true;
    const applied = await applyStrict([monitor]);
    assert.notEqual(applied.code, 0, 'a misspelled field was accepted');
    assert.match(
      applied.stderr,
      /unknown field "honourLabels" in com\.coreos\.monitoring\.v1\.PodMonitor\.spec\.podMetricsEndpoints/,
    );
  });
});
