// EtcdBackupSchedule.addRestoreDrill (docs/design/restore-drill.md, "The drill Pod"): a CronJob whose Pod restores the
// schedule's newest backup into its own scratch volume and serves it with the cluster's etcd as a sidecar, with no
// way to the cluster.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Chart } from 'cdk8s';
import {
  EtcdBackupSchedule,
  type EtcdBackupScheduleOptions,
  EtcdCluster,
  type EtcdClusterProps,
  type EtcdRestoreDrillOptions,
} from '../../../constructs/index.js';
import { clusterChart, type Manifest, matchSnapshot, only, synth } from './helpers.js';

const backup: EtcdBackupScheduleOptions = {
  schedule: '0 * * * *',
  bucket: 'etcd-backups',
  credentialsSecretName: 'backup-s3',
  endpoint: 'http://minio.storage.svc:9000',
  forcePathStyle: true,
  prefix: 'prod/',
};

function withDrill(
  drill: Partial<EtcdRestoreDrillOptions> = {},
  cluster: Partial<EtcdClusterProps> = {},
  namespace: string | null = 'etcd-test',
): Manifest[] {
  const chart = clusterChart(namespace);
  const main = new EtcdCluster(chart, 'main', { version: '3.5.35', ...cluster });
  main.addBackupSchedule(backup).addRestoreDrill({ schedule: '30 4 * * *', ...drill });
  return synth(chart);
}

const podSpec = (cronJob: Manifest) => cronJob.spec.jobTemplate.spec.template.spec;

