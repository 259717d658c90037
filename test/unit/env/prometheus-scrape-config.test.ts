// The environment's Prometheus configuration, generated from the monitors our constructs synthesize: the jobs,
// selections and target labels the Prometheus Operator would give them, and a refusal for anything else.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { App, Chart } from 'cdk8s';
import { EtcdCluster, EtcdOperator } from '../../../constructs/index.js';
import {
  type MonitorObject,
  monitorScrapeConfigs,
  prometheusConfig,
} from '../../env/prometheus/scrape-config.js';

/** The PodMonitor and ServiceMonitor of a cluster `main` in `db` and of the operator, as synthesized. */
function synthesizedMonitors(): MonitorObject[] {
  const app = new App();
  const cluster = new EtcdCluster(new Chart(app, 'db', { namespace: 'db' }), 'main', { version: '3.6.16' });
  cluster.addPodMonitor({ interval: '5s' });
  new EtcdOperator(new Chart(app, 'ops'), 'operator').addServiceMonitor();
  return app.charts
    .flatMap((chart) => chart.toJson())
    .filter((o) => o.kind === 'PodMonitor' || o.kind === 'ServiceMonitor') as MonitorObject[];
}

const relabel = (job: ReturnType<typeof monitorScrapeConfigs>[number], target: string) =>
  job.relabel_configs.find((r) => r.target_label === target);

describe('scrape configs from monitors', () => {
  const [podMonitor, serviceMonitor] = synthesizedMonitors() as [MonitorObject, MonitorObject];

  it('GIVEN the cluster PodMonitor THEN one pod-role job in its namespace keeps the member Pods on the metrics port, labelled namespace, pod and job <ns>/<name>', () => {
    const [job, ...more] = monitorScrapeConfigs(podMonitor);
    assert.equal(more.length, 0);
    assert.ok(job);
    assert.equal(job.job_name, 'podMonitor/db/main-members/0');
    assert.equal(job.scrape_interval, '5s');
    assert.equal(job.metrics_path, '/metrics');
    assert.equal(job.honor_labels, false);
    assert.deepEqual(job.kubernetes_sd_configs, [{ role: 'pod', namespaces: { names: ['db'] } }]);
    const keeps = job.relabel_configs.filter((r) => r.action === 'keep');
    assert.deepEqual(
      keeps.map((r) => [r.source_labels, r.regex]),
      [
        // The member selector's labels as synthesized (keys sorted), named as Prometheus's discovery names them
        // (`.` and `/` become `_`).
        [
          [
            '__meta_kubernetes_pod_label_app_kubernetes_io_component',
            '__meta_kubernetes_pod_labelpresent_app_kubernetes_io_component',
          ],
          '(member);true',
        ],
        [
          [
            '__meta_kubernetes_pod_label_app_kubernetes_io_instance',
            '__meta_kubernetes_pod_labelpresent_app_kubernetes_io_instance',
          ],
          '(main);true',
        ],
        [
          [
            '__meta_kubernetes_pod_label_app_kubernetes_io_name',
            '__meta_kubernetes_pod_labelpresent_app_kubernetes_io_name',
          ],
          '(etcd);true',
        ],
        [['__meta_kubernetes_pod_container_port_name'], 'metrics'],
      ],
    );
    assert.deepEqual(relabel(job, 'job'), { target_label: 'job', replacement: 'db/main-members' });
    assert.deepEqual(relabel(job, 'pod')?.source_labels, ['__meta_kubernetes_pod_name']);
    assert.deepEqual(relabel(job, 'namespace')?.source_labels, ['__meta_kubernetes_namespace']);
    assert.equal(relabel(job, 'service'), undefined);
  });

  it("GIVEN the operator's ServiceMonitor THEN one endpointslice-role job keeps the metrics Service's port, honors the controller's labels and names the job after the Service", () => {
    const [job] = monitorScrapeConfigs(serviceMonitor);
    assert.ok(job);
    assert.equal(job.job_name, 'serviceMonitor/etcd-gitops-system/etcd-gitops-controller/0');
    assert.equal(job.honor_labels, true);
    assert.equal(job.scrape_interval, '30s');
    assert.deepEqual(job.kubernetes_sd_configs, [
      { role: 'endpointslice', namespaces: { names: ['etcd-gitops-system'] } },
    ]);
    assert.ok(
      job.relabel_configs.some(
        (r) =>
          r.action === 'keep' &&
          JSON.stringify(r.source_labels) === '["__meta_kubernetes_endpointslice_port_name"]' &&
          r.regex === 'metrics',
      ),
    );
    assert.deepEqual(relabel(job, 'job')?.source_labels, ['__meta_kubernetes_service_name']);
    assert.deepEqual(relabel(job, 'service')?.source_labels, ['__meta_kubernetes_service_name']);
  });

  it('GIVEN both monitors and a rule file THEN prometheus.yml has both jobs, the rule file and the evaluation interval', () => {
    const config = prometheusConfig({
      monitors: [podMonitor, serviceMonitor],
      ruleFiles: ['/etc/prometheus/rules-db-main-alerts.yaml'],
      evaluationInterval: '5s',
    });
    assert.deepEqual(config.global, { scrape_interval: '5s', evaluation_interval: '5s' });
    assert.deepEqual(config.rule_files, ['/etc/prometheus/rules-db-main-alerts.yaml']);
    assert.deepEqual(
      (config.scrape_configs as { job_name: string }[]).map((job) => job.job_name),
      ['podMonitor/db/main-members/0', 'serviceMonitor/etcd-gitops-system/etcd-gitops-controller/0'],
    );
  });

  it('fails on a monitor field it does not translate, naming the monitor and the field, never scraping differently', () => {
    const withTls = {
      ...podMonitor,
      spec: { ...podMonitor.spec, podMetricsEndpoints: [{ port: 'metrics', scheme: 'https' }] },
    } as unknown as MonitorObject;
    assert.throws(
      () => monitorScrapeConfigs(withTls),
      /PodMonitor db\/main-members endpoint 0: scheme not translated/,
    );
    const withExpressions = {
      ...serviceMonitor,
      spec: { ...serviceMonitor.spec, selector: { matchExpressions: [] } },
    } as unknown as MonitorObject;
    assert.throws(
      () => monitorScrapeConfigs(withExpressions),
      /ServiceMonitor etcd-gitops-system\/etcd-gitops-controller spec.selector: matchExpressions not translated/,
    );
  });
});
