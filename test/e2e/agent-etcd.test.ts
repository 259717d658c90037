// The node agent runs an etcd member Pod as the controller shapes it (conventions.md): the etcd build
// of the image's version, data on a PVC at /var/lib/etcd, listening on $(POD_IP), reachable by its DNS
// names; and its fault injection kills the member so that it restarts with its data.
import assert from 'node:assert/strict';
import { lookup } from 'node:dns/promises';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CoreV1Api, type V1Pod } from '@kubernetes/client-node';
import { startNodeAgent } from '../env/agent/index.js';
import type { NodeAgent } from '../env/agent/node-agent.js';
import { etcdVersions } from '../env/binaries.js';
import { type ControlPlane, startControlPlane } from '../env/control-plane.js';
import { defaultLogger } from '../env/log.js';
import { createNamespace } from '../env/namespaces.js';
import { waitFor } from '../env/wait.js';

const namespace = 'agent-etcd';
const cluster = 'c';
const member = 'c-0';
const version = etcdVersions['3.6'];
const labels = {
  'app.kubernetes.io/name': 'etcd',
  'app.kubernetes.io/instance': cluster,
  'app.kubernetes.io/component': 'member',
};
const peerHost = `${member}.${cluster}-peer.${namespace}.svc`;

const memberPod: V1Pod = {
  metadata: { name: member, namespace, labels: { ...labels, 'etcd.gitops.dev/member': member } },
  spec: {
    hostname: member,
    subdomain: `${cluster}-peer`,
    terminationGracePeriodSeconds: 10,
    containers: [
      {
        name: 'etcd',
        image: `gcr.io/etcd-development/etcd:v${version}`,
        command: ['/usr/local/bin/etcd'],
        args: [
          `--name=${member}`,
          '--data-dir=/var/lib/etcd/data',
          '--listen-peer-urls=http://$(POD_IP):2380',
          '--listen-client-urls=http://$(POD_IP):2379',
          `--advertise-client-urls=http://${peerHost}:2379`,
          `--initial-advertise-peer-urls=http://${peerHost}:2380`,
          `--initial-cluster=${member}=http://${peerHost}:2380`,
          '--initial-cluster-state=new',
          '--initial-cluster-token=agent-e2e',
        ],
        env: [{ name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } }],
        ports: [
          { name: 'client', containerPort: 2379 },
          { name: 'peer', containerPort: 2380 },
        ],
        readinessProbe: {
          httpGet: { path: '/health', port: 'client' },
          periodSeconds: 1,
          failureThreshold: 3,
        },
        livenessProbe: {
          tcpSocket: { port: 2379 },
          initialDelaySeconds: 5,
          periodSeconds: 5,
          failureThreshold: 5,
        },
        volumeMounts: [{ name: 'data', mountPath: '/var/lib/etcd' }],
      },
    ],
    volumes: [{ name: 'data', persistentVolumeClaim: { claimName: `${member}-data` } }],
  },
};

async function etcdGet(url: string, key: string): Promise<string | undefined> {
  const response = await fetch(`${url}/v3/kv/range`, {
    method: 'POST',
    body: JSON.stringify({ key: Buffer.from(key).toString('base64') }),
  });
  const body = (await response.json()) as { kvs?: { value: string }[] };
  const value = body.kvs?.[0]?.value;
  return value === undefined ? undefined : Buffer.from(value, 'base64').toString('utf8');
}

