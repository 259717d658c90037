// The member that leaves (docs/design/membership.md, "The member that leaves, and evict-and-replace"), by the
// controller process on the local Kubernetes while a writer runs: a size-5 cluster scaled to 3 with member 1 marked
// `etcd.gitops.dev/evict=true` loses member 1 and the highest index, not members 3 and 4; then member 2, marked at
// size 3, is replaced by a new member added first; retained PVCs are never reused; no acknowledged write is lost.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CoreV1Api } from '@kubernetes/client-node';
import { ANNOTATION_EVICT } from '../../constructs/conventions/index.js';
import { etcdVersions } from '../env/binaries.js';
import { type Environment, startEnvironment } from '../env/environment.js';
import { waitFor } from '../env/wait.js';
import {
  type ControllerProcesses,
  controllerProcesses,
} from '../integration/helpers/membership-controller.js';
import {
  type ClusterHandle,
  createClusterHandle,
  type Membership,
  podNames,
  prepareNamespace,
} from '../integration/helpers/membership-kube.js';
import { startWriter, type Writer } from '../integration/helpers/membership-writer.js';

const ns = 'cluster-evict';
const name = 'ev';
const member = (n: number) => `${name}-${n}`;
const spec = { size: 5, version: etcdVersions['3.6'] };

describe('EtcdCluster: the member that leaves', () => {
  let env: Environment;
  let controllers: ControllerProcesses;
  let cluster: ClusterHandle;
  let writer: Writer;

  const mark = (n: number) =>
    env.kubectl(['annotate', 'pod', member(n), '-n', ns, `${ANNOTATION_EVICT}=true`]);
  /** Ready at `size` with exactly these members in etcd and as Pods. */
  const membersAre = (names: string[]) =>
    waitFor(
      async () => {
        const status = (await cluster.read()).status;
        const ready = status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
        if (!ready) return false;
        const membership: Membership = await cluster.membership();
        return (
          JSON.stringify(membership.etcd) === JSON.stringify(names) &&
          JSON.stringify(podNames(membership)) === JSON.stringify(names) &&
          membership
        );
      },
      { what: `members ${names.join(', ')}`, timeoutMs: 300_000, intervalMs: 1_000 },
    );

  before(async () => {
    env = await startEnvironment({ nodes: 3 });
    await prepareNamespace(env, ns);
    cluster = await createClusterHandle(env, ns, name);
    controllers = await controllerProcesses(env, { namespaces: [ns] });
    await controllers.start();
    await cluster.apply(spec);
    await cluster.readyAt(5);
    writer = startWriter(cluster.clientURL, 'evict/');
  });
  after(async () => {
    await writer?.stop();
    await controllers?.stop();
    await env?.stop();
  });

  test('GIVEN size 5 and ev-1 marked WHEN the size is 3 THEN ev-1 and ev-4 leave, not ev-3; their PVCs are retained', async () => {
    // Marked and scaled in one go, as a Git change and an annotation may arrive in any order: paused between them
    // (a mark alone at size 5 would first add a replacement for ev-1).
    await cluster.apply({ ...spec, paused: true });
    await mark(1);
    await cluster.apply({ ...spec, size: 3 });
    const membership = await membersAre([member(0), member(2), member(3)]);
    assert.deepEqual(
      membership.pvcs,
      [0, 1, 2, 3, 4].map((n) => `${member(n)}-data`),
    );
    const removed = await env.kubeConfig.makeApiClient(CoreV1Api).listNamespacedEvent({
      namespace: ns,
      fieldSelector: `involvedObject.name=${name},reason=MemberRemoved`,
    });
    const messages = removed.items.map((event) => event.message ?? '');
    assert.ok(
      messages.some((message) => message.startsWith(`removed member ${member(1)} (evict`)),
      messages.join('\n'),
    );
    assert.ok(
      messages.some((message) => message.startsWith(`removed member ${member(4)} (scale-in`)),
      messages.join('\n'),
    );
  });

  test('GIVEN size 3 WHEN ev-2 is marked THEN a new member ev-5 joins first (retained names skipped), then ev-2 leaves; writes go on and none is lost', async () => {
    const before = writer.acknowledged();
    await mark(2);
    // The replacement is added first: four voters for a while, never two.
    const grown = await waitFor(
      async () => {
        const membership = await cluster.membership();
        return membership.etcd.includes(member(5)) && membership;
      },
      { what: `${member(5)} added`, timeoutMs: 180_000, intervalMs: 500 },
    );
    assert.ok(grown.etcd.includes(member(2)), 'the marked member is still there when its replacement joins');
    await membersAre([member(0), member(3), member(5)]);
    await waitFor(() => writer.acknowledged() > before + 50, {
      what: 'writes after the replacement',
      timeoutMs: 60_000,
    });
    await writer.stop();
    assert.deepEqual(await writer.lost(), []);
  });
});
