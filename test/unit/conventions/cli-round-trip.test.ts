// What the constructs and the controller emit, the commands parse back to the same options: every option of a
// backup schedule, every field of a restore's S3 location and seed, the operator's controller flags, and every
// flag of `defrag`, and the restore drill's two commands.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  backupSave,
  controllerCommand,
  DEFAULT_KEY_TEMPLATE,
  type DefragArgs,
  defrag,
  drillCheck,
  drillFetch,
  restoreFetch,
} from '../../../constructs/conventions/index.js';
import {
  type EtcdBackupScheduleOptions,
  EtcdCluster,
  EtcdOperator,
  type S3Location,
} from '../../../constructs/index.js';
import { parseSaveArgs, type SaveCommandOptions } from '../../../controller/backup/cli-args.js';
import { parseDefragArgs } from '../../../controller/defrag/cli-args.js';
import type { DefragOptions } from '../../../controller/defrag/execute.js';
import { parseDrillCheckArgs, parseDrillFetchArgs } from '../../../controller/drill/cli-args.js';
import { parseFetchArgs } from '../../../controller/restore/cli-args.js';
import type { FetchOptions } from '../../../controller/restore/fetch.js';
import { restoreFetchArgs, type SeedRestore } from '../../../controller/restore/seed-init-container.js';
import { parseControllerFlags } from '../../../controller/runtime/flags.js';
import { clusterChart, type Manifest, only, synth, testChart } from '../constructs/helpers.js';

const minimal: EtcdBackupScheduleOptions = {
  schedule: '0 */6 * * *',
  bucket: 'etcd-backups',
  credentialsSecretName: 'backup-s3',
};

/** The CronJob's args as synthesized, parsed by `backup save`'s own parser. */
function parsedSchedule(
  options: Partial<EtcdBackupScheduleOptions>,
  namespace: string | null = 'db',
): SaveCommandOptions {
  const chart = clusterChart(namespace);
  new EtcdCluster(chart, 'main', { version: '3.6.16' }).addBackupSchedule({ ...minimal, ...options });
  const cronJob = only(synth(chart), 'CronJob', 'main-backup');
  const args = cronJob.spec.jobTemplate.spec.template.spec.containers[0].args as string[];
  assert.deepEqual(args.slice(0, 2), backupSave.command);
  return parseSaveArgs(args.slice(2));
}

const defaults: SaveCommandOptions = {
  endpoints: ['http://main-client.db.svc:2379'],
  etcdTls: { caFile: undefined, certFile: undefined, keyFile: undefined },
  namespace: 'db',
  cluster: 'main',
  bucket: 'etcd-backups',
  keyTemplate: DEFAULT_KEY_TEMPLATE,
  s3: { endpoint: undefined, region: 'us-east-1', forcePathStyle: false, checksumMode: 'when-required' },
  encryption: undefined,
  compression: 'none',
  retention: { keepLast: 7, maxAgeMs: undefined },
  partSizeBytes: undefined,
  queueSize: undefined,
  stagingGraceMs: undefined,
  memberWaitMs: undefined,
  terminationLogPath: '/dev/termination-log',
};

type ScheduleCase = readonly [Partial<EtcdBackupScheduleOptions>, Partial<SaveCommandOptions>];