describe(`node agent: an etcd ${version} member Pod`, () => {
  let controlPlane: ControlPlane;
  let agent: NodeAgent;
  let core: CoreV1Api;
  let stateDir: string;
  const clientURL = `http://${cluster}-client.${namespace}.svc:2379`;

  const readPod = () => core.readNamespacedPod({ namespace, name: member });
  const readyPod = (what: string, extra: (pod: V1Pod) => boolean = () => true) =>
    waitFor(
      async () => {
        const pod = await readPod();
        const ready = pod.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
        return ready && extra(pod) ? pod : undefined;
      },
      { what, timeoutMs: 90_000, intervalMs: 200 },
    );

  before(async () => {
    const log = defaultLogger();
    controlPlane = await startControlPlane({ log });
    stateDir = join(controlPlane.dir, 'agent');
    core = controlPlane.kubeConfig.makeApiClient(CoreV1Api);
    agent = await startNodeAgent({
      kubeConfig: controlPlane.kubeConfig,
      stateDir,
      log,
      backoff: { baseMs: 1_000 },
    });
    await createNamespace(controlPlane.kubeConfig, namespace);
    await core.createNamespacedService({
      namespace,
      body: {
        metadata: { name: `${cluster}-peer` },
        spec: {
          clusterIP: 'None',
          publishNotReadyAddresses: true,
          selector: labels,
          ports: [{ name: 'peer', port: 2380 }],
        },
      },
    });
    await core.createNamespacedService({
      namespace,
      body: {
        metadata: { name: `${cluster}-client` },
        spec: { selector: labels, ports: [{ name: 'client', port: 2379 }] },
      },
    });
    await core.createNamespacedPersistentVolumeClaim({
      namespace,
      body: {
        metadata: { name: `${member}-data`, labels },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
      },
    });
    await core.createNamespacedPod({ namespace, body: memberPod });
  });
  after(async () => {
    await agent?.stop();
    await controlPlane?.stop();
  });

  test('GIVEN the member Pod WHEN it is Ready THEN its DNS name resolves to its Pod IP', async () => {
    const pod = await readyPod('member Ready');
    const podIP = pod.status?.podIP ?? '';
    assert.match(podIP, /^127\.1\.\d+\.\d+$/);
    assert.equal((await lookup(peerHost, { family: 4 })).address, podIP);
    assert.equal((await lookup(`${peerHost}.cluster.local`, { family: 4 })).address, podIP);
    assert.equal((await lookup(`${cluster}-client.${namespace}.svc`, { family: 4 })).address, podIP);
  });

  test('GIVEN the Ready member WHEN /health is asked through the client Service name THEN etcd answers healthy from the PVC', async () => {
    await readyPod('member Ready');
    const response = await fetch(`${clientURL}/health`);
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { health: 'true', reason: '' });
    const version = (await (await fetch(`${clientURL}/version`)).json()) as { etcdserver: string };
    assert.equal(version.etcdserver, etcdVersions['3.6']);
    const claimData = join(stateDir, 'pvc', namespace, `${member}-data`, 'data');
    assert.ok(readdirSync(join(claimData, 'member')).includes('wal'), 'the data dir is the claim directory');
    assert.equal(
      existsSync('/var/lib/etcd/data/member'),
      false,
      'nothing was written to the host /var/lib/etcd',
    );
  });

  test('GIVEN a key written to the member WHEN killContainer kills etcd THEN the agent restarts it and the key survives', async () => {
    await fetch(`${clientURL}/v3/kv/put`, {
      method: 'POST',
      body: JSON.stringify({
        key: Buffer.from('greeting').toString('base64'),
        value: Buffer.from('hello').toString('base64'),
      }),
    });
    assert.equal(await etcdGet(clientURL, 'greeting'), 'hello');
    const killed = agent.faults.killContainer(namespace, member, 'etcd');
    const restarted = await readyPod(
      'member Ready after a restart',
      (pod) => (pod.status?.containerStatuses?.[0]?.restartCount ?? 0) >= 1,
    );
    const status = restarted.status?.containerStatuses?.[0];
    assert.equal(status?.restartCount, 1);
    assert.equal(status?.lastState?.terminated?.exitCode, 137);
    assert.equal(status?.lastState?.terminated?.containerID, `agent://${killed}`);
    assert.notEqual(agent.containerPid(namespace, member, 'etcd'), killed);
    assert.equal(await etcdGet(clientURL, 'greeting'), 'hello');
  });

  test('fails when killContainer names a container that does not run, naming it', () => {
    assert.throws(
      () => agent.faults.killContainer(namespace, member, 'nope'),
      /no running container nope in pod agent-etcd\/c-0 on node-1/,
    );
  });
});