describe('EtcdBackupSchedule.addRestoreDrill', () => {
  it("GIVEN a schedule with a web identity THEN the drill's fetch reads the backup with the same identity: token projected, no Secret", () => {
    const chart = clusterChart('etcd-test');
    const main = new EtcdCluster(chart, 'main', { version: '3.5.35' });
    const webIdentity = { roleArn: 'arn:aws:iam::123456789012:role/etcd', audience: 'minio' };
    main
      .addBackupSchedule({ ...backup, credentialsSecretName: undefined, webIdentity })
      .addRestoreDrill({ schedule: '30 4 * * *' });
    const spec = podSpec(only(synth(chart), 'CronJob', 'main-backup-drill'));
    assert.equal(spec.serviceAccountName, 'main-backup');
    const token = spec.volumes.find((v: Manifest) => v.name === 's3-token');
    assert.equal(token.projected.sources[0].serviceAccountToken.audience, 'minio');
    const fetch = spec.initContainers.find((c: Manifest) => c.name === 'fetch');
    assert.equal(fetch.envFrom, undefined);
    assert.ok(fetch.volumeMounts.some((m: Manifest) => m.name === 's3-token'));
    assert.ok(fetch.env.some((e: Manifest) => e.name === 'AWS_ROLE_ARN' && e.value === webIdentity.roleArn));
  });

  it('GIVEN a drill of a MinIO schedule WHEN synthesized THEN it matches the snapshot: fetch, the etcd sidecar, check', () => {
    const objects = withDrill();
    const cronJob = only(objects, 'CronJob', 'main-backup-drill');
    matchSnapshot('constructs', 'restore-drill-minio', [cronJob]);
    const spec = podSpec(cronJob);
    assert.deepEqual(
      spec.initContainers.map((c: Manifest) => [c.name, c.restartPolicy]),
      [
        ['fetch', undefined],
        ['etcd', 'Always'],
      ],
    );
    assert.deepEqual(
      spec.containers.map((c: Manifest) => c.name),
      ['check'],
    );
    const [fetch, etcd] = spec.initContainers;
    assert.deepEqual(fetch.args, [
      'drill',
      'fetch',
      '--namespace=etcd-test',
      '--cluster=main',
      '--bucket=etcd-backups',
      '--key-template=prod/{namespace}/{cluster}/{timestamp}-rev{revision}.db',
      '--s3-endpoint=http://minio.storage.svc:9000',
      '--region=us-east-1',
      '--force-path-style',
      '--checksum-mode=when-required',
      '--etcd-version=3.5.35',
      '--termination-log=/dev/termination-log',
    ]);
    assert.deepEqual(fetch.envFrom, [{ secretRef: { name: 'backup-s3' } }]);
    assert.equal(etcd.image, 'gcr.io/etcd-development/etcd:v3.5.35');
    assert.ok(
      etcd.args.every((arg: string) => !arg.includes('://') || arg.includes('127.0.0.1')),
      `etcd listens on the loopback only: ${etcd.args}`,
    );
    assert.deepEqual(spec.containers[0].args, [
      'drill',
      'check',
      '--wait=2m',
      '--termination-log=/dev/termination-log',
    ]);
    assert.equal(cronJob.spec.jobTemplate.spec.backoffLimit, 0);
    assert.equal(
      cronJob.spec.jobTemplate.spec.template.metadata.labels['etcd.gitops.dev/backup-schedule'],
      'main-backup',
    );
    assert.equal(cronJob.metadata.labels['app.kubernetes.io/component'], 'restore-drill');
    assert.equal(spec.serviceAccountName, 'main-backup');
    assert.equal(spec.automountServiceAccountToken, false);
  });

  it('GIVEN a TLS cluster WHEN drilled THEN the drill Pod mounts no client certificate and names no cluster endpoint', () => {
    const objects = withDrill(
      {},
      { tls: { client: { secretName: 'main-server-tls', clientSecretName: 'main-client-tls' } } },
    );
    const cronJob = only(objects, 'CronJob', 'main-backup-drill');
    const spec = podSpec(cronJob);
    assert.deepEqual(
      spec.volumes.map((v: Manifest) => v.name),
      ['tmp', 'drill'],
    );
    const args = [...spec.initContainers, ...spec.containers].flatMap((c: Manifest) => c.args);
    assert.ok(
      args.every((arg: string) => !arg.includes('main-client') && !arg.startsWith('--endpoints')),
      `no cluster endpoint in ${args}`,
    );
    const backupCronJob = podSpec(only(objects, 'CronJob', 'main-backup'));
    assert.ok(
      backupCronJob.volumes.some((v: Manifest) => v.name === 'client-tls'),
      'the backup itself does mount one',
    );
  });

  it("GIVEN the cluster's NetworkPolicy WHEN a drill exists THEN no ingress rule admits drill Pods to the members", () => {
    const objects = withDrill();
    const policy = objects.find((o) => o.kind === 'NetworkPolicy');
    assert.ok(policy);
    const components = (policy.spec.ingress as Manifest[]).flatMap((rule) =>
      (rule.from ?? []).map(
        (peer: Manifest) => peer.podSelector?.matchLabels?.['app.kubernetes.io/component'],
      ),
    );
    assert.ok(components.includes('backup'), `backups are admitted: ${components}`);
    assert.ok(!components.includes('restore-drill'), `drills are not: ${components}`);
  });

  it('GIVEN the default scratch size THEN twice the backend quota the sidecar runs with; GIVEN one THEN it', () => {
    const spec = podSpec(only(withDrill({}, { storage: { size: '10Gi' } }), 'CronJob', 'main-backup-drill'));
    const drillVolume = (podSpec: Manifest) =>
      podSpec.volumes.find((v: Manifest) => v.name === 'drill').emptyDir.sizeLimit;
    const flag = (spec.initContainers[1].args as string[]).find((arg) =>
      arg.startsWith('--quota-backend-bytes='),
    );
    const quotaBytes = Number(flag?.split('=')[1]);
    assert.equal(quotaBytes, 4992 * 2 ** 20, "a 10Gi volume's quota");
    assert.equal(drillVolume(spec), '9984Mi');
    const given = podSpec(only(withDrill({ scratchSize: '3Gi' }), 'CronJob', 'main-backup-drill'));
    assert.equal(drillVolume(given), '3Gi');
  });

  it('GIVEN a namespace known only at run time THEN fetch reads it from the Pod', () => {
    const fetch = podSpec(only(withDrill({}, {}, null), 'CronJob', 'main-backup-drill')).initContainers[0];
    assert.ok(fetch.args.includes('--namespace=$(POD_NAMESPACE)'));
    assert.deepEqual(fetch.env[0], {
      name: 'POD_NAMESPACE',
      valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } },
    });
  });

  for (const [what, make, pattern] of [
    [
      'a second drill of one schedule',
      (chart: Chart) => {
        const schedule = new EtcdCluster(chart, 'main', { version: '3.5.35' }).addBackupSchedule(backup);
        schedule.addRestoreDrill({ schedule: '@daily' });
        schedule.addRestoreDrill({ schedule: '@weekly' });
      },
      /backup schedule 'main-backup' already has a restore drill/,
    ],
    [
      'a bad cron',
      (chart: Chart) =>
        new EtcdCluster(chart, 'main', { version: '3.5.35' })
          .addBackupSchedule(backup)
          .addRestoreDrill({ schedule: 'daily' }),
      /daily/,
    ],
    [
      'a drill name longer than a CronJob name may be',
      (chart: Chart) =>
        new EtcdCluster(chart, 'main', { version: '3.5.35' })
          .addBackupSchedule({ ...backup, name: 'x'.repeat(40) })
          .addRestoreDrill({ schedule: '@daily' }),
      /main-backup-x{40}-drill/,
    ],
    [
      'a schedule made without its cluster',
      (chart: Chart) =>
        new EtcdBackupSchedule(
          chart,
          'lone',
          { clusterName: 'main', serviceAccountName: 'main-backup' },
          backup,
        ).addRestoreDrill({
          schedule: '@daily',
        }),
      /addRestoreDrill\(\) needs the cluster's etcd/,
    ],
  ] as const) {
    it(`GIVEN ${what} WHEN synthesized THEN it is refused with a message naming it`, () => {
      const chart = clusterChart('etcd-test');
      assert.throws(() => make(chart), pattern);
    });
  }
});