// Every option of a schedule: either the flags it becomes parse back to it, or it is not a flag at all.
// Record<keyof ...>: a new option without a row here does not compile.
const scheduleCases: Record<keyof EtcdBackupScheduleOptions, ScheduleCase | 'not a flag'> = {
  bucket: [{ bucket: 'other-bucket' }, { bucket: 'other-bucket' }],
  prefix: [{ prefix: 'prod/' }, { keyTemplate: `prod/${DEFAULT_KEY_TEMPLATE}` }],
  keyTemplate: [{ keyTemplate: '{cluster}/{timestamp}.db' }, { keyTemplate: '{cluster}/{timestamp}.db' }],
  endpoint: [
    { endpoint: 'http://minio.storage.svc:9000' },
    { s3: { ...defaults.s3, endpoint: 'http://minio.storage.svc:9000' } },
  ],
  region: [{ region: 'eu-west-1' }, { s3: { ...defaults.s3, region: 'eu-west-1' } }],
  forcePathStyle: [{ forcePathStyle: true }, { s3: { ...defaults.s3, forcePathStyle: true } }],
  checksumMode: [
    { checksumMode: 'when-supported' },
    { s3: { ...defaults.s3, checksumMode: 'when-supported' } },
  ],
  compression: [{ compression: 'gzip' }, { compression: 'gzip' }],
  sse: [{ sse: 'AES256' }, { encryption: { algorithm: 'AES256' } }],
  sseKmsKeyId: [
    { sse: 'aws:kms', sseKmsKeyId: 'key-1' },
    { encryption: { algorithm: 'aws:kms', kmsKeyId: 'key-1' } },
  ],
  keepLast: [{ keepLast: 3 }, { retention: { keepLast: 3, maxAgeMs: undefined } }],
  maxAge: [{ maxAge: '30d' }, { retention: { keepLast: 7, maxAgeMs: 30 * 86_400_000 } }],
  partSizeMiB: [{ partSizeMiB: 5 }, { partSizeBytes: 5 * 1024 * 1024 }],
  queueSize: [{ queueSize: 1 }, { queueSize: 1 }],
  name: 'not a flag',
  schedule: 'not a flag',
  timeZone: 'not a flag',
  credentialsSecretName: 'not a flag',
  webIdentity: 'not a flag',
  startingDeadlineSeconds: 'not a flag',
  activeDeadlineSeconds: 'not a flag',
  backoffLimit: 'not a flag',
  historyLimit: 'not a flag',
  resources: 'not a flag',
  suspend: 'not a flag',
  image: 'not a flag',
};

