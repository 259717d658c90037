// The alerts users expect of an etcd cluster and of the operator, as Prometheus rules. The controller's metrics
// (etcd_gitops_*) carry `namespace` and `cluster` labels of their own (the ServiceMonitor keeps them with
// honorLabels); etcd's own metrics carry the `namespace` and `pod` labels a PodMonitor scrape adds.
import type { AlertRule, RuleGroup } from './prometheus-operator.js';

export interface ClusterAlertTarget {
  readonly cluster: string;
  readonly namespace: string;
  /** Backup CronJobs and the longest gap between their runs, in seconds. */
  readonly backups: readonly { readonly cronJob: string; readonly longestGapSeconds: number }[];
  /** How long each alert's condition must hold before it fires, the defaults below merged with the user's. */
  readonly pendingFor: ClusterAlertPendingFor;
}

/** Share of the quota at which `EtcdDatabaseNearQuota` fires. */
export const NEAR_QUOTA_RATIO = 0.8;

/** Minutes a rolling change may take before `EtcdRollingUpdateStuck` fires. */
export const ROLLING_STUCK_MINUTES = 30;

/** Each cluster alert's default `for:`, the time its condition must hold before it fires. */
export const CLUSTER_ALERT_PENDING_FOR = {
  EtcdNoLeader: '1m',
  EtcdMembersDown: '5m',
  EtcdQuorumAtRisk: '5m',
  EtcdQuorumLost: '1m',
  EtcdDatabaseNearQuota: '10m',
  EtcdRollingUpdateStuck: `${ROLLING_STUCK_MINUTES}m`,
  EtcdNoSpace: '1m',
  EtcdBackupTooOld: '10m',
  EtcdBackupDrillFailed: '1m',
} as const satisfies Readonly<Record<string, string>>;
/** How long each cluster alert's condition must hold before it fires (Prometheus durations), per alert name. */
export type ClusterAlertPendingFor = { readonly [A in keyof typeof CLUSTER_ALERT_PENDING_FOR]: string };

/** Each operator alert's default `for:`. */
export const OPERATOR_ALERT_PENDING_FOR = {
  EtcdGitopsReconcileErrors: '15m',
  EtcdGitopsNoActiveController: '5m',
} as const satisfies Readonly<Record<string, string>>;
/** How long each operator alert's condition must hold before it fires (Prometheus durations), per alert name. */
export type OperatorAlertPendingFor = { readonly [A in keyof typeof OPERATOR_ALERT_PENDING_FOR]: string };

/** A Prometheus duration for whole seconds, in the largest unit that divides them. */
export function promDuration(seconds: number): string {
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3_600],
    ['m', 60],
  ] as const) {
    if (seconds % size === 0) return `${seconds / size}${unit}`;
  }
  return `${seconds}s`;
}

