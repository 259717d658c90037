// The flag tables of our commands: every option encodes and decodes to itself, and bad flags fail naming the flag,
// the value and what is allowed.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type BackupSaveArgs,
  type BackupStatusArgs,
  backupSave,
  backupStatus,
  type ControllerArgs,
  controllerCommand,
  FlagError,
  type RestoreFetchArgs,
  restoreFetch,
} from '../../../constructs/conventions/index.js';

// Required<...>: a new flag without a sample here does not compile.
const saveSample: Required<BackupSaveArgs> = {
  endpoints: ['https://a.db.svc:2379', 'https://b.db.svc:2379'],
  namespace: 'db',
  cluster: 'main',
  bucket: 'etcd-backups',
  keyTemplate: 'prod/{namespace}/{cluster}/{timestamp}.db',
  s3Endpoint: 'http://minio.storage.svc:9000',
  region: 'eu-west-1',
  forcePathStyle: true,
  checksumMode: 'when-supported',
  compression: 'gzip',
  sse: 'aws:kms',
  sseKmsKeyId: 'key-1',
  keepLast: 14,
  maxAge: '1d12h',
  cacert: '/tls/ca.crt',
  cert: '/tls/tls.crt',
  key: '/tls/tls.key',
  partSizeMiB: 16,
  queueSize: 4,
  stagingGrace: '2h',
  memberWait: '45s',
  terminationLog: '/dev/termination-log',
};

const statusSample: Required<BackupStatusArgs> = {
  bucket: 'etcd-backups',
  s3Endpoint: 'http://minio.storage.svc:9000',
  region: 'eu-west-1',
  forcePathStyle: true,
  checksumMode: 'when-required',
  prefix: 'db/main/',
  verify: true,
  output: 'json',
};

const fetchSample: Omit<Required<RestoreFetchArgs>, 'latestUnderPrefix'> = {
  bucket: 'etcd-backups',
  key: 'db/main/20260101T000000Z-rev9.db',
  s3Endpoint: 'http://minio.storage.svc:9000',
  region: 'eu-west-1',
  forcePathStyle: true,
  checksumMode: 'when-supported',
  etcdVersion: '3.5.17',
  dataDir: '/var/lib/etcd/data',
  name: 'main-0',
  initialAdvertisePeerUrls: 'http://main-0.main-peer.db.svc:2380',
  initialCluster: 'main-0=http://main-0.main-peer.db.svc:2380',
  initialClusterToken: 'main-1234abcd-ef0123',
  etcdutl: '/app/etcd/v3.5/etcdutl',
  revisionFloor: '4000047646',
};

const controllerSample: Required<ControllerArgs> = {
  leaderElect: true,
  leaderElectionNamespace: 'ops',
  leaderElectionId: 'etcd-lease',
  leaseDuration: '15s',
  renewDeadline: '10s',
  retryPeriod: '2s',
  metricsBindAddress: ':8080',
  healthProbeBindAddress: '127.0.0.1:8081',
  concurrency: 2,
  resyncPeriod: '5m',
  watchNamespaces: ['team-a', 'team-b'],
  logLevel: 'debug',
  shutdownTimeout: '20s',
};

