// Member Pods of etcd 3.4 and 3.5 (probes, flags, learners differ by version): a size-3 cluster of each, formed by
// the controller process on the local Kubernetes one after the other, each Ready with three voters of its version
// and a writer that loses nothing. The controller runs in the namespace-scoped mode (EtcdOperator watchNamespaces):
// each cluster in its own watched namespace, the controller holding only the Roles the operator synthesizes for
// them (and get on Nodes), and no right at all in a namespace it does not watch.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { restrictedNamespaceLabels } from '../../constructs/security.js';
import { etcdVersions } from '../env/binaries.js';
import { type Environment, startEnvironment } from '../env/environment.js';
import { waitFor } from '../env/wait.js';
import {
  type ControllerProcesses,
  controllerProcesses,
} from '../integration/helpers/membership-controller.js';
import { applyCrds, createClusterHandle, podNames } from '../integration/helpers/membership-kube.js';
import { startWriter } from '../integration/helpers/membership-writer.js';

const watched = { '3.4': 'versions-34', '3.5': 'versions-35' } as const;
const unwatched = 'versions-other';

describe('EtcdCluster members of etcd 3.4 and 3.5, under a namespace-scoped controller', () => {
  let env: Environment;
  let controllers: ControllerProcesses;

  before(async () => {
    const watchNamespaces = Object.values(watched);
    env = await startEnvironment({ nodes: 3, controller: { watchNamespaces } });
    await applyCrds(env);
    await env.createNamespace(unwatched, restrictedNamespaceLabels());
    controllers = await controllerProcesses(env, { namespaces: watchNamespaces });
    await controllers.start();
  });
  after(async () => {
    await controllers?.stop();
    await env?.stop();
  });

  for (const minor of ['3.4', '3.5'] as const) {
    const version = etcdVersions[minor];
    const name = `v${minor.replace('.', '')}`;
    test(`GIVEN a size-3 EtcdCluster of etcd ${version} in watched namespace ${watched[minor]} WHEN applied THEN three voters of ${version}, Ready, a writer loses nothing`, async () => {
      const cluster = await createClusterHandle(env, watched[minor], name);
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

  test(`GIVEN the namespace-scoped RBAC THEN the controller may manage member Pods and PVCs in ${Object.values(watched).join(' and ')} only, and read no Secret anywhere`, async () => {
    /** `namespace` '*': in every namespace (`--all-namespaces`); none: a cluster-scoped resource. */
    const can = async (verb: string, resource: string, namespace?: string) =>
      (
        await env.kubectl(
          [
            'auth',
            'can-i',
            verb,
            resource,
            `--as=${env.controller.username}`,
            ...(namespace === '*' ? ['--all-namespaces'] : namespace ? ['-n', namespace] : []),
          ],
          { allowFailure: true },
        )
      ).stdout.trim();
    for (const namespace of Object.values(watched)) {
      assert.equal(await can('create', 'pods', namespace), 'yes', namespace);
      assert.equal(await can('delete', 'persistentvolumeclaims', namespace), 'yes', namespace);
      assert.equal(await can('watch', 'etcdclusters.etcd.gitops.dev', namespace), 'yes', namespace);
      assert.equal(await can('get', 'secrets', namespace), 'no', namespace);
    }
    for (const [verb, resource] of [
      ['create', 'pods'],
      ['list', 'pods'],
      ['create', 'persistentvolumeclaims'],
      ['watch', 'etcdclusters.etcd.gitops.dev'],
      ['create', 'events'],
    ] as const)
      assert.equal(await can(verb, resource, unwatched), 'no', `${verb} ${resource} in ${unwatched}`);
    assert.equal(await can('list', 'pods', '*'), 'no', 'list pods in every namespace');
    assert.equal(await can('get', 'nodes'), 'yes', 'get nodes');
  });
});
