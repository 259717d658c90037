import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defrag } from '../../../constructs/conventions/index.js';
import { EtcdCluster, type EtcdClusterProps } from '../../../constructs/index.js';
import { clusterChart, only, synth } from './helpers.js';

function withDefrag(props: Partial<EtcdClusterProps> = {}, options = {}) {
  const chart = clusterChart('db');
  const cluster = new EtcdCluster(chart, 'main', { version: '3.6.16', ...props });
  const schedule = cluster.addDefragSchedule(options);
  return { cluster, schedule, objects: synth(chart) };
}

describe('EtcdCluster.addDefragSchedule', () => {
  it('GIVEN defaults THEN a weekly CronJob runs our defrag command with the cluster quota, one try, restricted, without a token, its memory bounded and V8 sized to it', () => {
    const { schedule, objects } = withDefrag();
    assert.equal(schedule.cronJobName, 'main-defrag');
    const cronJob = only(objects, 'CronJob', 'main-defrag');
    assert.equal(cronJob.spec.schedule, '30 3 * * 0');
    assert.equal(cronJob.spec.concurrencyPolicy, 'Forbid');
    const job = cronJob.spec.jobTemplate.spec;
    assert.equal(job.backoffLimit, 0);
    const pod = job.template.spec;
    assert.equal(pod.serviceAccountName, 'main-defrag');
    assert.equal(pod.automountServiceAccountToken, false);
    assert.equal(pod.securityContext.runAsNonRoot, true);
    assert.equal(job.template.metadata.labels['app.kubernetes.io/component'], 'defrag');
    const [container] = pod.containers;
    assert.deepEqual(container.command, ['/app/bin/etcd-gitops']);
    assert.equal(container.args[0], 'defrag');
    // The emitted flags parse back, with the default 1Gi volume's quota.
    assert.deepEqual(defrag.decode(container.args.slice(1)), {
      endpoints: ['http://main-client.db.svc:2379'],
      namespace: 'db',
      cluster: 'main',
      quotaBackendBytes: 384 * 2 ** 20,
    });
    assert.deepEqual(container.resources, {
      requests: { cpu: '50m', memory: '96Mi' },
      limits: { memory: '256Mi' },
    });
    assert.deepEqual(container.env, [
      { name: 'NODE_OPTIONS', value: '--max-old-space-size=128 --max-semi-space-size=1' },
    ]);
    assert.equal(only(objects, 'ServiceAccount', 'main-defrag').automountServiceAccountToken, false);
  });

  it('GIVEN a quota in the props and a schedule THEN the job disarms below that quota, on that schedule', () => {
    const { objects } = withDefrag(
      { storage: { size: '10Gi' }, quotaBackendBytes: '2Gi' },
      { schedule: '0 4 * * *', timeZone: 'Europe/Berlin' },
    );
    const cronJob = only(objects, 'CronJob', 'main-defrag');
    assert.equal(cronJob.spec.schedule, '0 4 * * *');
    assert.equal(cronJob.spec.timeZone, 'Europe/Berlin');
    const args = cronJob.spec.jobTemplate.spec.template.spec.containers[0].args as string[];
    assert.equal(defrag.decode(args.slice(1)).quotaBackendBytes, 2 * 2 ** 30);
  });

  it('GIVEN a second defrag schedule on one cluster THEN construction fails naming the cluster', () => {
    const chart = clusterChart('db');
    const cluster = new EtcdCluster(chart, 'main', { version: '3.6.16' });
    cluster.addDefragSchedule();
    assert.throws(() => cluster.addDefragSchedule(), /EtcdCluster 'main' already has a defrag schedule/);
  });

  it('GIVEN a schedule that is not cron THEN construction fails naming it', () => {
    assert.throws(() => withDefrag({}, { schedule: 'weekly' }), /'schedule'.*weekly/);
  });
});
