// The Kubernetes helpers and the Event recorder against a real kube-apiserver: status merge-patch through the
// /status subresource of a CRD made here (a 404 counted as "gone" only when the object is), server-side apply,
// "not found is success" deletes, Events aggregated.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiextensionsV1Api, CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { pino } from 'pino';
import { KubeEventRecorder } from '../../controller/runtime/events.js';
import {
  applyObject,
  deleteIgnoringNotFound,
  patchStatus,
  patchStatusUnlessGone,
} from '../../controller/runtime/kube.js';
import { type ControlPlane, startControlPlane } from '../env/control-plane.js';
import { waitFor } from '../env/wait.js';
import { createNamespace } from './runtime-support.js';

const log = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
const widgets = { group: 'runtime-test.example.com', version: 'v1', plural: 'widgets' };
/** The same kind of object without the status subresource. */
const gadgets = { group: 'runtime-test.example.com', version: 'v1', plural: 'gadgets' };

interface Widget {
  metadata: { name: string; namespace: string; generation?: number; uid?: string };
  spec?: { size?: number };
  status?: Record<string, unknown>;
}

/** A small CRD, with a status subresource or without, made by this test (not the product's CRDs). */
async function installCrd(
  cp: ControlPlane,
  resource: typeof widgets,
  kind: string,
  withStatus: boolean,
): Promise<void> {
  const api = cp.kubeConfig.makeApiClient(ApiextensionsV1Api);
  const singular = kind.toLowerCase();
  await api.createCustomResourceDefinition({
    body: {
      metadata: { name: `${resource.plural}.${resource.group}` },
      spec: {
        group: resource.group,
        scope: 'Namespaced',
        names: { plural: resource.plural, singular, kind, listKind: `${kind}List` },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            ...(withStatus ? { subresources: { status: {} } } : {}),
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: {
                  spec: { type: 'object', properties: { size: { type: 'integer' } } },
                  status: { type: 'object', x_kubernetes_preserve_unknown_fields: true },
                },
              },
            },
          },
        ],
      },
    },
  });
  const objects = cp.kubeConfig.makeApiClient(CustomObjectsApi);
  await waitFor(() => objects.listClusterCustomObject(resource).then(() => true), {
    what: `the ${kind} CRD to serve`,
  });
}

