// The informer against a real kube-apiserver: it sees created, updated and deleted objects of its label
// selector only, and it recovers by itself when its connections are reset (via a TCP proxy we control).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CoreV1Api, type V1Pod } from '@kubernetes/client-node';
import { pino } from 'pino';
import { managedBySelector } from '../../constructs/conventions/labels.js';
import { Informer, type InformerEvent } from '../../controller/runtime/informer.js';
import { PodResource } from '../../controller/runtime/resources.js';
import { type ControlPlane, startControlPlane } from '../env/control-plane.js';
import { waitFor } from '../env/wait.js';
import { createNamespace, pod, viaPort } from './runtime-support.js';
import { startTcpProxy, type TcpProxy } from './runtime-tcp-proxy.js';

const log = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
const managed = { 'app.kubernetes.io/managed-by': 'etcd-gitops', 'app.kubernetes.io/instance': 'main' };

/** Every event an informer emitted, as `event name`. */
function record(informer: Informer<V1Pod>): string[] {
  const seen: string[] = [];
  informer.on((event: InformerEvent, object: V1Pod) => seen.push(`${event} ${object.metadata?.name}`));
  return seen;
}

describe('Informer against a real API server', { timeout: 300_000 }, () => {
  let cp: ControlPlane;
  let core: CoreV1Api;
  const stops: Array<() => Promise<void>> = [];

  before(async () => {
    cp = await startControlPlane();
    core = cp.kubeConfig.makeApiClient(CoreV1Api);
  });
  after(async () => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    await cp?.stop();
  });

  it('sees labelled Pods created, updated and deleted, and never unlabelled ones', async () => {
    // GIVEN a namespace with one labelled Pod before the informer starts, and an informer on the label
    const namespace = await createNamespace(cp.kubeConfig, 'informer');
    await core.createNamespacedPod({ namespace, body: pod(namespace, 'early', managed) });
    const informer = new Informer<V1Pod>({
      kubeConfig: cp.kubeConfig,
      resource: PodResource,
      namespace,
      labelSelector: managedBySelector,
      log,
    });
    const seen = record(informer);
    informer.start();
    stops.push(() => informer.stop());
    await informer.whenSynced();
    // WHEN a labelled and an unlabelled Pod are created, the labelled one updated, the early one deleted
    await core.createNamespacedPod({ namespace, body: pod(namespace, 'late', managed) });
    await core.createNamespacedPod({ namespace, body: pod(namespace, 'foreign', { app: 'other' }) });
    await core.patchNamespacedPod({
      namespace,
      name: 'late',
      body: [{ op: 'add', path: '/metadata/annotations', value: { touched: 'yes' } }],
    });
    await core.deleteNamespacedPod({ namespace, name: 'early', gracePeriodSeconds: 0 });
    await waitFor(() => seen.includes('delete early') && seen.includes('update late'), {
      what: `informer events (seen: ${seen.join(', ')})`,
    });
    // THEN it saw each Pod added before any update of it, the update of 'late', and the delete of 'early' last (the
    // API server's own updates, such as the scheduler's condition or the deletion timestamp, may come in between,
    // even before 'late' is added), and never anything about the unlabelled Pod
    assert.equal(seen[0], 'add early');
    assert.ok(seen.indexOf('add late') < seen.indexOf('update late'), seen.join(', '));
    assert.equal(seen.filter((entry) => entry.startsWith('add ')).length, 2, seen.join(', '));
    assert.equal(seen.at(-1), 'delete early');
    assert.ok(!seen.some((entry) => entry.endsWith(' foreign')), `unlabelled Pod seen: ${seen.join(', ')}`);
    assert.deepEqual(
      informer.list(namespace).map((p) => p.metadata?.name),
      ['late'],
    );
    const cached = informer.get(namespace, 'late');
    assert.equal(cached?.metadata?.annotations?.touched, 'yes');
    // AND objects have the typed clients' shape (timestamps as Dates), both from LIST and from WATCH
    assert.ok(cached?.metadata?.creationTimestamp instanceof Date);
    assert.equal(cached?.kind, 'Pod');
    assert.equal(informer.errors, 0);
  });

  it('keeps working after its connections to the API server are reset, and catches up on what it missed', async () => {
    // GIVEN an informer that reaches the API server through a proxy, with a fast backoff
    const proxy: TcpProxy = await startTcpProxy(Number(new URL(cp.server).port));
    stops.push(() => proxy.close());
    const namespace = await createNamespace(cp.kubeConfig, 'informer-reset');
    await core.createNamespacedPod({ namespace, body: pod(namespace, 'before', managed) });
    const informer = new Informer<V1Pod>({
      kubeConfig: viaPort(cp.kubeConfig, proxy.port),
      resource: PodResource,
      namespace,
      labelSelector: managedBySelector,
      log,
      backoff: { initialMs: 50, maxMs: 200 },
    });
    const seen = record(informer);
    informer.start();
    stops.push(() => informer.stop());
    await informer.whenSynced();
    // WHEN every connection is reset and refused, and meanwhile a Pod is deleted and another created
    proxy.cut();
    await core.deleteNamespacedPod({ namespace, name: 'before', gracePeriodSeconds: 0 });
    await core.createNamespacedPod({ namespace, body: pod(namespace, 'during', managed) });
    await waitFor(() => informer.errors >= 2, { what: 'the informer to notice the broken connection twice' });
    // AND the connections are allowed again
    proxy.restore();
    await waitFor(() => seen.includes('add during') && seen.includes('delete before'), {
      what: `the informer to catch up (seen: ${seen.join(', ')})`,
    });
    // THEN it caught up on both changes through a fresh LIST, and keeps watching afterwards
    await core.createNamespacedPod({ namespace, body: pod(namespace, 'after', managed) });
    await waitFor(() => seen.includes('add after'), {
      what: `the informer to see 'after' (seen: ${seen.join(', ')})`,
    });
    assert.ok(proxy.resets > 0, 'the proxy reset at least one live connection');
    assert.deepEqual(
      informer
        .list(namespace)
        .map((p) => p.metadata?.name)
        .sort(),
      ['after', 'during'],
    );
  });
});
