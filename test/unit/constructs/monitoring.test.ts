// Metrics exposure and the Prometheus Operator objects: the members' metrics port, who may scrape it, the
// monitors and the alert rules.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { App, Chart } from 'cdk8s';
import { longestCronGapSeconds } from '../../../constructs/conventions/cron.js';
import { EtcdCluster, type EtcdClusterProps, EtcdOperator } from '../../../constructs/index.js';
import {
  CLUSTER_ALERT_PENDING_FOR,
  OPERATOR_ALERT_PENDING_FOR,
} from '../../../constructs/monitoring/alerts.js';
import { clusterChart, type Manifest, only, synth } from './helpers.js';

function cluster(props: Partial<EtcdClusterProps> = {}) {
  const chart = clusterChart('db');
  const construct = new EtcdCluster(chart, 'main', { version: '3.6.16', ...props });
  return { chart, construct };
}

const metricsRule = (objects: Manifest[]) =>
  only(objects, 'NetworkPolicy', 'main').spec.ingress.find((rule: Manifest) => rule.ports[0].port === 2381);

describe('member metrics', () => {
  it('GIVEN a cluster THEN the peer Service publishes the metrics port and the NetworkPolicy keeps it closed', () => {
    const { chart } = cluster();
    const objects = synth(chart);
    const peer = only(objects, 'Service', 'main-peer');
    assert.deepEqual(
      peer.spec.ports.find((port: Manifest) => port.name === 'metrics'),
      { name: 'metrics', port: 2381, targetPort: 2381, protocol: 'TCP' },
    );
    assert.equal(metricsRule(objects), undefined);
  });

  it('GIVEN metricsFrom and allowMetricsFrom THEN only those reach port 2381', () => {
    const { chart, construct } = cluster({
      metricsFrom: [{ namespaceSelector: { 'kubernetes.io/metadata.name': 'monitoring' } }],
    });
    construct.allowMetricsFrom({ podSelector: { app: 'vmagent' } });
    const rule = metricsRule(synth(chart));
    assert.deepEqual(rule.from, [
      {
        namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } },
        podSelector: {},
      },
      { podSelector: { matchLabels: { app: 'vmagent' } } },
    ]);
  });
});