export function clusterAlerts(target: ClusterAlertTarget): RuleGroup {
  const { cluster, namespace, pendingFor: f } = target;
  const ours = `namespace="${namespace}",cluster="${cluster}"`;
  const members = `namespace="${namespace}",pod=~"${cluster}-[0-9]+"`;
  const where = `etcd cluster ${namespace}/${cluster}`;
  const rules: AlertRule[] = [
    {
      alert: 'EtcdNoLeader',
      expr: `max by (namespace, pod) (etcd_server_has_leader{${members}}) == 0`,
      for: f.EtcdNoLeader,
      labels: { severity: 'critical' },
      annotations: {
        summary: `A member of ${where} has no leader.`,
        description: `{{ $labels.pod }} has seen no leader for ${f.EtcdNoLeader}: it serves no writes and no linearizable reads.`,
      },
    },
    {
      alert: 'EtcdMembersDown',
      expr: `etcd_gitops_members_ready{${ours}} < etcd_gitops_members_desired{${ours}}`,
      for: f.EtcdMembersDown,
      labels: { severity: 'warning' },
      annotations: {
        summary: `Members of ${where} are not ready.`,
        description: `{{ $value }} members are ready, fewer than spec.size, for ${f.EtcdMembersDown}; see the EtcdCluster's Degraded condition and Events.`,
      },
    },
    {
      alert: 'EtcdQuorumAtRisk',
      // The ready count on the left: it is the alert's $value.
      expr: `etcd_gitops_members_ready{${ours}} <= floor(etcd_gitops_members_desired{${ours}} / 2) + 1 and etcd_gitops_members_desired{${ours}} > 1 and etcd_gitops_quorum_lost{${ours}} == 0`,
      for: f.EtcdQuorumAtRisk,
      labels: { severity: 'critical' },
      annotations: {
        summary: `${where} loses quorum at the next member failure.`,
        description: `Only a bare majority ({{ $value }}) of the members is ready for ${f.EtcdQuorumAtRisk}: one more failure stops all writes.`,
      },
    },
    {
      alert: 'EtcdQuorumLost',
      expr: `etcd_gitops_quorum_lost{${ours}} == 1`,
      for: f.EtcdQuorumLost,
      labels: { severity: 'critical' },
      annotations: {
        summary: `${where} has lost quorum.`,
        description:
          'Fewer than a majority of the voting members are healthy: the cluster accepts no writes.',
      },
    },
    {
      alert: 'EtcdDatabaseNearQuota',
      expr: `etcd_mvcc_db_total_size_in_bytes{${members}} / etcd_server_quota_backend_bytes{${members}} > ${NEAR_QUOTA_RATIO}`,
      for: f.EtcdDatabaseNearQuota,
      labels: { severity: 'warning' },
      annotations: {
        summary: `A member database of ${where} is near its quota.`,
        description: `{{ $labels.pod }} uses {{ $value | humanizePercentage }} of its backend quota: at 100% etcd raises NOSPACE and refuses writes. Defragment (the defrag CronJob), shorten spec.autoCompaction or raise spec.quotaBackendBytes.`,
      },
    },
    {
      alert: 'EtcdRollingUpdateStuck',
      // Below the ready count, not the desired one: a member that is down is no roll (EtcdMembersDown says so),
      // while a ready member still on the old spec, or a rolled one that never became ready, is.
      expr: `etcd_gitops_members_updated{${ours}} < etcd_gitops_members_ready{${ours}}`,
      for: f.EtcdRollingUpdateStuck,
      labels: { severity: 'warning' },
      annotations: {
        summary: `A rolling change of ${where} is not finishing.`,
        description: `Only {{ $value }} members run the current spec after ${f.EtcdRollingUpdateStuck}: see the EtcdCluster's Progressing and Degraded conditions (RollingUpdateFailed names the member and why) and Events.`,
      },
    },
    {
      alert: 'EtcdNoSpace',
      expr: `etcd_gitops_alarms{${ours},alarm="NOSPACE"} > 0`,
      for: f.EtcdNoSpace,
      labels: { severity: 'critical' },
      annotations: {
        summary: `${where} refuses writes: NOSPACE.`,
        description:
          'The backend reached its quota. Compaction plus the defrag CronJob disarm the alarm; or raise spec.quotaBackendBytes.',
      },
    },
    ...target.backups.map(
      (backup): AlertRule => ({
        alert: 'EtcdBackupTooOld',
        // The last success, or, for a schedule that never succeeded, its creation: kube-state-metrics has no
        // success series until the first success, and an alert on it alone would never fire for a schedule that
        // always fails.
        expr: `time() - (max by (namespace, cronjob) (kube_cronjob_status_last_successful_time{${cronJobSelector(namespace, backup.cronJob)}}) or max by (namespace, cronjob) (kube_cronjob_created{${cronJobSelector(namespace, backup.cronJob)}})) > ${2 * backup.longestGapSeconds}`,
        for: f.EtcdBackupTooOld,
        labels: { severity: 'warning', cronjob: backup.cronJob },
        annotations: {
          summary: `The last backup of ${where} by ${backup.cronJob} is older than twice its schedule.`,
          description: `No Job of CronJob ${backup.cronJob} succeeded for more than ${promDuration(2 * backup.longestGapSeconds)}, or none ever did in that long since it was created (needs kube-state-metrics); see its failed Jobs' logs.`,
        },
      }),
    ),
    ...(target.backups.length > 0
      ? [
          {
            alert: 'EtcdBackupDrillFailed',
            // The controller's gauge (docs/design/restore-drill.md): a schedule with no drill has no series.
            expr: `max by (namespace, cluster, schedule) (etcd_gitops_backup_drill_failed{${ours}}) == 1`,
            for: f.EtcdBackupDrillFailed,
            labels: { severity: 'critical' },
            annotations: {
              summary: `The newest backup of ${where} did not restore in its drill.`,
              description:
                "The newest restore drill of backup schedule {{ $labels.schedule }} failed: that backup is not shown to restore. See the EtcdCluster's status.backups[].lastDrill, its DrillFailed Event and the drill Job's logs.",
            },
          } satisfies AlertRule,
        ]
      : []),
  ];
  return { name: `etcd-${namespace}-${cluster}`, rules };
}

/** The series selector of one CronJob in kube-state-metrics. */
function cronJobSelector(namespace: string, cronJob: string): string {
  return `namespace="${namespace}",cronjob="${cronJob}"`;
}

export function operatorAlerts(namespace: string, f: OperatorAlertPendingFor): RuleGroup {
  return {
    name: `etcd-gitops-controller-${namespace}`,
    rules: [
      {
        alert: 'EtcdGitopsReconcileErrors',
        expr: `sum by (namespace, controller) (rate(etcd_gitops_reconcile_errors_total{namespace="${namespace}"}[10m])) > 0`,
        for: f.EtcdGitopsReconcileErrors,
        labels: { severity: 'warning' },
        annotations: {
          summary: 'The etcd-gitops controller keeps failing to reconcile.',
          description: `Reconcile passes of {{ $labels.controller }} have ended in errors for ${f.EtcdGitopsReconcileErrors}; see the controller logs.`,
        },
      },
      {
        alert: 'EtcdGitopsNoActiveController',
        // absent(): no replica scraped at all (none running, or none reachable) is no controller either.
        expr: `max by (namespace) (etcd_gitops_leader{namespace="${namespace}"}) == 0 or absent(etcd_gitops_leader{namespace="${namespace}"})`,
        for: f.EtcdGitopsNoActiveController,
        labels: { severity: 'critical' },
        annotations: {
          summary: 'No etcd-gitops controller holds the leader lease.',
          description: `No replica in {{ $labels.namespace }} has held the lease, or none was scraped, for ${f.EtcdGitopsNoActiveController}: no membership change, restore or status update happens.`,
        },
      },
    ],
  };
}
