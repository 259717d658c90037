// The NetworkPolicy our constructs synthesize, enforced (kube-router's firewall on every node, test/env/nodes/
// kube-router.ts): dist/'s operator Deployment (our image, its shipped ServiceAccount and RBAC) forms a 3-member
// cluster whose policy admits Pods labelled `role: client` to the client port and the namespace `monitoring` to
// the metrics port. From Pods inside the cluster: the listed client reaches 2379 and nothing else, the scraper
// reaches 2381 and nothing else, a stranger in the cluster's own namespace reaches none of 2379, 2380 and 2381;
// the members peer (the cluster forms). This process is outside the Pod network and is admitted by nothing here,
// so every probe runs in a Pod. Then the controller's rule is taken out of the policy: the cluster's status says
// its members are unreachable (Degraded `MembersUnreachable`, a Warning Event that names NetworkPolicy), not a
// quorum loss; the synthesized policy applied again heals it. Last, the same controller meets an EtcdCluster applied
// by hand without its Services: Degraded `ServiceMissing` once 30 s have passed, healed by the construct's objects.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CoreV1Api, CustomObjectsApi, type V1Pod } from '@kubernetes/client-node';
import { App, Chart } from 'cdk8s';
import { DEFAULT_OPERATOR_NAMESPACE, memberSelectorString } from '../../constructs/conventions/index.js';
import { EtcdCluster as EtcdClusterConstruct } from '../../constructs/etcd-cluster.js';
import { restrictedContainerSecurityContext } from '../../constructs/security.js';
import type { EtcdCluster } from '../../controller/etcdcluster/api.js';
import { etcdVersions } from '../env/binaries.js';
import { type Environment, startEnvironment } from '../env/environment.js';
import { testImage } from '../env/nodes/test-image.js';
import { waitFor } from '../env/wait.js';

const ns = 'np-e2e';
const monitoring = 'monitoring';
const name = 'guarded';
const CLIENT = { role: 'client' };
/** kube-router rejects what a policy denies (REJECT, not DROP): the probe sees it at once. */
const REFUSED = /Connection refused/;

/** A busybox Pod that sleeps, to `kubectl exec` probes in. */
function probePod(podName: string, labels: Record<string, string>): V1Pod {
  return {
    metadata: { name: podName, labels },
    spec: {
      terminationGracePeriodSeconds: 1,
      containers: [
        {
          name: 'main',
          image: testImage,
          imagePullPolicy: 'IfNotPresent',
          command: ['sleep', '3600'],
          securityContext: { ...restrictedContainerSecurityContext(), runAsUser: 65532, runAsGroup: 65532 },
          resources: { limits: { memory: '16Mi', cpu: '100m' } },
        },
      ],
    },
  };
}

/** The user's app: a cluster `cluster` of `size`, managed by dist/'s operator. */
function clusterApp(cluster = name, size = 3): string {
  const app = new App();
  const chart = new Chart(app, 'np', { namespace: ns });
  new EtcdClusterConstruct(chart, cluster, {
    version: etcdVersions['3.6'],
    size,
    operatorNamespace: DEFAULT_OPERATOR_NAMESPACE,
    clients: [{ podSelector: CLIENT }],
    metricsFrom: [{ namespaceSelector: { 'kubernetes.io/metadata.name': monitoring } }],
  });
  return app.synthYaml();
}

