import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Size } from 'cdk8s';
import { type EtcdBackupScheduleOptions, EtcdCluster, type WebIdentity } from '../../../constructs/index.js';
import { clusterChart, type Manifest, matchSnapshot, only, synth } from './helpers.js';

const minimal: EtcdBackupScheduleOptions = {
  schedule: '0 */6 * * *',
  bucket: 'etcd-backups',
  credentialsSecretName: 'backup-s3',
};

function withBackups(
  namespace: string | null,
  ...schedules: Partial<EtcdBackupScheduleOptions>[]
): Manifest[] {
  const chart = clusterChart(namespace);
  const cluster = new EtcdCluster(chart, 'main', { version: '3.5.35' });
  for (const s of schedules) cluster.addBackupSchedule({ ...minimal, ...s });
  return synth(chart);
}

const podSpec = (cronJob: Manifest) => cronJob.spec.jobTemplate.spec.template.spec;

describe('EtcdCluster.addBackupSchedule', () => {
  it('GIVEN a MinIO schedule WHEN synthesized THEN it matches the snapshot and runs `backup save` with its flags', () => {
    const objects = withBackups('etcd-test', {
      endpoint: 'http://minio.storage.svc:9000',
      forcePathStyle: true,
      prefix: 'prod/',
      keepLast: 3,
      maxAge: '30d',
      compression: 'gzip',
    });
    matchSnapshot(
      'constructs',
      'backup-schedule-minio',
      objects.filter((o) => o.kind === 'CronJob' || o.metadata.name === 'main-backup'),
    );
    const container = podSpec(only(objects, 'CronJob', 'main-backup')).containers[0];
    assert.deepEqual(container.command, ['/app/bin/etcd-gitops']);
    assert.deepEqual(container.args, [
      'backup',
      'save',
      '--endpoints=http://main-client.etcd-test.svc:2379',
      '--namespace=etcd-test',
      '--cluster=main',
      '--bucket=etcd-backups',
      '--key-template=prod/{namespace}/{cluster}/{timestamp}-rev{revision}.db',
      '--s3-endpoint=http://minio.storage.svc:9000',
      '--region=us-east-1',
      '--force-path-style',
      '--checksum-mode=when-required',
      '--compression=gzip',
      '--keep-last=3',
      '--max-age=30d',
      '--termination-log=/dev/termination-log',
    ]);
    assert.deepEqual(container.envFrom, [{ secretRef: { name: 'backup-s3' } }]);
  });

  it('GIVEN a schedule THEN the CronJob forbids overlap, has deadlines and history limits, and never retries forever', () => {
    const cronJob = only(withBackups('etcd-test', {}), 'CronJob', 'main-backup');
    assert.equal(cronJob.spec.schedule, '0 */6 * * *');
    assert.equal(cronJob.spec.concurrencyPolicy, 'Forbid');
    assert.equal(cronJob.spec.startingDeadlineSeconds, 300);
    assert.equal(cronJob.spec.successfulJobsHistoryLimit, 3);
    assert.equal(cronJob.spec.failedJobsHistoryLimit, 3);
    assert.equal(cronJob.spec.jobTemplate.spec.activeDeadlineSeconds, 3600);
    assert.equal(cronJob.spec.jobTemplate.spec.backoffLimit, 2);
    assert.equal(podSpec(cronJob).restartPolicy, 'Never');
  });

  it('GIVEN a schedule THEN its ServiceAccount has no token and nothing binds it to any role', () => {
    const objects = withBackups('etcd-test', {});
    const account = only(objects, 'ServiceAccount', 'main-backup');
    assert.equal(account.automountServiceAccountToken, false);
    const spec = podSpec(only(objects, 'CronJob', 'main-backup'));
    assert.equal(spec.serviceAccountName, 'main-backup');
    assert.equal(spec.automountServiceAccountToken, false);
    const bindings = objects.filter((o) => o.kind === 'RoleBinding' || o.kind === 'ClusterRoleBinding');
    assert.ok(bindings.every((b) => b.subjects.every((s: Manifest) => s.name !== 'main-backup')));
  });

  it('GIVEN a schedule THEN the Pod is restricted: non-root, RuntimeDefault seccomp, no escalation, all capabilities dropped', () => {
    const spec = podSpec(only(withBackups('etcd-test', {}), 'CronJob', 'main-backup'));
    assert.equal(spec.securityContext.runAsNonRoot, true);
    assert.deepEqual(spec.securityContext.seccompProfile, { type: 'RuntimeDefault' });
    const security = spec.containers[0].securityContext;
    assert.equal(security.allowPrivilegeEscalation, false);
    assert.deepEqual(security.capabilities, { drop: ['ALL'] });
    assert.equal(security.readOnlyRootFilesystem, true);
  });

  it('GIVEN two schedules THEN the second is named after its name and both share one ServiceAccount', () => {
    const objects = withBackups('etcd-test', {}, { name: 'daily', schedule: '@daily', sse: 'AES256' });
    only(objects, 'CronJob', 'main-backup');
    const daily = only(objects, 'CronJob', 'main-backup-daily');
    assert.ok(podSpec(daily).containers[0].args.includes('--sse=AES256'));
    only(objects, 'ServiceAccount', 'main-backup');
  });

  it('GIVEN a chart without namespace THEN the endpoints use the Pod namespace from the downward API', () => {
    const container = podSpec(only(withBackups(null, {}), 'CronJob', 'main-backup')).containers[0];
    assert.ok(container.args.includes('--endpoints=http://main-client.$(POD_NAMESPACE).svc:2379'));
    assert.deepEqual(container.env[0], {
      name: 'POD_NAMESPACE',
      valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } },
    });
  });

  it('fails when the cron schedule is invalid', () => {
    assert.throws(
      () => withBackups('etcd-test', { schedule: '0 25 * * *' }),
      /^Error: 'schedule' must be a cron schedule .* got '0 25 \* \* \*': hour field '25'/,
    );
  });

  it('fails when retention keeps 0 backups', () => {
    assert.throws(
      () => withBackups('etcd-test', { keepLast: 0 }),
      /^Error: 'keepLast' must be an integer from 1 to 10000 \(the newest backup is never deleted\), got 0$/,
    );
  });

  const partRefusals: [string, Record<string, number>, RegExp][] = [
    [
      "parts under S3's 5 MiB",
      { partSizeMiB: 4 },
      /^Error: 'partSizeMiB' must be an integer from 5 to 512, got 4$/,
    ],
    [
      'parts over 512 MiB',
      { partSizeMiB: 513 },
      /^Error: 'partSizeMiB' must be an integer from 5 to 512, got 513$/,
    ],
    [
      'a fractional part size',
      { partSizeMiB: 5.5 },
      /^Error: 'partSizeMiB' must be an integer from 5 to 512, got 5.5$/,
    ],
    ['no part at a time', { queueSize: 0 }, /^Error: 'queueSize' must be an integer from 1 to 16, got 0$/],
    ['17 parts at a time', { queueSize: 17 }, /^Error: 'queueSize' must be an integer from 1 to 16, got 17$/],
  ];
  for (const [name, props, message] of partRefusals) {
    it(`fails at synth on ${name}, naming the field, the value and what is allowed`, () => {
      assert.throws(() => withBackups('etcd-test', props), message);
    });
  }

  it('GIVEN partSizeMiB and queueSize THEN the save gets them as flags; unset, it gets neither (the command keeps its defaults)', () => {
    const args = (props: Record<string, number>) =>
      podSpec(only(withBackups('etcd-test', props), 'CronJob', 'main-backup')).containers[0].args as string[];
    const set = args({ partSizeMiB: 5, queueSize: 1 });
    assert.ok(set.includes('--part-size-mib=5'), set.join(' '));
    assert.ok(set.includes('--queue-size=1'), set.join(' '));
    const unset = args({});
    assert.ok(!unset.some((arg) => arg.startsWith('--part-size-mib') || arg.startsWith('--queue-size')));
  });

  it('fails when the bucket name is invalid', () => {
    assert.throws(
      () => withBackups('etcd-test', { bucket: 'Etcd_Backups' }),
      /^Error: 'bucket' must be an S3 bucket name .* got 'Etcd_Backups'$/,
    );
  });

  it('fails when neither the credentials Secret nor a web identity is given, or both are', () => {
    assert.throws(
      () => withBackups('etcd-test', { credentialsSecretName: undefined }),
      /^Error: backup schedule: set exactly one of 'credentialsSecretName' \(a Secret with AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY\) or 'webIdentity' \(a role assumed with the cluster's <cluster>-backup ServiceAccount token\), got neither$/,
    );
    assert.throws(
      () => withBackups('etcd-test', { webIdentity: { roleArn: 'arn:aws:iam::123456789012:role/etcd' } }),
      /^Error: backup schedule: set exactly one of .*, got both$/,
    );
  });

  it('GIVEN a web identity THEN the Job runs as <cluster>-backup with its token projected for the audience, the SDK environment and no Secret', () => {
    const objects = withBackups('etcd-test', {
      credentialsSecretName: undefined,
      webIdentity: {
        roleArn: 'arn:aws:iam::123456789012:role/etcd',
        stsEndpoint: 'http://minio.storage.svc:9000',
      },
    });
    const spec = podSpec(only(objects, 'CronJob', 'main-backup'));
    assert.equal(spec.serviceAccountName, 'main-backup');
    assert.equal(spec.automountServiceAccountToken, false);
    assert.deepEqual(
      spec.volumes.find((v: Manifest) => v.name === 's3-token'),
      {
        name: 's3-token',
        projected: {
          sources: [
            {
              serviceAccountToken: { audience: 'sts.amazonaws.com', expirationSeconds: 3600, path: 'token' },
            },
          ],
        },
      },
    );
    const [container] = spec.containers;
    assert.deepEqual(
      container.volumeMounts.find((m: Manifest) => m.name === 's3-token'),
      { name: 's3-token', mountPath: '/var/run/secrets/etcd-gitops/s3-token', readOnly: true },
    );
    assert.equal(container.envFrom, undefined);
    const env = Object.fromEntries(container.env.map((e: Manifest) => [e.name, e.value ?? e.valueFrom]));
    assert.equal(env.AWS_ROLE_ARN, 'arn:aws:iam::123456789012:role/etcd');
    assert.equal(env.AWS_WEB_IDENTITY_TOKEN_FILE, '/var/run/secrets/etcd-gitops/s3-token/token');
    // The CronJob's name: a Job's Pod name can exceed STS's 64 characters.
    assert.equal(env.AWS_ROLE_SESSION_NAME, 'main-backup');
    assert.equal(env.AWS_ENDPOINT_URL_STS, 'http://minio.storage.svc:9000');
    assert.ok(!objects.some((o) => o.kind === 'Secret'));
  });

  it('fails when the web identity has no role ARN, an empty audience or an STS endpoint that is no URL', () => {
    const identity = (webIdentity: WebIdentity) => () =>
      withBackups('etcd-test', { credentialsSecretName: undefined, webIdentity });
    assert.throws(
      identity({ roleArn: 'etcd-backup' }),
      /^Error: backup schedule: 'webIdentity.roleArn' must be a role ARN such as arn:aws:iam::123456789012:role\/etcd-backup, got "etcd-backup"$/,
    );
    assert.throws(
      identity({ roleArn: 'arn:aws:iam::1:role/x', audience: ' ' }),
      /'webIdentity.audience' must not be empty \(default sts.amazonaws.com\), got " "$/,
    );
    assert.throws(
      identity({ roleArn: 'arn:aws:iam::1:role/x', stsEndpoint: 'minio:9000' }),
      /^Error: 'webIdentity.stsEndpoint' must be an http:\/\/ or https:\/\/ URL .* got 'minio:9000'$/,
    );
  });

  it('fails when the key template has no {timestamp} or the endpoint is no URL', () => {
    assert.throws(
      () => withBackups('etcd-test', { keyTemplate: '{cluster}.db' }),
      /'keyTemplate' must contain \{timestamp\}/,
    );
    assert.throws(
      () => withBackups('etcd-test', { endpoint: 'minio:9000' }),
      /'endpoint' must be an http:\/\/ or https:\/\/ URL/,
    );
  });
  it('fails when the bucket is missing, naming it instead of crashing on undefined', () => {
    assert.throws(
      () => withBackups('etcd-test', { bucket: undefined as unknown as string }),
      /^Error: 'bucket' must be an S3 bucket name .*, got undefined$/,
    );
  });

  it('fails when the time zone is not an IANA name', () => {
    assert.throws(
      () => withBackups('etcd-test', { timeZone: 'Berlin' }),
      /^Error: 'timeZone' must be an IANA time zone name such as 'Europe\/Berlin', .* got 'Berlin'$/,
    );
    assert.throws(() => withBackups('etcd-test', { timeZone: '+01:00' }), /got '\+01:00'$/);
    const cronJob = only(
      withBackups('etcd-test', { timeZone: 'America/New_York' }),
      'CronJob',
      'main-backup',
    );
    assert.equal(cronJob.spec.timeZone, 'America/New_York');
  });

  it('fails when a second schedule has no name, naming the CronJob the first one took', () => {
    assert.throws(
      () => withBackups('etcd-test', {}, { schedule: '0 * * * *' }),
      /^Error: EtcdCluster 'main' already has a backup schedule without a 'name' \(CronJob 'main-backup'\): give every further schedule a 'name', e\.g\. 'hourly' for 'main-backup-hourly'$/,
    );
    assert.throws(
      () => withBackups('etcd-test', { name: 'daily' }, { name: 'daily' }),
      /^Error: EtcdCluster 'main' already has a backup schedule named 'daily'/,
    );
  });
  it('GIVEN no resources THEN the backup Job requests enough memory for its measured peak; given resources replace them', () => {
    const container = (objects: Manifest[]) => podSpec(only(objects, 'CronJob', 'main-backup')).containers[0];
    assert.deepEqual(container(withBackups('etcd-test', {})).resources, {
      requests: { cpu: '50m', memory: '160Mi' },
      limits: { memory: '256Mi' },
    });
    const custom = withBackups('etcd-test', {
      resources: { requests: { memory: '300Mi' }, limits: { memory: Size.mebibytes(512) } },
    });
    assert.deepEqual(container(custom).resources, {
      requests: { memory: '300Mi' },
      limits: { memory: '512Mi' },
    });
  });

  it('GIVEN a memory limit THEN NODE_OPTIONS caps the old space at half of it with a 1 MiB semi-space; none without a limit', () => {
    const nodeOptions = (objects: Manifest[]) =>
      podSpec(only(objects, 'CronJob', 'main-backup'))
        .containers[0].env?.filter((e: Manifest) => e.name === 'NODE_OPTIONS')
        .map((e: Manifest) => e.value);
    assert.deepEqual(nodeOptions(withBackups('etcd-test', {})), [
      '--max-old-space-size=128 --max-semi-space-size=1',
    ]);
    const custom = withBackups('etcd-test', { resources: { limits: { memory: Size.gibibytes(1) } } });
    assert.deepEqual(nodeOptions(custom), ['--max-old-space-size=512 --max-semi-space-size=1']);
    const unlimited = withBackups('etcd-test', { resources: { requests: { memory: '200Mi' } } });
    assert.equal(nodeOptions(unlimited), undefined);
  });

  it('fails when a schedule memory limit is below its request', () => {
    assert.throws(
      () =>
        withBackups('etcd-test', { resources: { requests: { memory: '1Gi' }, limits: { memory: '256Mi' } } }),
      /^Error: 'resources.limits.memory' must be at least 'resources.requests.memory' \(1Gi\): .*, got 256Mi$/,
    );
  });
});