describe('Prometheus Operator objects', () => {
  it('GIVEN addPodMonitor THEN a PodMonitor scrapes the members metrics port in their namespace, with the given labels', () => {
    const { chart, construct } = cluster();
    construct.addPodMonitor({ labels: { release: 'kube-prometheus-stack' }, interval: '15s' });
    const monitor = only(synth(chart), 'PodMonitor', 'main-members');
    assert.equal(monitor.apiVersion, 'monitoring.coreos.com/v1');
    assert.equal(monitor.metadata.namespace, 'db');
    assert.equal(monitor.metadata.labels.release, 'kube-prometheus-stack');
    assert.deepEqual(monitor.spec, {
      selector: {
        matchLabels: {
          'app.kubernetes.io/name': 'etcd',
          'app.kubernetes.io/instance': 'main',
          'app.kubernetes.io/component': 'member',
        },
      },
      namespaceSelector: { matchNames: ['db'] },
      podMetricsEndpoints: [{ port: 'metrics', path: '/metrics', interval: '15s' }],
    });
  });

  it('GIVEN addPrometheusRule and two backup schedules, one suspended THEN the alerts name the cluster, one backup alert allows twice its longest gap and the drill alert reads the controller gauge', () => {
    const { chart, construct } = cluster();
    construct.addPrometheusRule();
    const backup = { bucket: 'etcd-backups', credentialsSecretName: 's3' };
    construct.addBackupSchedule({ schedule: '0 */6 * * *', ...backup });
    construct.addBackupSchedule({ name: 'old', schedule: '@daily', suspend: true, ...backup });
    const rule = only(synth(chart), 'PrometheusRule', 'main-alerts');
    const [group] = rule.spec.groups;
    assert.equal(group.name, 'etcd-db-main');
    assert.deepEqual(
      group.rules.map((r: Manifest) => r.alert),
      [
        'EtcdNoLeader',
        'EtcdMembersDown',
        'EtcdQuorumAtRisk',
        'EtcdQuorumLost',
        'EtcdDatabaseNearQuota',
        'EtcdRollingUpdateStuck',
        'EtcdNoSpace',
        'EtcdBackupTooOld',
        'EtcdBackupDrillFailed',
      ],
    );
    const [backupAlert, drillAlert] = group.rules.slice(-2);
    assert.equal(
      drillAlert.expr,
      'max by (namespace, cluster, schedule) (etcd_gitops_backup_drill_failed{namespace="db",cluster="main"}) == 1',
    );
    assert.equal(drillAlert.for, '1m');
    assert.equal(
      backupAlert.expr,
      'time() - (max by (namespace, cronjob) (kube_cronjob_status_last_successful_time{namespace="db",cronjob="main-backup"}) or max by (namespace, cronjob) (kube_cronjob_created{namespace="db",cronjob="main-backup"})) > 43200',
    );
    assert.match(backupAlert.annotations.description, /for more than 12h/);
    assert.match(group.rules[0].expr, /etcd_server_has_leader\{namespace="db",pod=~"main-\[0-9\]\+"\}/);
    assert.ok(group.rules.every((r: Manifest) => ['warning', 'critical'].includes(r.labels.severity)));
  });

  it('GIVEN an operator THEN its ServiceMonitor keeps the per-cluster labels and its rule watches reconcile errors and the lease', () => {
    const app = new App();
    const operator = new EtcdOperator(new Chart(app, 'ops'), 'operator');
    operator.addServiceMonitor({ labels: { release: 'prom' } });
    operator.addPrometheusRule();
    const objects = synth(app.charts[0] as Chart);
    const monitor = only(objects, 'ServiceMonitor', 'etcd-gitops-controller');
    assert.equal(monitor.metadata.namespace, 'etcd-gitops-system');
    assert.deepEqual(monitor.spec.endpoints, [
      { port: 'metrics', path: '/metrics', interval: '30s', honorLabels: true },
    ]);
    const service = objects.find((o) => o.kind === 'Service' && o.spec.ports[0].name === 'metrics');
    for (const [key, value] of Object.entries(monitor.spec.selector.matchLabels)) {
      assert.equal(
        service?.metadata.labels[key],
        value,
        `the ServiceMonitor selects the metrics Service by ${key}`,
      );
    }
    const alerts = only(objects, 'PrometheusRule', 'etcd-gitops-controller-alerts').spec.groups[0].rules;
    assert.deepEqual(
      alerts.map((r: Manifest) => r.alert),
      ['EtcdGitopsReconcileErrors', 'EtcdGitopsNoActiveController'],
    );
  });

  it('GIVEN addPrometheusRule with `for` THEN the named alerts wait that long, their descriptions say so, and the others keep their defaults', () => {
    const { chart, construct } = cluster();
    construct.addPrometheusRule({ for: { EtcdMembersDown: '20s', EtcdNoLeader: '0s' } });
    const rules = only(synth(chart), 'PrometheusRule', 'main-alerts').spec.groups[0].rules as Manifest[];
    const byName = Object.fromEntries(rules.map((r) => [r.alert, r]));
    assert.equal(byName.EtcdMembersDown.for, '20s');
    assert.match(byName.EtcdMembersDown.annotations.description, /for 20s;/);
    assert.equal(byName.EtcdNoLeader.for, '0s');
    assert.equal(byName.EtcdQuorumAtRisk.for, CLUSTER_ALERT_PENDING_FOR.EtcdQuorumAtRisk);
    assert.match(byName.EtcdQuorumAtRisk.annotations.description, /for 5m:/);
    const app = new App();
    const operator = new EtcdOperator(new Chart(app, 'ops'), 'operator');
    operator.addPrometheusRule({ for: { EtcdGitopsNoActiveController: '1m' } });
    const alerts = only(synth(app.charts[0] as Chart), 'PrometheusRule', 'etcd-gitops-controller-alerts').spec
      .groups[0].rules as Manifest[];
    assert.deepEqual(
      alerts.map((r) => [r.alert, r.for]),
      [
        ['EtcdGitopsReconcileErrors', OPERATOR_ALERT_PENDING_FOR.EtcdGitopsReconcileErrors],
        ['EtcdGitopsNoActiveController', '1m'],
      ],
    );
  });

  it('fails when `for` names an alert the rule does not have or a value that is not a Prometheus duration, naming the field, the value and what is allowed', () => {
    assert.throws(
      () => cluster().construct.addPrometheusRule({ for: { EtcdMemberDown: '1m' } }),
      /EtcdCluster 'main': addPrometheusRule\(\): 'for.EtcdMemberDown' names no alert of this rule; its alerts are EtcdNoLeader, EtcdMembersDown, /,
    );
    assert.throws(
      () => cluster().construct.addPrometheusRule({ for: { EtcdMembersDown: '5 minutes' } }),
      /'for.EtcdMembersDown' must be a Prometheus duration such as 0s, 30s, 5m or 1h, got '5 minutes'/,
    );
    const operator = new EtcdOperator(new Chart(new App(), 'ops'), 'operator');
    assert.throws(
      () => operator.addPrometheusRule({ for: { EtcdMembersDown: '1m' } }),
      /EtcdOperator: addPrometheusRule\(\): 'for.EtcdMembersDown' names no alert of this rule; its alerts are EtcdGitopsReconcileErrors, EtcdGitopsNoActiveController/,
    );
  });

  it('fails when the cluster namespace is unknown or the interval is not a Prometheus duration, naming the method or prop', () => {
    const app = new App();
    const unnamespaced = new EtcdCluster(new Chart(app, 'x'), 'main', {
      version: '3.6.16',
      operatorNamespace: 'ops',
    });
    assert.throws(
      () => unnamespaced.addPodMonitor(),
      /EtcdCluster 'main': addPodMonitor\(\) needs the cluster's namespace/,
    );
    assert.throws(
      () => cluster().construct.addPodMonitor({ interval: 'often' }),
      /'interval' must be a Prometheus duration .* got 'often'/,
    );
  });
});