describe('NetworkPolicy enforced', () => {
  let env: Environment;
  let core: CoreV1Api;
  let memberIps: string[] = [];

  const readCluster = async (cluster = name) =>
    (await env.kubeConfig.makeApiClient(CustomObjectsApi).getNamespacedCustomObject({
      group: 'etcd.gitops.dev',
      version: 'v1alpha1',
      namespace: ns,
      plural: 'etcdclusters',
      name: cluster,
    })) as EtcdCluster;
  const condition = (cluster: EtcdCluster, type: string) =>
    cluster.status?.conditions?.find((c) => c.type === type);

  /** `wget` from inside a probe Pod; its exit code and output. */
  const fetchFrom = async (namespace: string, pod: string, url: string) => {
    const result = await env.kubectl(
      // busybox 1.35's `wget -T` segfaults: `timeout` bounds it instead (a dropped packet would end in exit 143).
      ['exec', '-n', namespace, pod, '--', 'timeout', '5', 'wget', '-q', '-O', '-', url],
      { allowFailure: true },
    );
    return { ok: result.code === 0, output: `${result.stdout}${result.stderr}`.trim() };
  };
  /** Every member answers `path` on `port` from `pod`: the policy admits it. A new Pod's address reaches the
   *  enforcer's sets with its next sync, so this waits (at most 30 s) for the first success of each member. */
  const admitted = async (namespace: string, pod: string, port: number, path: string, expect: RegExp) => {
    for (const ip of memberIps) {
      const url = `http://${ip}:${port}${path}`;
      const answer = await waitFor(
        async () => {
          const fetched = await fetchFrom(namespace, pod, url);
          return fetched.ok && fetched.output;
        },
        { what: `${namespace}/${pod} to reach ${url}`, timeoutMs: 30_000, intervalMs: 1_000 },
      );
      assert.match(answer, expect, url);
    }
  };
  /** Every member refuses `port` to `pod`, in one try each (run after the same Pod was admitted elsewhere, or
   *  after another Pod was admitted to this port: the enforcer has synced). */
  const refused = async (namespace: string, pod: string, port: number, path: string) => {
    for (const ip of memberIps) {
      const url = `http://${ip}:${port}${path}`;
      const fetched = await fetchFrom(namespace, pod, url);
      assert.equal(fetched.ok, false, `${namespace}/${pod} reached ${url}: ${fetched.output}`);
      assert.match(fetched.output, REFUSED, url);
    }
  };

  before(async () => {
    env = await startEnvironment({ nodes: 3 });
    core = env.kubeConfig.makeApiClient(CoreV1Api);
    // dist/'s CRDs and operator (waves -2 and -1), as Argo CD syncs them.
    await env.applyDist({ belowWave: 0 });
    await env.createNamespace(ns, { 'pod-security.kubernetes.io/enforce': 'restricted' });
    await env.createNamespace(monitoring, { 'pod-security.kubernetes.io/enforce': 'restricted' });
    await env.kubectl(['apply', '--server-side', '-f', '-'], { input: clusterApp() });
    await core.createNamespacedPod({ namespace: ns, body: probePod('client', CLIENT) });
    await core.createNamespacedPod({ namespace: ns, body: probePod('stranger', { role: 'stranger' }) });
    await core.createNamespacedPod({
      namespace: monitoring,
      body: probePod('scraper', { role: 'prometheus' }),
    });
    for (const [namespace, pod] of [
      [ns, 'client'],
      [ns, 'stranger'],
      [monitoring, 'scraper'],
    ] as const) {
      await env.kubectl(['wait', '--for=condition=Ready', `pod/${pod}`, '-n', namespace, '--timeout=120s']);
    }
  });
  after(async () => {
    await env?.stop();
  });

  test("GIVEN the policy enforced WHEN dist/'s controller forms the cluster THEN the members peer: 3 voting members, Ready", async () => {
    const cluster = await waitFor(
      async () => {
        const read = await readCluster();
        return condition(read, 'Ready')?.status === 'True' && read.status?.members?.length === 3 && read;
      },
      { what: `EtcdCluster ${ns}/${name} Ready with 3 members`, timeoutMs: 300_000, intervalMs: 2_000 },
    );
    assert.ok(cluster.status?.members?.every((m) => m.learner === false && m.ready === true));
    const pods = await core.listNamespacedPod({ namespace: ns, labelSelector: memberSelectorString(name) });
    memberIps = pods.items.map((pod) => pod.status?.podIP as string);
    assert.equal(memberIps.filter(Boolean).length, 3);
  });

  test('WHEN a listed client connects THEN it reaches the client port, and not the peer or metrics port', async () => {
    await admitted(ns, 'client', 2379, '/health', /"health":"true"/);
    await refused(ns, 'client', 2380, '/version');
    await refused(ns, 'client', 2381, '/metrics');
  });

  test('WHEN the monitoring namespace scrapes THEN it reaches the metrics port, and not the client or peer port', async () => {
    await admitted(monitoring, 'scraper', 2381, '/metrics', /etcd_server_has_leader 1/);
    await refused(monitoring, 'scraper', 2379, '/health');
    await refused(monitoring, 'scraper', 2380, '/version');
  });

  test("WHEN a Pod of the cluster's own namespace outside `clients` connects THEN 2379, 2380 and 2381 refuse it", async () => {
    await refused(ns, 'stranger', 2379, '/health');
    await refused(ns, 'stranger', 2380, '/version');
    await refused(ns, 'stranger', 2381, '/metrics');
  });

  test("WHEN the controller's rule is taken out of the policy THEN the status says the members are unreachable (Degraded MembersUnreachable, a Warning Event naming NetworkPolicy), and the policy applied again heals it", async () => {
    const policy = JSON.parse(
      (await env.kubectl(['get', 'networkpolicy', name, '-n', ns, '-o', 'json'])).stdout,
    );
    const controllerPeer = policy.spec.ingress[1].from[0];
    assert.deepEqual(controllerPeer.namespaceSelector, {
      matchLabels: { 'kubernetes.io/metadata.name': DEFAULT_OPERATOR_NAMESPACE },
    });
    const cutAt = Date.now();
    await env.kubectl([
      'patch',
      'networkpolicy',
      name,
      '-n',
      ns,
      '--type=json',
      '-p',
      JSON.stringify([{ op: 'remove', path: '/spec/ingress/1/from/0' }]),
    ]);
    const degraded = await waitFor(
      async () => {
        const cluster = await readCluster();
        const cond = condition(cluster, 'Degraded');
        return cond?.status === 'True' && cond.reason === 'MembersUnreachable' && cluster;
      },
      // The member Pods have been Ready far longer than the 30 s the rule asks; a pass every 5 s.
      { what: 'Degraded MembersUnreachable', timeoutMs: 90_000, intervalMs: 1_000 },
    );
    assert.match(condition(degraded, 'Degraded')?.message ?? '', /NetworkPolicy/);
    assert.equal(condition(degraded, 'Available')?.reason, 'NoMemberAnswers');
    assert.equal(condition(degraded, 'Stalled')?.status, 'True');
    // The pass writes the status, then records its Events: the Warning follows the condition within that pass.
    const warning = await waitFor(
      async () =>
        (await core.listNamespacedEvent({ namespace: ns })).items.find(
          (e) =>
            e.reason === 'MembersUnreachable' &&
            e.type === 'Warning' &&
            e.involvedObject.name === name &&
            new Date(e.lastTimestamp ?? e.eventTime ?? 0).getTime() >= cutAt - 1_000,
        ),
      { what: `a Warning Event MembersUnreachable on ${name}`, timeoutMs: 15_000, intervalMs: 500 },
    );
    assert.match(warning.message ?? '', /NetworkPolicy/);
    // No member was touched: all three Pods still run, none restarted by the controller.
    const pods = await core.listNamespacedPod({ namespace: ns, labelSelector: memberSelectorString(name) });
    assert.deepEqual(pods.items.map((pod) => pod.status?.podIP).sort(), [...memberIps].sort());

    await env.kubectl(['apply', '--server-side', '--force-conflicts', '-f', '-'], { input: clusterApp() });
    await waitFor(
      async () => {
        const cluster = await readCluster();
        return (
          condition(cluster, 'Degraded')?.status === 'False' && condition(cluster, 'Ready')?.status === 'True'
        );
      },
      { what: 'the cluster Ready and not Degraded again', timeoutMs: 60_000, intervalMs: 1_000 },
    );
  });
  test("GIVEN an EtcdCluster applied by hand without the Services the construct makes WHEN its bound passes THEN it reads Degraded ServiceMissing naming both, with a Warning Event; the construct's objects applied heal it", async () => {
    const bare = 'bare';
    await env.kubectl(['apply', '--server-side', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'etcd.gitops.dev/v1alpha1',
        kind: 'EtcdCluster',
        metadata: { name: bare, namespace: ns },
        spec: { version: etcdVersions['3.6'], size: 1 },
      }),
    });
    const missing = await waitFor(
      async () => {
        const cluster = await readCluster(bare);
        const cond = condition(cluster, 'Degraded');
        return cond?.status === 'True' && cond.reason === 'ServiceMissing' && cluster;
      },
      // 30 s after creation (SERVICE_MISSING_AFTER_MS), then the next pass (every 2-5 s while it waits).
      { what: 'Degraded ServiceMissing', timeoutMs: 75_000, intervalMs: 1_000 },
    );
    // The bound runs from the creationTimestamp the API server recorded, which is truncated to whole seconds (up to a
    // second before the apply really happened), and the controller counts from it; the condition's
    // lastTransitionTime is truncated the same way, so the bound is checked on those two recorded times.
    const created = missing.metadata?.creationTimestamp;
    const since = condition(missing, 'Degraded')?.lastTransitionTime;
    assert.ok(created && since, "creationTimestamp and the condition's lastTransitionTime are set");
    const createdAt = new Date(String(created)).getTime();
    const reportedAt = new Date(since).getTime();
    assert.ok(
      reportedAt - createdAt >= 30_000,
      `Degraded since ${reportedAt - createdAt} ms after the recorded creation, before the 30 s bound`,
    );
    const message = condition(missing, 'Degraded')?.message ?? '';
    assert.match(
      message,
      /^Services bare-peer and bare-client are missing: .*The EtcdCluster construct synthesizes both/,
    );
    assert.equal(condition(missing, 'Stalled')?.status, 'True');
    await waitFor(
      async () =>
        (await core.listNamespacedEvent({ namespace: ns })).items.some(
          (e) => e.reason === 'ServiceMissing' && e.type === 'Warning' && e.involvedObject.name === bare,
        ),
      { what: `a Warning Event ServiceMissing on ${bare}`, timeoutMs: 15_000, intervalMs: 500 },
    );

    await env.kubectl(['apply', '--server-side', '--force-conflicts', '-f', '-'], {
      input: clusterApp(bare, 1),
    });
    await waitFor(
      async () => {
        const cluster = await readCluster(bare);
        return (
          condition(cluster, 'Ready')?.status === 'True' && condition(cluster, 'Degraded')?.status === 'False'
        );
      },
      {
        what: `${bare} Ready and not Degraded once its Services exist`,
        timeoutMs: 120_000,
        intervalMs: 1_000,
      },
    );
  });
});
