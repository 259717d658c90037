// S3 credentials from a web identity (docs/design/workload-identity.md) against a real API server and a real MinIO
// that trusts the API server's ServiceAccount issuer: `backup save` and `restore fetch` as processes with a token
// file and no key anywhere in their environment, a token of another audience refused, and the controller's own
// verification through the TokenRequest API.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { CoreV1Api } from '@kubernetes/client-node';
import pino from 'pino';
import { backupServiceAccountName, S3_CREDENTIAL_KEYS } from '../../constructs/conventions/index.js';
import { ExitCode } from '../../controller/backup/exit-codes.js';
import { verifyBackup } from '../../controller/etcdrestore/verify.js';
import { webIdentityCredentials } from '../../controller/etcdrestore/web-identity.js';
import { etcdBinary } from '../env/binaries.js';
import { type ControlPlane, startControlPlane } from '../env/control-plane.js';
import { type Minio, startMinio } from '../env/minio.js';
import { freePorts } from '../env/ports.js';
import { createBucket, failureReason, minioClient, runBackupCli, s3Args } from './helpers/backup-cli.js';
import { type StandaloneEtcd, startEtcd } from './helpers/etcd.js';
import { compareEtcd, putKeys } from './helpers/fill.js';
import { runRestoreCli, startEtcdOnDataDir } from './helpers/restore.js';

const namespace = 'wi';
const cluster = 'main';
const serviceAccount = backupServiceAccountName(cluster);
/** MinIO's OpenID client id: the audience a token must carry. */
const audience = 'etcd-gitops-test-sts';

