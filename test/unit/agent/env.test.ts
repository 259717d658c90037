import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Container, V1Pod } from '@kubernetes/client-node';
import { type ConfigSources, containerEnv, expandArgv } from '../../env/agent/env.js';
import { fieldValue } from '../../env/agent/field-ref.js';

// In-memory Secrets/ConfigMaps: env assembly is pure given its sources (the e2e tests read real ones).
const sources: ConfigSources = {
  secret: async (_ns, name) =>
    name === 's3' ? { AWS_ACCESS_KEY_ID: 'id', AWS_SECRET_ACCESS_KEY: 'key' } : undefined,
  configMap: async (_ns, name) => (name === 'cm' ? { level: 'debug' } : undefined),
};
const placement = { podIP: '127.1.1.7', hostIP: '127.0.0.1', nodeName: 'node-1' };
const pod: V1Pod = {
  metadata: {
    name: 'c-0',
    namespace: 'ns',
    uid: 'u-1',
    labels: { app: 'etcd', tier: 'db' },
    annotations: { note: 'x' },
  },
  spec: { containers: [], serviceAccountName: 'sa' },
};

describe('container environment', () => {
  it('resolves fieldRefs, secretKeyRefs, configMapKeyRefs and envFrom with prefix, later entries winning', async () => {
    const container: V1Container = {
      name: 'etcd',
      envFrom: [{ secretRef: { name: 's3' }, prefix: 'S3_' }, { configMapRef: { name: 'cm' } }],
      env: [
        { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
        { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
        { name: 'APP', valueFrom: { fieldRef: { fieldPath: "metadata.labels['app']" } } },
        { name: 'KEY', valueFrom: { secretKeyRef: { name: 's3', key: 'AWS_ACCESS_KEY_ID' } } },
        { name: 'LEVEL', valueFrom: { configMapKeyRef: { name: 'cm', key: 'level' } } },
        { name: 'URL', value: 'http://$(POD_IP):2379' },
        { name: 'level', value: 'override' },
      ],
    };
    const env = await containerEnv(pod, container, placement, sources, { PATH: '/bin' });
    assert.equal(env.POD_IP, '127.1.1.7');
    assert.equal(env.POD_NAME, 'c-0');
    assert.equal(env.APP, 'etcd');
    assert.equal(env.KEY, 'id');
    assert.equal(env.S3_AWS_SECRET_ACCESS_KEY, 'key');
    assert.equal(env.LEVEL, 'debug');
    assert.equal(env.URL, 'http://127.1.1.7:2379');
    assert.equal(env.level, 'override');
    assert.equal(env.PATH, '/bin');
    assert.deepEqual(expandArgv(['--listen-client-urls=http://$(POD_IP):2379'], env), [
      '--listen-client-urls=http://127.1.1.7:2379',
    ]);
  });

  it('fails when a required secret is missing, naming it', async () => {
    const container: V1Container = {
      name: 'x',
      env: [{ name: 'K', valueFrom: { secretKeyRef: { name: 'nope', key: 'k' } } }],
    };
    await assert.rejects(containerEnv(pod, container, placement, sources, {}), /secret "nope" not found/);
  });

  it('fails when a required key is missing, and skips optional ones', async () => {
    const missingKey: V1Container = {
      name: 'x',
      env: [{ name: 'K', valueFrom: { secretKeyRef: { name: 's3', key: 'zz' } } }],
    };
    await assert.rejects(
      containerEnv(pod, missingKey, placement, sources, {}),
      /couldn't find key zz in secret ns\/s3/,
    );
    const optional: V1Container = {
      name: 'x',
      env: [{ name: 'K', valueFrom: { secretKeyRef: { name: 'nope', key: 'k', optional: true } } }],
      envFrom: [{ configMapRef: { name: 'nope', optional: true } }],
    };
    assert.deepEqual(await containerEnv(pod, optional, placement, sources, {}), {});
  });

  it('formats labels for downwardAPI volumes and names unsupported field paths', () => {
    assert.equal(fieldValue(pod, 'metadata.labels', placement), 'app="etcd"\ntier="db"');
    assert.equal(fieldValue(pod, 'spec.serviceAccountName', placement), 'sa');
    assert.throws(
      () => fieldValue(pod, 'spec.bogus', placement),
      /fieldRef.fieldPath 'spec.bogus' is not supported/,
    );
  });
});
