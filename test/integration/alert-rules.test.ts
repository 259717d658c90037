// The alert rules the constructs synthesize, checked by Prometheus's own promtool: every expression parses, and
// `promtool test rules` feeds each alert the series that must fire it (and the healthy ones that must not), at
// the times its `for` allows, with its exact labels and rendered annotations.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { App, Chart } from 'cdk8s';
import { EtcdCluster, EtcdOperator } from '../../constructs/index.js';
import type { AlertRule, RuleGroup } from '../../constructs/monitoring/prometheus-operator.js';
import { promtoolBinary } from '../env/binaries.js';

const temp = mkdtempSync(join(tmpdir(), 'egt-alerts-'));
after(() => rmSync(temp, { recursive: true, force: true }));

/** The rule groups of the PrometheusRules a user's app synthesizes: an operator and cluster db/main. */
function synthesizedGroups(): RuleGroup[] {
  const app = new App();
  const operator = new EtcdOperator(new Chart(app, 'ops'), 'operator');
  operator.addPrometheusRule();
  const cluster = new EtcdCluster(new Chart(app, 'db', { namespace: 'db' }), 'main', { version: '3.6.16' });
  cluster.addPrometheusRule();
  const backup = { bucket: 'etcd-backups', credentialsSecretName: 's3' };
  cluster.addBackupSchedule({ schedule: '0 */6 * * *', ...backup });
  cluster.addBackupSchedule({ name: 'hourly', schedule: '0 * * * *', ...backup });
  return app.charts
    .flatMap((chart) => chart.toJson())
    .filter((o) => o.kind === 'PrometheusRule')
    .flatMap((o) => o.spec.groups as RuleGroup[]);
}

function promtool(args: string[]) {
  return spawnSync(promtoolBinary(), args, { cwd: temp, encoding: 'utf8' });
}

const rules: AlertRule[] = [];

/** The rule named `alert` for these series (one backup alert per CronJob: the one of its `cronjob` label). */
function ruleFor(alert: string, labels: Record<string, string>): AlertRule {
  const rule = rules.find(
    (r) => r.alert === alert && (r.labels.cronjob === undefined || r.labels.cronjob === labels.cronjob),
  );
  assert.ok(rule, `no rule ${alert} for ${JSON.stringify(labels)}`);
  return rule;
}

/** The annotations Prometheus renders for `alert` from these labels and value (the templates our rules use). */
function annotations(alert: string, labels: Record<string, string>, value?: number) {
  const rule = ruleFor(alert, labels);
  const render = (text: string) =>
    text
      .replaceAll(/\{\{ \$labels\.([a-z_]+) \}\}/g, (_, name: string) => labels[name] ?? '')
      .replaceAll('{{ $value | humanizePercentage }}', `${Number(((value ?? 0) * 100).toPrecision(4))}%`)
      .replaceAll('{{ $value }}', String(value));
  return { summary: render(rule.annotations.summary), description: render(rule.annotations.description) };
}

/** One expected firing alert: the series' labels plus the rule's. */
function firing(alert: string, seriesLabels: Record<string, string>, value?: number) {
  const rule = ruleFor(alert, seriesLabels);
  return {
    exp_labels: { ...seriesLabels, ...rule.labels },
    exp_annotations: annotations(alert, seriesLabels, value),
  };
}

const db = { namespace: 'db', cluster: 'main' };
const ops = { namespace: 'etcd-gitops-system' };
const series = (name: string, labels: Record<string, string>, values: string) => ({
  series: `${name}{${Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .join(',')}}`,
  values,
});