describe('command flag tables', () => {
  it('GIVEN every backup save option WHEN encoded and decoded THEN the options come back unchanged', () => {
    assert.deepEqual(backupSave.decode(backupSave.encode(saveSample)), saveSample);
  });

  it('GIVEN only the required backup save options WHEN encoded THEN only those flags are written, in table order', () => {
    const args = backupSave.args({
      endpoints: ['http://main-client.db.svc:2379'],
      namespace: 'db',
      cluster: 'main',
      bucket: 'b',
    });
    assert.deepEqual(args, [
      'backup',
      'save',
      '--endpoints=http://main-client.db.svc:2379',
      '--namespace=db',
      '--cluster=main',
      '--bucket=b',
    ]);
  });

  it('GIVEN every backup status option WHEN encoded and decoded THEN the options come back unchanged', () => {
    assert.deepEqual(backupStatus.decode(backupStatus.encode(statusSample)), statusSample);
  });

  it('GIVEN every restore fetch option (with a key, then a prefix) WHEN encoded and decoded THEN they come back unchanged', () => {
    assert.deepEqual(restoreFetch.decode(restoreFetch.encode(fetchSample)), fetchSample);
    const { key: _key, ...rest } = fetchSample;
    const byPrefix = { ...rest, latestUnderPrefix: '' };
    assert.deepEqual(restoreFetch.decode(restoreFetch.encode(byPrefix)), byPrefix);
  });

  it('GIVEN every controller option WHEN encoded and decoded THEN the options come back unchanged', () => {
    assert.deepEqual(controllerCommand.decode(controllerCommand.encode(controllerSample)), controllerSample);
  });

  it('GIVEN a value after a space, a repeated flag and --flag=false WHEN decoded THEN they read as documented', () => {
    const args = controllerCommand.decode([
      '--log-level',
      'warn',
      '--log-level=debug',
      '--leader-elect=false',
    ]);
    assert.deepEqual(args, { logLevel: 'debug', leaderElect: false });
  });

  const minimalSave = ['--endpoints=http://c:2379', '--namespace=db', '--cluster=main', '--bucket=b'];
  const failures: [string, () => unknown, string, RegExp][] = [
    [
      'a required flag is missing',
      () => backupSave.decode(minimalSave.slice(1)),
      '--endpoints',
      /^'--endpoints' is required$/,
    ],
    [
      'a required flag is empty',
      () => backupSave.decode([...minimalSave, '--bucket=']),
      '--bucket',
      /^'--bucket' is required$/,
    ],
    [
      'a flag is unknown',
      () => backupSave.decode([...minimalSave, '--prefix=x']),
      '--prefix',
      /^unknown flag '--prefix'; flags: --endpoints, --namespace/,
    ],
    [
      'an argument is not a flag',
      () => backupSave.decode([...minimalSave, 'now']),
      'now',
      /^unexpected argument 'now'/,
    ],
    [
      'a value is missing',
      () => backupSave.decode([...minimalSave, '--region']),
      '--region',
      /^'--region' needs a value$/,
    ],
    [
      'an integer is not a whole number',
      () => backupSave.decode([...minimalSave, '--keep-last=1.5']),
      '--keep-last',
      /^'--keep-last' must be a whole number of at least 1, got '1.5'$/,
    ],
    [
      'an integer is below its minimum',
      () => backupSave.decode([...minimalSave, '--queue-size=0']),
      '--queue-size',
      /got '0'$/,
    ],
    [
      'a value is not allowed',
      () => backupSave.decode([...minimalSave, '--compression=zstd']),
      '--compression',
      /^'--compression' must be one of none, gzip, got 'zstd'$/,
    ],
    [
      'a URL is not http(s)',
      () => backupSave.decode([...minimalSave, '--s3-endpoint=minio:9000']),
      '--s3-endpoint',
      /^'--s3-endpoint' must be an http\(s\) URL, got 'minio:9000'$/,
    ],
    [
      'one of a list of URLs is not http(s)',
      () => backupSave.decode([...minimalSave, '--endpoints=http://a:2379,b:2379']),
      '--endpoints',
      /got 'b:2379'$/,
    ],
    [
      'a duration has no unit',
      () => backupSave.decode([...minimalSave, '--max-age=30']),
      '--max-age',
      /^'--max-age' must be a positive duration such as 30d, .*, got '30'$/,
    ],
    [
      'a boolean is neither true nor false',
      () => backupSave.decode([...minimalSave, '--force-path-style=yes']),
      '--force-path-style',
      /^'--force-path-style' must be true or false, got 'yes'$/,
    ],
    [
      '--cert comes without --key',
      () => backupSave.decode([...minimalSave, '--cert=/c']),
      '--cert',
      /^'--cert' and '--key' go together/,
    ],
    [
      '--sse-kms-key-id comes without --sse=aws:kms',
      () => backupSave.encode({ ...saveSample, sse: 'AES256' }),
      '--sse-kms-key-id',
      /needs --sse=aws:kms, got --sse=AES256$/,
    ],
    [
      'a version is not X.Y.Z',
      () => restoreFetch.decode(restoreFetch.encode({ ...fetchSample, etcdVersion: 'v3.5' })),
      '--etcd-version',
      /^'--etcd-version' must be an etcd release written X\.Y\.Z such as 3\.6\.16, got 'v3\.5'$/,
    ],
    [
      'restore fetch has both a key and a prefix',
      () => restoreFetch.encode({ ...fetchSample, latestUnderPrefix: 'p/' }),
      '--key',
      /exactly one of '--key' .* got both$/,
    ],
    [
      'a controller duration is not one',
      () => controllerCommand.decode(['--resync-period=5 minutes']),
      '--resync-period',
      /^'--resync-period' must be a duration such as .*, got '5 minutes'$/,
    ],
  ];
  for (const [name, run, flag, message] of failures) {
    it(`fails when ${name}`, () =>
      assert.throws(run, (error: unknown) => {
        assert.ok(error instanceof FlagError, String(error));
        assert.equal(error.flag, flag);
        assert.match(error.message, message);
        return true;
      }));
  }
});