describe('Kubernetes helpers and Events against a real API server', { timeout: 300_000 }, () => {
  let cp: ControlPlane;
  let namespace: string;

  before(async () => {
    cp = await startControlPlane();
    await installCrd(cp, widgets, 'Widget', true);
    await installCrd(cp, gadgets, 'Gadget', false);
    namespace = await createNamespace(cp.kubeConfig, 'kube-helpers');
  });
  after(() => cp?.stop());

  it('patchStatus merges into status through the subresource and leaves spec and generation alone', async () => {
    // GIVEN a Widget with spec.size 3
    const objects = cp.kubeConfig.makeApiClient(CustomObjectsApi);
    const created = (await objects.createNamespacedCustomObject({
      ...widgets,
      namespace,
      body: {
        apiVersion: `${widgets.group}/v1`,
        kind: 'Widget',
        metadata: { name: 'w1' },
        spec: { size: 3 },
      },
    })) as Widget;
    // WHEN status is patched twice, the second time removing one field and adding another
    await patchStatus(
      cp.kubeConfig,
      widgets,
      { namespace, name: 'w1' },
      { phase: 'Growing', readyMembers: 1 },
    );
    const patched = await patchStatus<Widget>(
      cp.kubeConfig,
      widgets,
      { namespace, name: 'w1' },
      { phase: null, replicas: 3 },
    );
    // THEN status holds the merge of both, spec and generation are untouched
    assert.deepEqual(patched.status, { readyMembers: 1, replicas: 3 });
    assert.deepEqual(patched.spec, { size: 3 });
    assert.equal(patched.metadata.generation, created.metadata.generation);
  });

  it('fails when status is patched on an object that does not exist, with status 404', async () => {
    await assert.rejects(
      patchStatus(cp.kubeConfig, widgets, { namespace, name: 'missing' }, { phase: 'x' }),
      (error: { code?: number }) => error.code === 404,
    );
  });

  it('patchStatusUnlessGone writes an existing status, says false for an object that is gone, and fails with 404 where the status subresource is missing', async () => {
    const objects = cp.kubeConfig.makeApiClient(CustomObjectsApi);
    const create = (resource: typeof widgets, kind: string, name: string) =>
      objects.createNamespacedCustomObject({
        ...resource,
        namespace,
        body: { apiVersion: `${resource.group}/v1`, kind, metadata: { name }, spec: { size: 1 } },
      });
    // GIVEN a Widget that exists, and one created and then deleted
    await create(widgets, 'Widget', 'w2');
    await create(widgets, 'Widget', 'w3');
    await objects.deleteNamespacedCustomObject({ ...widgets, namespace, name: 'w3' });
    // WHEN status is written to each
    const existing = await patchStatusUnlessGone(
      cp.kubeConfig,
      widgets,
      { namespace, name: 'w2' },
      { phase: 'x' },
    );
    const gone = await patchStatusUnlessGone(
      cp.kubeConfig,
      widgets,
      { namespace, name: 'w3' },
      { phase: 'x' },
    );
    // THEN the existing one holds it, the deleted one is reported gone without an error
    assert.equal(existing, true);
    const read = (await objects.getNamespacedCustomObject({ ...widgets, namespace, name: 'w2' })) as Widget;
    assert.deepEqual(read.status, { phase: 'x' });
    assert.equal(gone, false);
    // AND a Gadget that exists, whose CRD has no status subresource, still fails with the 404
    await create(gadgets, 'Gadget', 'g1');
    await assert.rejects(
      patchStatusUnlessGone(cp.kubeConfig, gadgets, { namespace, name: 'g1' }, { phase: 'x' }),
      (error: { code?: number }) => error.code === 404,
    );
  });

  it('applyObject creates and then updates an object by server-side apply, as our field manager', async () => {
    // GIVEN a ConfigMap applied once
    const configMap = (data: Record<string, string>) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'applied', namespace },
      data,
    });
    await applyObject(cp.kubeConfig, configMap({ a: '1' }));
    // WHEN applied again with other data
    await applyObject(cp.kubeConfig, configMap({ b: '2' }));
    // THEN the second apply owns the data: a is gone, b is set, and the manager is ours
    const read = await cp.kubeConfig
      .makeApiClient(CoreV1Api)
      .readNamespacedConfigMap({ name: 'applied', namespace });
    assert.deepEqual(read.data, { b: '2' });
    assert.ok(read.metadata?.managedFields?.some((field) => field.manager === 'etcd-gitops-controller'));
  });

  it('deleteIgnoringNotFound deletes once and then reports "already gone" without failing', async () => {
    // GIVEN a ConfigMap
    const core = cp.kubeConfig.makeApiClient(CoreV1Api);
    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'doomed' } } });
    const remove = () => core.deleteNamespacedConfigMap({ namespace, name: 'doomed' });
    // WHEN deleted twice, THEN the first call deleted it and the second found nothing, without error
    assert.equal(await deleteIgnoringNotFound(remove), true);
    assert.equal(await deleteIgnoringNotFound(remove), false);
  });

  it('records Events about an object and counts repeats on one Event', async () => {
    // GIVEN a recorder and an object with a uid
    const core = cp.kubeConfig.makeApiClient(CoreV1Api);
    const subject = await core.createNamespacedConfigMap({
      namespace,
      body: { metadata: { name: 'subject' } },
    });
    const recorder = new KubeEventRecorder({ kubeConfig: cp.kubeConfig, log, instance: 'test-instance' });
    const about = { apiVersion: 'v1', kind: 'ConfigMap', metadata: subject.metadata ?? {} };
    // WHEN the same Event is recorded three times and another one once
    for (let i = 0; i < 3; i += 1)
      await recorder.event(about, 'Warning', 'MemberUnhealthy', 'member main-1 is down');
    await recorder.event(about, 'Normal', 'MemberAdded', 'added learner main-2');
    // THEN there are two Events: the repeated one with count 3, both about the object (by uid)
    const events = (await core.listNamespacedEvent({ namespace })).items.filter(
      (event) => event.involvedObject.name === 'subject',
    );
    assert.equal(events.length, 2);
    const repeated = events.find((event) => event.reason === 'MemberUnhealthy');
    assert.equal(repeated?.count, 3);
    assert.equal(repeated?.type, 'Warning');
    assert.equal(repeated?.involvedObject.uid, subject.metadata?.uid);
    assert.match(repeated?.metadata?.name ?? '', /^subject\.[0-9a-f]{16}$/);
    assert.equal(repeated?.source?.component, 'etcd-gitops-controller');
    assert.equal(repeated?.reportingComponent, 'etcd-gitops-controller');
    assert.equal(repeated?.reportingInstance, 'test-instance');
    assert.ok(repeated?.eventTime, 'eventTime is set');
    assert.ok((repeated?.lastTimestamp?.getTime() ?? 0) >= (repeated?.firstTimestamp?.getTime() ?? Infinity));
    assert.equal(events.find((event) => event.reason === 'MemberAdded')?.count, 1);
  });
});
