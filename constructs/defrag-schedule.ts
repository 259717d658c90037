// A defrag CronJob for one etcd cluster: members defragmented one at a time, followers first, the leader last; a
// NOSPACE alarm disarmed once every member is below the quota (docs/design/compaction-quota-defrag.md).
import type { k8s } from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import {
  type CronScheduleOptions,
  clusterConnectionArgs,
  NAMESPACE_ENV,
  namespaceEnv,
  type OperatorJobTarget,
  operatorCronJob,
} from './cluster/operator-cronjob.js';
import { defrag } from './conventions/cli/defrag.js';
import { DEFAULT_DEFRAG_RESOURCES } from './conventions/limits.js';
import { defragCronJobName } from './conventions/names.js';
import { validateCron } from './validate/cron.js';
import { validateInteger } from './validate/names.js';

/** Sunday 03:30: defragmentation pauses each member for seconds per GiB, so it runs when traffic is lowest. */
export const DEFAULT_DEFRAG_SCHEDULE = '30 3 * * 0';

/** A defragmentation schedule (`EtcdCluster.addDefragSchedule`). */
export interface EtcdDefragScheduleOptions extends Omit<CronScheduleOptions, 'schedule'> {
  /**
   * Cron schedule (5 fields or a macro such as `@weekly`).
   * @default '30 3 * * 0' (Sundays 03:30)
   */
  readonly schedule?: string;
  /**
   * Seconds a defrag Job may run before it is stopped.
   * @default 1800
   */
  readonly activeDeadlineSeconds?: number;
}

/** What a defrag schedule needs to know about its cluster. */
export interface EtcdDefragTarget extends OperatorJobTarget {
  /** The defrag Jobs' ServiceAccount (`<cluster>-defrag`, no API rights). */
  readonly serviceAccountName: string;
  /** The cluster's effective backend quota: a NOSPACE alarm is disarmed only below it. */
  readonly quotaBackendBytes: number;
}

/** The `defrag` arguments of a schedule (the flag table: conventions/cli/defrag.ts). */
export function defragArgs(target: EtcdDefragTarget): string[] {
  const namespace = target.namespace ?? `$(${NAMESPACE_ENV})`;
  return defrag.args({
    ...clusterConnectionArgs(target),
    namespace,
    cluster: target.clusterName,
    quotaBackendBytes: target.quotaBackendBytes,
  });
}

/** A CronJob `<cluster>-defrag`; made by `EtcdCluster.addDefragSchedule()`. */
export class EtcdDefragSchedule extends Construct {
  /** Name of the CronJob; `kubectl create job --from=cronjob/<name> <job>` defragments now. */
  public readonly cronJobName: string;
  /** The CronJob. */
  public readonly cronJob: k8s.KubeCronJob;

  public constructor(
    scope: Construct,
    id: string,
    target: EtcdDefragTarget,
    options: EtcdDefragScheduleOptions,
  ) {
    super(scope, id);
    const schedule = options.schedule ?? DEFAULT_DEFRAG_SCHEDULE;
    validateCron(schedule);
    validateInteger('activeDeadlineSeconds', options.activeDeadlineSeconds ?? 1800, 60, 86_400);
    this.cronJobName = defragCronJobName(target.clusterName);
    this.cronJob = operatorCronJob(this, 'Resource', {
      ...options,
      schedule,
      name: this.cronJobName,
      namespace: target.namespace,
      clusterName: target.clusterName,
      component: 'defrag',
      serviceAccountName: target.serviceAccountName,
      defaultImage: target.image,
      clientCertificateSecretName: target.clientCertificateSecretName,
      startingDeadlineSeconds: 600,
      activeDeadlineSeconds: options.activeDeadlineSeconds ?? 1800,
      // A run that found too little to free would find the same again: no retries, the next schedule tries.
      backoffLimit: 0,
      historyLimit: { successful: 1, failed: 3 },
      defaultResources: DEFAULT_DEFRAG_RESOURCES,
      container: { name: 'defrag', args: defragArgs(target), env: namespaceEnv(target) },
    });
  }
}