describe('construct-emitted flags parse back to the same options', () => {
  it('GIVEN a schedule with defaults WHEN its args are parsed by backup save THEN the documented defaults come out', () => {
    assert.deepEqual(parsedSchedule({}), defaults);
  });

  for (const [option, row] of Object.entries(scheduleCases)) {
    if (row === 'not a flag') continue;
    const [props, expected] = row;
    it(`GIVEN a schedule with ${option} WHEN its args are parsed by backup save THEN ${option} comes back`, () => {
      assert.deepEqual(parsedSchedule(props), { ...defaults, ...expected });
    });
  }

  it('GIVEN a cluster with tls.client WHEN the backup CronJob args are parsed by backup save THEN https and the mounted client certificate files come back', () => {
    const chart = clusterChart('db');
    new EtcdCluster(chart, 'main', {
      version: '3.6.16',
      tls: { client: { secretName: 'main-serving', clientSecretName: 'main-client-cert' } },
    }).addBackupSchedule(minimal);
    const cronJob = only(synth(chart), 'CronJob', 'main-backup');
    const args = cronJob.spec.jobTemplate.spec.template.spec.containers[0].args as string[];
    assert.deepEqual(parseSaveArgs(args.slice(2)), {
      ...defaults,
      endpoints: ['https://main-client.db.svc:2379'],
      etcdTls: {
        caFile: '/etc/etcd-gitops/tls/ca.crt',
        certFile: '/etc/etcd-gitops/tls/tls.crt',
        keyFile: '/etc/etcd-gitops/tls/tls.key',
      },
    });
  });

  it('GIVEN a chart without namespace WHEN the args are parsed THEN namespace and endpoint are the Pod namespace variable', () => {
    const parsed = parsedSchedule({}, null);
    assert.equal(parsed.namespace, '$(POD_NAMESPACE)');
    assert.deepEqual(parsed.endpoints, ['http://main-client.$(POD_NAMESPACE).svc:2379']);
  });

  const location: S3Location = { bucket: 'etcd-backups', key: 'db/main/x.db', credentialsSecretName: 's3' };
  const seed: SeedRestore = {
    location,
    clusterName: 'main',
    clusterVersion: '3.5.17',
    member: 'main-0',
    peerURL: 'http://main-0.main-peer.db.svc:2380',
    token: 'main-1234abcd-ef0123',
  };
  const fetchDefaults: FetchOptions = {
    source: { bucket: 'etcd-backups', key: 'db/main/x.db' },
    s3: { endpoint: undefined, region: 'us-east-1', forcePathStyle: false, checksumMode: 'when-required' },
    dataDir: '/var/lib/etcd/data',
    clusterVersion: '3.5.17',
    seed: { name: 'main-0', peerURL: 'http://main-0.main-peer.db.svc:2380', token: 'main-1234abcd-ef0123' },
    restoreTool: '/app/etcd/v3.5/etcdutl',
  };
  const parsedSeed = (s: SeedRestore): FetchOptions => {
    const args = restoreFetchArgs(s);
    assert.deepEqual(args.slice(0, 2), restoreFetch.command);
    return parseFetchArgs(args.slice(2), {});
  };
  const locationCases: Record<
    keyof S3Location,
    readonly [Partial<S3Location>, Partial<FetchOptions>] | 'not a flag'
  > = {
    bucket: [{ bucket: 'other' }, { source: { bucket: 'other', key: 'db/main/x.db' } }],
    key: [{ key: 'a.db' }, { source: { bucket: 'etcd-backups', key: 'a.db' } }],
    latestUnderPrefix: [
      { key: undefined, latestUnderPrefix: 'db/main/' },
      { source: { bucket: 'etcd-backups', latestUnderPrefix: 'db/main/' } },
    ],
    endpoint: [
      { endpoint: 'http://minio:9000' },
      { s3: { ...fetchDefaults.s3, endpoint: 'http://minio:9000' } },
    ],
    region: [{ region: 'eu-west-1' }, { s3: { ...fetchDefaults.s3, region: 'eu-west-1' } }],
    forcePathStyle: [{ forcePathStyle: true }, { s3: { ...fetchDefaults.s3, forcePathStyle: true } }],
    credentialsSecretName: 'not a flag',
    webIdentity: 'not a flag',
  };

  it('GIVEN a seed restore WHEN the init container args are parsed by restore fetch THEN the seed comes back', () => {
    assert.deepEqual(parsedSeed(seed), fetchDefaults);
  });

  for (const [field, row] of Object.entries(locationCases)) {
    if (row === 'not a flag') continue;
    const [change, expected] = row;
    it(`GIVEN a backup location with ${field} WHEN the init container args are parsed THEN ${field} comes back`, () => {
      assert.deepEqual(parsedSeed({ ...seed, location: { ...location, ...change } }), {
        ...fetchDefaults,
        ...expected,
      });
    });
  }

  it('GIVEN the operator Deployment WHEN its controller args are parsed THEN leader election and both ports come back', () => {
    const chart = testChart(null);
    new EtcdOperator(chart, 'operator');
    const deployment = only(synth(chart), 'Deployment') as Manifest;
    const args = deployment.spec.template.spec.containers[0].args as string[];
    assert.deepEqual(args.slice(0, 1), controllerCommand.command);
    const flags = parseControllerFlags(args.slice(1), { POD_NAMESPACE: 'etcd-gitops-system' });
    assert.equal(flags.leaderElect, true);
    assert.deepEqual(flags.metricsBindAddress, { host: undefined, port: 8080 });
    assert.deepEqual(flags.healthProbeBindAddress, { host: undefined, port: 8081 });
  });

  const defragValues: DefragArgs = {
    endpoints: ['http://main-client.db.svc:2379'],
    namespace: 'db',
    cluster: 'main',
    quotaBackendBytes: 402_653_184,
  };
  const defragDefaults: DefragOptions = {
    endpoints: ['http://main-client.db.svc:2379'],
    namespace: 'db',
    cluster: 'main',
    quotaBackendBytes: 402_653_184,
    tls: { caFile: undefined, certFile: undefined, keyFile: undefined },
    memberWaitMs: undefined,
  };
  it('GIVEN a cluster with tls.client (cert-manager form) WHEN the defrag CronJob args are parsed by defrag THEN https and the mounted client certificate files come back', () => {
    const chart = clusterChart('db');
    new EtcdCluster(chart, 'main', {
      version: '3.6.16',
      tls: { client: { certManager: true } },
    }).addDefragSchedule();
    const cronJob = only(synth(chart), 'CronJob', 'main-defrag');
    const args = cronJob.spec.jobTemplate.spec.template.spec.containers[0].args as string[];
    assert.deepEqual(args.slice(0, 1), defrag.command);
    assert.deepEqual(parseDefragArgs(args.slice(1)), {
      ...defragDefaults,
      endpoints: ['https://main-client.db.svc:2379'],
      tls: {
        caFile: '/etc/etcd-gitops/tls/ca.crt',
        certFile: '/etc/etcd-gitops/tls/tls.crt',
        keyFile: '/etc/etcd-gitops/tls/tls.key',
      },
    });
  });

  // Every flag of `defrag`. Record<keyof ...>: a new flag without a row here does not compile.
  const defragCases: Record<keyof DefragArgs, readonly [Partial<DefragArgs>, Partial<DefragOptions>]> = {
    endpoints: [
      { endpoints: ['https://a:2379', 'https://b:2379'] },
      { endpoints: ['https://a:2379', 'https://b:2379'] },
    ],
    namespace: [{ namespace: 'team-a' }, { namespace: 'team-a' }],
    cluster: [{ cluster: 'other' }, { cluster: 'other' }],
    quotaBackendBytes: [{ quotaBackendBytes: 8 * 2 ** 30 }, { quotaBackendBytes: 8 * 2 ** 30 }],
    cacert: [{ cacert: '/tls/ca.crt' }, { tls: { ...defragDefaults.tls, caFile: '/tls/ca.crt' } }],
    cert: [
      { cert: '/tls/tls.crt', key: '/tls/tls.key' },
      { tls: { caFile: undefined, certFile: '/tls/tls.crt', keyFile: '/tls/tls.key' } },
    ],
    key: [
      { cert: '/tls/tls.crt', key: '/tls/tls.key' },
      { tls: { caFile: undefined, certFile: '/tls/tls.crt', keyFile: '/tls/tls.key' } },
    ],
    memberWait: [{ memberWait: '1m30s' }, { memberWaitMs: 90_000 }],
  };
  for (const [flag, [change, expected]] of Object.entries(defragCases)) {
    it(`GIVEN defrag args with ${flag} WHEN parsed by defrag THEN ${flag} comes back`, () => {
      const args = defrag.args({ ...defragValues, ...change });
      assert.deepEqual(args.slice(0, 1), defrag.command);
      assert.deepEqual(parseDefragArgs(args.slice(1)), { ...defragDefaults, ...expected });
    });
  }
});