describe('S3 credentials from a web identity (real API server, real MinIO, our commands as processes)', () => {
  let cp: ControlPlane;
  let minio: Minio;
  let s3: S3Client;
  let work: string;
  let source: StandaloneEtcd;
  let bucket: string;
  let key: string;
  const cleanups: (() => Promise<void>)[] = [];

  /** A token of `<cluster>-backup` for `aud`, written where a projected volume would put it. */
  async function tokenFile(aud: string, name: string): Promise<string> {
    const answer = await cp.kubeConfig.makeApiClient(CoreV1Api).createNamespacedServiceAccountToken({
      namespace,
      name: serviceAccount,
      body: { spec: { audiences: [aud], expirationSeconds: 600 } },
    });
    const file = join(work, name);
    await writeFile(file, answer.status?.token ?? '', { mode: 0o600 });
    return file;
  }

  /** `backup save` of the source etcd into `into`, as the schedule's Job runs it. */
  const saveArgs = (into: string) => [
    'save',
    `--endpoints=${source.clientURL}`,
    `--namespace=${namespace}`,
    `--cluster=${cluster}`,
    ...s3Args(minio, into),
  ];

  /** The environment `s3CredentialsPodParts` gives a container, with `file` as the token. */
  function webIdentityEnv(file: string): Record<string, string> {
    return {
      AWS_ROLE_ARN: minio.roleArn as string,
      AWS_WEB_IDENTITY_TOKEN_FILE: file,
      AWS_ROLE_SESSION_NAME: 'main-backup-test',
      AWS_ENDPOINT_URL_STS: minio.endpoint,
      AWS_REGION: 'us-east-1',
    };
  }

  before(async () => {
    for (const name of S3_CREDENTIAL_KEYS)
      assert.equal(process.env[name], undefined, `${name} is set in the test's environment`);
    work = await mkdtemp(join(tmpdir(), 'etcd-gitops-web-identity-'));
    cp = await startControlPlane();
    minio = await startMinio({
      openId: { configUrl: cp.issuerDiscoveryUrl, caFile: cp.pki.caCert, clientId: audience },
    });
    s3 = minioClient(minio);
    const core = cp.kubeConfig.makeApiClient(CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: namespace } } });
    await core.createNamespacedServiceAccount({
      namespace,
      body: { metadata: { name: serviceAccount }, automountServiceAccountToken: false },
    });
    bucket = await createBucket(s3);
    source = await startEtcd({ version: '3.6' });
    cleanups.push(() => source.stop());
    const client = source.client();
    await putKeys(client, 40);
    client.close();
  });

  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    s3?.destroy();
    await minio?.stop();
    await cp?.stop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('GIVEN a token of <cluster>-backup for the store and no key in the environment WHEN backup save runs THEN the backup is stored', async () => {
    const result = await runBackupCli(saveArgs(bucket), webIdentityEnv(await tokenFile(audience, 'token')));
    assert.equal(result.code, 0, failureReason(result));
    key = (JSON.parse(result.stdout) as { key: string }).key;
    assert.match(key, new RegExp(`^${namespace}/${cluster}/`));
  });

  it('WHEN restore fetch runs with the same kind of token THEN the seed data dir serves every key of the source', async () => {
    assert.ok(key, 'the backup of the previous test');
    const mount = join(work, 'volume');
    await mkdir(mount);
    const [peerPort] = (await freePorts(1)) as [number];
    const result = await runRestoreCli(
      [
        'fetch',
        ...s3Args(minio, bucket),
        `--key=${key}`,
        `--etcd-version=${source.version}`,
        `--data-dir=${join(mount, 'data')}`,
        '--name=main-0',
        `--initial-advertise-peer-urls=http://127.0.0.1:${peerPort}`,
        '--initial-cluster-token=restored-web-identity',
        `--etcdutl=${etcdBinary(source.version, 'etcdutl')}`,
      ],
      webIdentityEnv(await tokenFile(audience, 'token-restore')),
    );
    assert.equal(result.code, 0, failureReason(result));
    const restored = await startEtcdOnDataDir(source.version, join(mount, 'data'), 'main-0', peerPort, mount);
    cleanups.push(() => restored.stop());
    const [a, b] = [source.client(), restored.client()];
    try {
      assert.equal(await compareEtcd(a, b), 40);
    } finally {
      a.close();
      b.close();
    }
  });

  it('GIVEN a token for another audience WHEN backup save runs THEN it fails S3_ERROR naming AssumeRoleWithWebIdentity, and nothing is stored', async () => {
    const other = await createBucket(s3, 'refused');
    const result = await runBackupCli(
      saveArgs(other),
      webIdentityEnv(await tokenFile('some-other-audience', 'token-other')),
    );
    assert.equal(result.code, ExitCode.S3_ERROR, result.stderr);
    assert.match(
      failureReason(result),
      new RegExp(
        `^cannot use bucket '${other}' at .*: the store's STS refused the web identity: .*AssumeRoleWithWebIdentity of role ${minio.roleArn} was refused: InvalidParameterValue: STS JWT Token has .azp. claim invalid`,
      ),
    );
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: other }));
    assert.equal(listed.KeyCount ?? 0, 0);
  });

  it("GIVEN the controller's kubeconfig WHEN it verifies the backup with the location's web identity THEN the TokenRequest and the exchange give it the backup's revision; another audience is refused (AccessDenied), a missing ServiceAccount is named", async () => {
    assert.ok(key, 'the backup of the first test');
    const location = {
      bucket,
      key,
      endpoint: minio.endpoint,
      forcePathStyle: true,
      webIdentity: { roleArn: minio.roleArn as string, audience, stsEndpoint: minio.endpoint },
    };
    const core = cp.kubeConfig.makeApiClient(CoreV1Api);
    const request = {
      namespace,
      cluster,
      identity: location.webIdentity,
      region: 'us-east-1',
      restore: 'verify-test',
    };
    const found = await webIdentityCredentials(core, request);
    assert.ok('credentials' in found, JSON.stringify(found));
    const result = await verifyBackup(location, found.credentials, source.version, pino({ level: 'silent' }));
    assert.ok(result.ok, JSON.stringify(result));
    assert.equal(result.key, key);

    // A token of another audience: a refusal (AccessDenied, the restore fails), not a store that is down (retried).
    const refused = await webIdentityCredentials(core, {
      ...request,
      identity: { ...location.webIdentity, audience: 'some-other-audience' },
    });
    assert.ok('credentials' in refused);
    const denied = await verifyBackup(
      location,
      refused.credentials,
      source.version,
      pino({ level: 'silent' }),
    );
    assert.ok(!denied.ok);
    assert.equal(denied.reason, 'AccessDenied', denied.message);
    assert.match(denied.message, /AssumeRoleWithWebIdentity of role .* was refused/);

    // A cluster without its ServiceAccount: the problem names it and what makes it.
    const missing = await webIdentityCredentials(core, { ...request, cluster: 'other' });
    assert.ok('problem' in missing);
    assert.match(
      missing.problem,
      /^ServiceAccount other-backup \(the web identity of spec.backup.webIdentity\) does not exist in namespace wi/,
    );
  });
});