describe('longestCronGapSeconds', () => {
  const table: [string, number][] = [
    ['0 */6 * * *', 6 * 3600],
    ['@daily', 86_400],
    ['30 3 * * 0', 7 * 86_400],
    ['0 9-17 * * 1-5', 64 * 3600],
    ['*/15 * * * *', 900],
    ['0 0 1 * *', 31 * 86_400],
    ['0 0 1,15 * 1', 7 * 86_400],
    ['* * * * *', 60],
    ['0,30 0 * * *', 23.5 * 3600],
    ['59 23 * * *', 86_400],
    ['5 4 * * 7', 7 * 86_400],
    // Day 31 comes in 7 months a year: 31 August to 31 October is the longest stretch.
    ['0 0 31 * *', 61 * 86_400],
    // 29 February 2028 is after the two years from 2025: it never runs, so the whole window is the gap.
    ['0 0 29 2 *', 2 * 366 * 86_400],
    ['@yearly', 365 * 86_400],
  ];
  for (const [schedule, seconds] of table) {
    it(`GIVEN '${schedule}' THEN the longest gap is ${seconds} s`, () =>
      assert.equal(longestCronGapSeconds(schedule), seconds));
  }
});

describe('Prometheus Operator objects under Argo CD', () => {
  it("GIVEN the cluster's and the operator's monitoring objects THEN each is in its owner's sync wave and skips the dry run while the Prometheus Operator's CRDs are missing", () => {
    const app = new App();
    const operator = new EtcdOperator(new Chart(app, 'ops'), 'operator');
    operator.addServiceMonitor();
    operator.addPrometheusRule();
    const db = new Chart(app, 'db', { namespace: 'db' });
    const etcd = new EtcdCluster(db, 'main', { version: '3.6.16' });
    etcd.addPodMonitor();
    etcd.addPrometheusRule();
    const objects = app.charts.flatMap((chart) => chart.toJson() as Manifest[]);
    const annotationsOf = (kind: string, name: string) => only(objects, kind, name).metadata.annotations;
    const skip = 'SkipDryRunOnMissingResource=true';
    for (const [kind, name] of [
      ['ServiceMonitor', 'etcd-gitops-controller'],
      ['PrometheusRule', 'etcd-gitops-controller-alerts'],
    ]) {
      assert.deepEqual(annotationsOf(kind as string, name as string), {
        'argocd.argoproj.io/sync-wave': '-1',
        'argocd.argoproj.io/sync-options': skip,
      });
    }
    for (const [kind, name] of [
      ['PodMonitor', 'main-members'],
      ['PrometheusRule', 'main-alerts'],
    ]) {
      assert.deepEqual(annotationsOf(kind as string, name as string), {
        'argocd.argoproj.io/sync-wave': '0',
        'argocd.argoproj.io/sync-options': skip,
      });
    }
  });
});