describe('alert rules under promtool', () => {
  before(() => {
    const groups = synthesizedGroups();
    rules.push(...groups.flatMap((group) => group.rules));
    writeFileSync(join(temp, 'rules.yaml'), JSON.stringify({ groups }));
  });

  it('GIVEN the synthesized PrometheusRules WHEN promtool checks them THEN every rule parses', () => {
    const check = promtool(['check', 'rules', 'rules.yaml']);
    assert.equal(check.status, 0, `${check.stdout}${check.stderr}`);
    // Nine of the cluster (two backup alerts, one drill alert) plus two of the operator.
    assert.match(check.stdout, /SUCCESS: 12 rules found/);
  });

  it('GIVEN series of a failing member, a bare majority, a stuck roll, a member down without a roll, a full database, NOSPACE, lost quorum, a stale backup, a schedule that never succeeded, a failed restore drill, a failing controller and none scraped WHEN promtool evaluates the rules THEN exactly the expected alerts fire, each only after its for', () => {
    const main0 = { namespace: 'db', pod: 'main-0' };
    const main1 = { namespace: 'db', pod: 'main-1' };
    const tests = {
      rule_files: ['rules.yaml'],
      evaluation_interval: '1m',
      tests: [
        {
          interval: '1m',
          input_series: [
            series('etcd_server_has_leader', main0, '1 1 0+0x20'),
            series('etcd_server_has_leader', main1, '1+0x22'),
            series('etcd_gitops_members_desired', db, '3+0x40'),
            series('etcd_gitops_members_ready', db, '3 3 2+0x40'),
            series('etcd_gitops_quorum_lost', db, '0+0x22'),
            series('etcd_mvcc_db_total_size_in_bytes', main0, '90+0x22'),
            series('etcd_server_quota_backend_bytes', main0, '100+0x22'),
            series('etcd_mvcc_db_total_size_in_bytes', main1, '10+0x22'),
            series('etcd_server_quota_backend_bytes', main1, '100+0x22'),
            series('etcd_gitops_alarms', { ...db, alarm: 'NOSPACE' }, '0 0 1+0x20'),
            series('etcd_gitops_alarms', { ...db, alarm: 'CORRUPT' }, '0+0x22'),
            // A roll that stops at 1 of the 2 ready members updated.
            series('etcd_gitops_members_updated', db, '3 3 1+0x40'),
          ],
          alert_rule_test: [
            { eval_time: '1m', alertname: 'EtcdNoLeader', exp_alerts: [] },
            { eval_time: '4m', alertname: 'EtcdNoLeader', exp_alerts: [firing('EtcdNoLeader', main0)] },
            { eval_time: '6m', alertname: 'EtcdMembersDown', exp_alerts: [] },
            { eval_time: '8m', alertname: 'EtcdMembersDown', exp_alerts: [firing('EtcdMembersDown', db, 2)] },
            {
              eval_time: '8m',
              alertname: 'EtcdQuorumAtRisk',
              exp_alerts: [firing('EtcdQuorumAtRisk', db, 2)],
            },
            { eval_time: '8m', alertname: 'EtcdQuorumLost', exp_alerts: [] },
            { eval_time: '30m', alertname: 'EtcdRollingUpdateStuck', exp_alerts: [] },
            {
              eval_time: '33m',
              alertname: 'EtcdRollingUpdateStuck',
              exp_alerts: [firing('EtcdRollingUpdateStuck', db, 1)],
            },
            { eval_time: '9m', alertname: 'EtcdDatabaseNearQuota', exp_alerts: [] },
            {
              eval_time: '12m',
              alertname: 'EtcdDatabaseNearQuota',
              exp_alerts: [firing('EtcdDatabaseNearQuota', main0, 0.9)],
            },
            {
              eval_time: '4m',
              alertname: 'EtcdNoSpace',
              exp_alerts: [firing('EtcdNoSpace', { ...db, alarm: 'NOSPACE' })],
            },
          ],
        },
        {
          // Samples 5 minutes apart: Prometheus's lookback, so no evaluation between them sees a gap.
          interval: '5m',
          input_series: [
            // A healthy cluster of three that then loses quorum.
            series('etcd_gitops_members_desired', db, '3+0x200'),
            series('etcd_gitops_members_ready', db, '3 1+0x199'),
            series('etcd_gitops_quorum_lost', db, '0 1+0x199'),
            // The 6-hourly backup last succeeded at 0; the hourly one succeeds all along. Both were created at 0:
            // a success, when there is one, decides.
            series(
              'kube_cronjob_status_last_successful_time',
              { namespace: 'db', cronjob: 'main-backup' },
              '0+0x200',
            ),
            series(
              'kube_cronjob_status_last_successful_time',
              { namespace: 'db', cronjob: 'main-backup-hourly' },
              '0+300x200',
            ),
            series('kube_cronjob_created', { namespace: 'db', cronjob: 'main-backup' }, '0+0x200'),
            series('kube_cronjob_created', { namespace: 'db', cronjob: 'main-backup-hourly' }, '0+0x200'),
          ],
          alert_rule_test: [
            { eval_time: '30m', alertname: 'EtcdQuorumLost', exp_alerts: [firing('EtcdQuorumLost', db)] },
            // Lost quorum is not "at risk" any more.
            { eval_time: '30m', alertname: 'EtcdQuorumAtRisk', exp_alerts: [] },
            { eval_time: '11h', alertname: 'EtcdBackupTooOld', exp_alerts: [] },
            {
              eval_time: '13h',
              alertname: 'EtcdBackupTooOld',
              exp_alerts: [firing('EtcdBackupTooOld', { namespace: 'db', cronjob: 'main-backup' })],
            },
          ],
        },
        {
          // A member down and no roll: every member that runs is updated. Members are down; no roll is stuck.
          interval: '1m',
          input_series: [
            series('etcd_gitops_members_desired', db, '3+0x60'),
            series('etcd_gitops_members_ready', db, '3 2+0x59'),
            series('etcd_gitops_members_updated', db, '3 2+0x59'),
            series('etcd_gitops_quorum_lost', db, '0+0x60'),
          ],
          alert_rule_test: [
            { eval_time: '60m', alertname: 'EtcdRollingUpdateStuck', exp_alerts: [] },
            {
              eval_time: '60m',
              alertname: 'EtcdMembersDown',
              exp_alerts: [firing('EtcdMembersDown', db, 2)],
            },
          ],
        },
        {
          // The hourly schedule was created at 0 and never succeeded: kube-state-metrics has no success series for
          // it. Its creation counts: twice its schedule (2h) plus the rule's 10 minutes.
          interval: '5m',
          input_series: [
            series('kube_cronjob_created', { namespace: 'db', cronjob: 'main-backup-hourly' }, '0+0x60'),
          ],
          alert_rule_test: [
            { eval_time: '2h', alertname: 'EtcdBackupTooOld', exp_alerts: [] },
            { eval_time: '2h10m', alertname: 'EtcdBackupTooOld', exp_alerts: [] },
            {
              eval_time: '2h15m',
              alertname: 'EtcdBackupTooOld',
              exp_alerts: [firing('EtcdBackupTooOld', { namespace: 'db', cronjob: 'main-backup-hourly' })],
            },
          ],
        },
        {
          // The 6-hourly schedule's drill fails at minute 2 (the hourly one's keeps succeeding): the alert names that
          // schedule once its 1 minute has passed, and only that one.
          interval: '1m',
          input_series: [
            series('etcd_gitops_backup_drill_failed', { ...db, schedule: 'main-backup' }, '0 0 1+0x20'),
            series('etcd_gitops_backup_drill_failed', { ...db, schedule: 'main-backup-hourly' }, '0+0x22'),
          ],
          alert_rule_test: [
            { eval_time: '2m', alertname: 'EtcdBackupDrillFailed', exp_alerts: [] },
            {
              eval_time: '3m',
              alertname: 'EtcdBackupDrillFailed',
              exp_alerts: [firing('EtcdBackupDrillFailed', { ...db, schedule: 'main-backup' })],
            },
          ],
        },
        {
          // No controller scraped at all: no etcd_gitops_leader series.
          interval: '1m',
          input_series: [series('etcd_gitops_reconcile_errors_total', { ...ops, controller: 'x' }, '0+0x20')],
          alert_rule_test: [
            { eval_time: '4m', alertname: 'EtcdGitopsNoActiveController', exp_alerts: [] },
            {
              eval_time: '6m',
              alertname: 'EtcdGitopsNoActiveController',
              exp_alerts: [firing('EtcdGitopsNoActiveController', ops)],
            },
          ],
        },
        {
          // One replica leads, one stands by: no alert.
          interval: '1m',
          input_series: [
            series('etcd_gitops_leader', { ...ops, pod: 'c-0' }, '1+0x20'),
            series('etcd_gitops_leader', { ...ops, pod: 'c-1' }, '0+0x20'),
          ],
          alert_rule_test: [{ eval_time: '15m', alertname: 'EtcdGitopsNoActiveController', exp_alerts: [] }],
        },
        {
          interval: '1m',
          input_series: [
            series('etcd_gitops_reconcile_errors_total', { ...ops, controller: 'etcdcluster' }, '0+1x40'),
            series('etcd_gitops_reconcile_errors_total', { ...ops, controller: 'etcdrestore' }, '0+0x40'),
            series('etcd_gitops_leader', { ...ops, pod: 'c-0' }, '0+0x40'),
          ],
          alert_rule_test: [
            { eval_time: '10m', alertname: 'EtcdGitopsReconcileErrors', exp_alerts: [] },
            {
              eval_time: '30m',
              alertname: 'EtcdGitopsReconcileErrors',
              exp_alerts: [firing('EtcdGitopsReconcileErrors', { ...ops, controller: 'etcdcluster' })],
            },
            {
              eval_time: '10m',
              alertname: 'EtcdGitopsNoActiveController',
              exp_alerts: [firing('EtcdGitopsNoActiveController', ops)],
            },
          ],
        },
      ],
    };
    writeFileSync(join(temp, 'tests.yaml'), JSON.stringify(tests));
    const run = promtool(['test', 'rules', 'tests.yaml']);
    assert.equal(run.status, 0, `${run.stdout}${run.stderr}`);
    assert.match(run.stdout, /SUCCESS/);
  });

  it('GIVEN an alert expected that the series cannot fire WHEN promtool evaluates THEN it fails (the test can fail)', () => {
    const tests = {
      rule_files: ['rules.yaml'],
      evaluation_interval: '1m',
      tests: [
        {
          interval: '1m',
          input_series: [series('etcd_gitops_quorum_lost', db, '0+0x10')],
          alert_rule_test: [
            { eval_time: '5m', alertname: 'EtcdQuorumLost', exp_alerts: [firing('EtcdQuorumLost', db)] },
          ],
        },
      ],
    };
    writeFileSync(join(temp, 'negative.yaml'), JSON.stringify(tests));
    const run = promtool(['test', 'rules', 'negative.yaml']);
    assert.notEqual(run.status, 0, run.stdout);
    assert.match(`${run.stdout}${run.stderr}`, /EtcdQuorumLost/);
  });
});
