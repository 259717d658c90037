// The S3 credentials of a restore from its Secret, or why they cannot be used: no Secret, a Secret without the keys,
// or a Secret the controller's RBAC does not let it read (a cluster applied without its construct's Role).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EtcdRestore } from '../../../controller/etcdrestore/api.js';
import { credentialsOf } from '../../../controller/etcdrestore/observe.js';
import { forbiddenSecretMessage } from '../../../controller/runtime/secrets.js';

const restore = {
  metadata: { name: 'r1', namespace: 'team-a' },
  spec: {
    clusterName: 'main',
    backup: { bucket: 'b', key: 'team-a/main/x.db', credentialsSecretName: 's3' },
  },
} as EtcdRestore;

const base64 = (text: string) => Buffer.from(text).toString('base64');

describe('credentialsOf', () => {
  it('GIVEN a Secret with both keys THEN its credentials', () => {
    assert.deepEqual(
      credentialsOf(restore, {
        data: { AWS_ACCESS_KEY_ID: base64('a'), AWS_SECRET_ACCESS_KEY: base64('b') },
      }),
      { credentials: { accessKeyId: 'a', secretAccessKey: 'b' } },
    );
  });

  it('GIVEN no Secret, or one without the secret key THEN the problem names the Secret and what is missing', () => {
    assert.deepEqual(credentialsOf(restore, undefined), {
      problem: 'Secret s3 (spec.backup.credentialsSecretName) does not exist',
    });
    assert.deepEqual(credentialsOf(restore, { data: { AWS_ACCESS_KEY_ID: base64('a') } }), {
      problem: 'Secret s3 lacks AWS_SECRET_ACCESS_KEY',
    });
  });

  it('GIVEN a Secret the controller may not read (403) THEN the problem says so and names the Role that grants it', () => {
    assert.deepEqual(credentialsOf(restore, { forbidden: forbiddenSecretMessage('team-a', 's3', 'main') }), {
      problem:
        'the controller may not read Secret s3 in namespace team-a (403 Forbidden): grant its ServiceAccount get on Secrets there, as the Role main-etcd-gitops-controller the EtcdCluster construct synthesizes does',
    });
  });
});