describe('the restore drill CronJob', () => {
  it('GIVEN a schedule with every location option WHEN drilled THEN drill fetch parses to the bucket, key template and S3 connection backup save writes with, and drill check to its defaults', () => {
    const location: Partial<EtcdBackupScheduleOptions> = {
      bucket: 'other-bucket',
      prefix: 'prod/',
      keyTemplate: '{namespace}/{cluster}/{timestamp}.db',
      endpoint: 'http://minio.storage.svc:9000',
      region: 'eu-west-1',
      forcePathStyle: true,
      checksumMode: 'when-supported',
    };
    const chart = clusterChart('db');
    new EtcdCluster(chart, 'main', { version: '3.6.16' })
      .addBackupSchedule({ ...minimal, ...location })
      .addRestoreDrill({ schedule: '@daily' });
    const objects = synth(chart);
    const save = parseSaveArgs(
      (
        only(objects, 'CronJob', 'main-backup').spec.jobTemplate.spec.template.spec.containers[0]
          .args as string[]
      ).slice(2),
    );
    const drillSpec = only(objects, 'CronJob', 'main-backup-drill').spec.jobTemplate.spec.template.spec;
    const fetchArgs = drillSpec.initContainers[0].args as string[];
    assert.deepEqual(fetchArgs.slice(0, 2), drillFetch.command);
    const fetch = parseDrillFetchArgs(fetchArgs.slice(2));
    assert.deepEqual(
      {
        bucket: fetch.bucket,
        keyTemplate: fetch.keyTemplate,
        s3: fetch.s3,
        namespace: fetch.namespace,
        cluster: fetch.cluster,
      },
      {
        bucket: save.bucket,
        keyTemplate: save.keyTemplate,
        s3: save.s3,
        namespace: save.namespace,
        cluster: save.cluster,
      },
    );
    const checkArgs = drillSpec.containers[0].args as string[];
    assert.deepEqual(checkArgs.slice(0, 2), drillCheck.command);
    assert.deepEqual(parseDrillCheckArgs(checkArgs.slice(2)), {
      restoredFile: '/drill/restored.json',
      endpoint: 'http://127.0.0.1:2379',
      waitMs: 120_000,
      terminationLogPath: '/dev/termination-log',
    });
  });
});
