// Member Pods of etcd 3.4 and 3.5 (probes, flags, learners differ by version): a size-3 cluster of each, formed by
// the controller process on the local Kubernetes one after the other, each Ready with three voters of its version
// and a writer that loses nothing.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { etcdVersions } from '../env/binaries.js';
import { type Environment, startEnvironment } from '../env/environment.js';
import { waitFor } from '../env/wait.js';
import {
  type ControllerProcesses,
  controllerProcesses,
} from '../integration/helpers/membership-controller.js';
import { createClusterHandle, podNames, prepareNamespace } from '../integration/helpers/membership-kube.js';
import { startWriter } from '../integration/helpers/membership-writer.js';

const ns = 'cluster-versions';

describe('EtcdCluster members of etcd 3.4 and 3.5', () => {
  let env: Environment;
  let controllers: ControllerProcesses;

  before(async () => {
    env = await startEnvironment({ nodes: 3 });
    await prepareNamespace(env, ns);
    controllers = await controllerProcesses({ kubeconfigPath: env.kubeconfigPath, namespace: ns });
    await controllers.start();
  });
  after(async () => {
    await controllers?.stop();
    await env?.stop();
  });

  for (const minor of ['3.4', '3.5'] as const) {
    const version = etcdVersions[minor];
    const name = `v${minor.replace('.', '')}`;
    test(`GIVEN a size-3 EtcdCluster of etcd ${version} WHEN applied THEN three voters of ${version}, Ready, a writer loses nothing`, async () => {
      const cluster = await createClusterHandle(env, ns, name);
      await cluster.apply({ size: 3, version });
      const status = await cluster.readyAt(3);
      assert.deepEqual(
        status.members?.map((member) => [member.name, member.learner, member.version]),
        [0, 1, 2].map((n) => [`${name}-${n}`, false, version]),
      );
      assert.equal(status.currentVersion, version);
      const membership = await cluster.membership();
      assert.deepEqual(membership.etcd, podNames(membership));
      const writer = startWriter(cluster.clientURL, `${name}/`);
      try {
        await waitFor(() => writer.acknowledged() >= 50, {
          what: '50 acknowledged writes',
          timeoutMs: 60_000,
        });
      } finally {
        await writer.stop();
      }
      assert.deepEqual(await writer.lost(), []);
    });
  }
});
