// The node agent runs Pods as a kubelet would, proven on the real control plane: init containers,
// readiness, crash-loop backoff, graceful deletion, Jobs, volumes and PVCs that outlive their Pods.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { BatchV1Api, CoreV1Api, type V1Container, type V1Pod } from '@kubernetes/client-node';
import { startNodeAgent } from '../env/agent/index.js';
import type { NodeAgent } from '../env/agent/node-agent.js';
import { type ControlPlane, startControlPlane } from '../env/control-plane.js';
import { defaultLogger } from '../env/log.js';
import { createNamespace } from '../env/namespaces.js';
import { waitFor } from '../env/wait.js';

const namespace = 'agent-pods';
const backoffBaseMs = 3_000;
const downwardEnv: V1Container['env'] = [
  { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
  { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
];

function busybox(name: string, script: string, extra: Partial<V1Container> = {}): V1Container {
  return { name, image: 'busybox', command: ['sh', '-c', script], env: downwardEnv, ...extra };
}

function pod(name: string, spec: Partial<NonNullable<V1Pod['spec']>> & { containers: V1Container[] }): V1Pod {
  return { metadata: { name, namespace }, spec: { terminationGracePeriodSeconds: 5, ...spec } };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('node agent: Pods as local processes', () => {
  let controlPlane: ControlPlane;
  let agent: NodeAgent;
  let core: CoreV1Api;
  let stateDir: string;
  const startedPids = new Set<number>();

  const readPod = (name: string) => core.readNamespacedPod({ namespace, name });
  const podWhere = (name: string, what: string, check: (pod: V1Pod) => boolean, timeoutMs = 60_000) =>
    waitFor(
      async () => {
        const current = await readPod(name);
        return check(current) ? current : undefined;
      },
      { what: `pod ${name}: ${what}`, timeoutMs, intervalMs: 200 },
    );
  const podGone = (name: string) =>
    waitFor(
      async () => {
        try {
          await readPod(name);
          return false;
        } catch (error) {
          return (error as { code?: number }).code === 404;
        }
      },
      { what: `pod ${name} removed` },
    );
  const condition = (p: V1Pod, type: string) => p.status?.conditions?.find((c) => c.type === type)?.status;
  const recordPid = (name: string, container?: string) => {
    const pid = agent.containerPid(namespace, name, container);
    if (pid) startedPids.add(pid);
    return pid;
  };

  before(async () => {
    const log = defaultLogger();
    controlPlane = await startControlPlane({ log });
    stateDir = join(controlPlane.dir, 'agent');
    core = controlPlane.kubeConfig.makeApiClient(CoreV1Api);
    agent = await startNodeAgent({
      kubeConfig: controlPlane.kubeConfig,
      stateDir,
      log,
      backoff: { baseMs: backoffBaseMs },
    });
    await createNamespace(controlPlane.kubeConfig, namespace);
  });
  after(async () => {
    await agent?.stop();
    await controlPlane?.stop();
  });

  test('GIVEN a Pod with an init container WHEN it runs THEN the init container finishes first and the container turns Ready with its own address', async () => {
    await core.createNamespacedPod({
      namespace,
      body: pod('init-then-main', {
        initContainers: [
          busybox('init', 'echo hello-from-init > /work/greeting', {
            volumeMounts: [{ name: 'work', mountPath: '/work' }],
          }),
        ],
        containers: [
          busybox(
            'main',
            'cat /work/greeting; echo "ip=$POD_IP name=$(POD_NAME)"; touch /work/ready-$POD_NAME; exec sleep 3600',
            {
              volumeMounts: [{ name: 'work', mountPath: '/work' }],
              readinessProbe: {
                exec: { command: ['test', '-f', '/work/ready-init-then-main'] },
                periodSeconds: 1,
              },
            },
          ),
        ],
        volumes: [{ name: 'work', emptyDir: {} }],
      }),
    });
    const ready = await podWhere('init-then-main', 'Ready', (p) => condition(p, 'Ready') === 'True');
    assert.equal(ready.status?.phase, 'Running');
    assert.equal(ready.status?.initContainerStatuses?.[0]?.state?.terminated?.exitCode, 0);
    assert.equal(condition(ready, 'Initialized'), 'True');
    assert.equal(ready.status?.containerStatuses?.[0]?.ready, true);
    assert.equal(ready.status?.hostIP, '127.0.0.1');
    const podIP = ready.status?.podIP ?? '';
    assert.match(podIP, /^127\.1\.\d+\.\d+$/);
    const log = agent.logs(namespace, 'init-then-main');
    assert.match(log, /hello-from-init/);
    assert.ok(log.includes(`ip=${podIP} name=init-then-main`), log);
    recordPid('init-then-main');
  });

  test('GIVEN a container that keeps failing WHEN it is restarted THEN restartCount grows and the waits between starts grow', async () => {
    await core.createNamespacedPod({
      namespace,
      body: pod('crashloop', { containers: [busybox('main', 'echo attempt; exit 3')] }),
    });
    // Every attempt has its own containerID; collect each attempt's start time from the status.
    const starts = new Map<string, number>();
    let sawBackOff = false;
    const final = await waitFor(
      async () => {
        const current = await readPod('crashloop');
        const status = current.status?.containerStatuses?.[0];
        for (const state of [status?.state, status?.lastState]) {
          const attempt = state?.running ?? state?.terminated;
          const id = state?.terminated?.containerID ?? status?.containerID;
          if (attempt?.startedAt && id && !starts.has(id))
            starts.set(id, new Date(attempt.startedAt).getTime());
        }
        if (status?.state?.waiting?.reason === 'CrashLoopBackOff') sawBackOff = true;
        return starts.size >= 4 && (status?.restartCount ?? 0) >= 3 ? current : undefined;
      },
      { what: 'four attempts of the crashing container', timeoutMs: 90_000, intervalMs: 200 },
    );
    const times = [...starts.values()].sort((a, b) => a - b);
    const intervals = times.slice(1).map((t, i) => (t - (times[i] ?? 0)) / 1000);
    assert.ok(sawBackOff, 'state.waiting.reason CrashLoopBackOff between attempts');
    assert.equal(final.status?.containerStatuses?.[0]?.lastState?.terminated?.exitCode, 3);
    assert.equal(final.status?.containerStatuses?.[0]?.lastState?.terminated?.reason, 'Error');
    assert.equal(final.status?.phase, 'Running');
    for (let i = 1; i < intervals.length; i++) {
      assert.ok(
        (intervals[i] ?? 0) > (intervals[i - 1] ?? 0),
        `intervals between starts grow: ${intervals.join(', ')} s`,
      );
    }
    await core.deleteNamespacedPod({ namespace, name: 'crashloop' });
  });

  test('GIVEN a running Pod that ignores SIGTERM WHEN it is deleted THEN its processes are gone and so is the Pod', async () => {
    await core.createNamespacedPod({
      namespace,
      body: pod('stubborn', { containers: [busybox('main', "trap '' TERM; while true; do sleep 1; done")] }),
    });
    await podWhere(
      'stubborn',
      'Running',
      (p) => p.status?.containerStatuses?.[0]?.state?.running !== undefined,
    );
    const pid = recordPid('stubborn');
    assert.ok(pid && alive(pid), 'the container process runs');
    await core.deleteNamespacedPod({ namespace, name: 'stubborn', gracePeriodSeconds: 2 });
    await podGone('stubborn');
    assert.equal(alive(pid), false, `pid ${pid} is gone`);
  });

  test('GIVEN a Job WHEN its Pod exits 0 THEN the Pod is Succeeded and the Job complete', async () => {
    const batch = controlPlane.kubeConfig.makeApiClient(BatchV1Api);
    await batch.createNamespacedJob({
      namespace,
      body: {
        metadata: { name: 'once', namespace },
        spec: {
          backoffLimit: 0,
          template: { spec: { restartPolicy: 'Never', containers: [busybox('main', 'echo job-done')] } },
        },
      },
    });
    const job = await waitFor(
      async () => {
        const current = await batch.readNamespacedJob({ namespace, name: 'once' });
        return (current.status?.succeeded ?? 0) >= 1 ? current : undefined;
      },
      { what: 'job once succeeded' },
    );
    assert.equal(job.status?.failed ?? 0, 0);
    const pods = await core.listNamespacedPod({ namespace, labelSelector: 'job-name=once' });
    assert.equal(pods.items.length, 1);
    const jobPod = pods.items[0];
    assert.equal(jobPod?.status?.phase, 'Succeeded');
    assert.equal(jobPod?.status?.containerStatuses?.[0]?.state?.terminated?.reason, 'Completed');
    assert.match(agent.logs(namespace, jobPod?.metadata?.name ?? ''), /job-done/);
  });

  test('GIVEN a PVC WHEN a Pod writes to it and is replaced THEN the new Pod reads the data, and the host path is untouched', async () => {
    const mountPath = '/var/lib/etcd-gitops-agent-e2e';
    await core.createNamespacedPersistentVolumeClaim({
      namespace,
      body: {
        metadata: { name: 'data', namespace },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
      },
    });
    const claim = await waitFor(
      async () => {
        const current = await core.readNamespacedPersistentVolumeClaim({ namespace, name: 'data' });
        return current.status?.phase === 'Bound' ? current : undefined;
      },
      { what: 'claim data Bound' },
    );
    assert.ok(claim.spec?.volumeName, 'the claim names its volume');
    const withClaim = (name: string, script: string) =>
      pod(name, {
        restartPolicy: 'Never',
        containers: [busybox('main', script, { volumeMounts: [{ name: 'data', mountPath }] })],
        volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data' } }],
      });
    await core.createNamespacedPod({ namespace, body: withClaim('writer', `echo kept > ${mountPath}/file`) });
    await podWhere('writer', 'Succeeded', (p) => p.status?.phase === 'Succeeded');
    assert.equal(
      existsSync(join(mountPath, 'file')),
      false,
      'the write went to the claim, not the host path',
    );
    assert.equal(readFileSync(join(stateDir, 'pvc', namespace, 'data', 'file'), 'utf8'), 'kept\n');
    await core.deleteNamespacedPod({ namespace, name: 'writer' });
    await podGone('writer');
    await core.createNamespacedPod({ namespace, body: withClaim('reader', `cat ${mountPath}/file`) });
    await podWhere('reader', 'Succeeded', (p) => p.status?.phase === 'Succeeded');
    assert.equal(agent.logs(namespace, 'reader'), 'kept\n');
  });

  test('GIVEN secret, configMap, downwardAPI and service account volumes WHEN a Pod mounts them THEN it reads their files with their modes', async () => {
    await core.createNamespacedSecret({
      namespace,
      body: { metadata: { name: 'creds' }, stringData: { user: 'root', pass: 's3cr3t' } },
    });
    await core.createNamespacedConfigMap({
      namespace,
      body: { metadata: { name: 'settings' }, data: { 'level.conf': 'debug' } },
    });
    const script = [
      'cat /etc/creds/password; echo',
      'stat -c %a /etc/creds/password',
      'cat /etc/settings/level.conf; echo',
      'cat /etc/podinfo/name; echo',
      'cat /var/run/secrets/kubernetes.io/serviceaccount/namespace; echo',
      'test -s /var/run/secrets/kubernetes.io/serviceaccount/token && echo token-present',
      'grep -q "BEGIN CERTIFICATE" /var/run/secrets/kubernetes.io/serviceaccount/ca.crt && echo ca-present',
      'touch /etc/creds/new 2>/dev/null || echo read-only',
      'echo "$USER_FROM_ENV"',
      'cat /etc/resolv.conf | head -1',
    ].join('; ');
    await core.createNamespacedPod({
      namespace,
      body: pod('volumes', {
        restartPolicy: 'Never',
        containers: [
          busybox('main', script, {
            env: [{ name: 'USER_FROM_ENV', valueFrom: { secretKeyRef: { name: 'creds', key: 'user' } } }],
            volumeMounts: [
              { name: 'creds', mountPath: '/etc/creds' },
              { name: 'settings', mountPath: '/etc/settings' },
              { name: 'podinfo', mountPath: '/etc/podinfo' },
            ],
          }),
        ],
        volumes: [
          {
            name: 'creds',
            secret: { secretName: 'creds', items: [{ key: 'pass', path: 'password', mode: 0o600 }] },
          },
          { name: 'settings', configMap: { name: 'settings' } },
          {
            name: 'podinfo',
            downwardAPI: { items: [{ path: 'name', fieldRef: { fieldPath: 'metadata.name' } }] },
          },
        ],
      }),
    });
    await podWhere('volumes', 'Succeeded', (p) => p.status?.phase === 'Succeeded');
    assert.deepEqual(agent.logs(namespace, 'volumes').trim().split('\n'), [
      's3cr3t',
      '600',
      'debug',
      'volumes',
      namespace,
      'token-present',
      'ca-present',
      'read-only',
      'root',
      'nameserver 127.0.0.1',
    ]);
  });

  test('fails when the image is unknown: the Pod stays Pending with ErrImagePull naming the image', async () => {
    await core.createNamespacedPod({
      namespace,
      body: pod('unknown-image', { containers: [{ name: 'main', image: 'nginx:1.27' }] }),
    });
    const pending = await podWhere(
      'unknown-image',
      'ErrImagePull',
      (p) => p.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'ErrImagePull',
    );
    assert.equal(pending.status?.phase, 'Pending');
    assert.match(
      pending.status?.containerStatuses?.[0]?.state?.waiting?.message ?? '',
      /image "nginx:1\.27" is not in the node agent's image table/,
    );
  });

  test('fails when a referenced Secret is missing: the container waits with CreateContainerConfigError naming it', async () => {
    await core.createNamespacedPod({
      namespace,
      body: pod('missing-secret', {
        containers: [
          busybox('main', 'true', {
            env: [{ name: 'X', valueFrom: { secretKeyRef: { name: 'absent', key: 'k' } } }],
          }),
        ],
      }),
    });
    const waiting = await podWhere(
      'missing-secret',
      'CreateContainerConfigError',
      (p) => p.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'CreateContainerConfigError',
    );
    assert.match(
      waiting.status?.containerStatuses?.[0]?.state?.waiting?.message ?? '',
      /secret "absent" not found/,
    );
  });

  test('GIVEN running Pods WHEN the agent stops THEN none of its processes remain and its hosts block is gone', async () => {
    recordPid('init-then-main');
    assert.ok(startedPids.size > 0);
    await agent.stop();
    for (const pid of startedPids) assert.equal(alive(pid), false, `pid ${pid} is gone`);
    assert.doesNotMatch(
      readFileSync('/etc/hosts', 'utf8'),
      new RegExp(`etcd-gitops-agent node-1 ${process.pid}\\b`),
    );
    assert.equal(
      existsSync('/var/lib/etcd-gitops-agent-e2e'),
      false,
      'mount points the agent created are removed',
    );
  });
});
