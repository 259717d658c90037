// The GitOps path end to end: dist/ applied to an empty cluster of three real nodes exactly as Argo CD syncs it
// (wave by wave, server-side), and nothing else, image names and all. The operator Deployment of dist/ then runs
// our image (built here, pulled by each node from the environment's registry by the name dist/ carries) under its securityContext and memory limit (two
// replicas, in-cluster config from the projected token, leader election on a Lease), forms the example EtcdCluster
// of dist/ with its members spread over the nodes, scales it 3 → 5 → 3, and Git stays the owner of spec:
// re-applying dist/ changes nothing.
//
// The example cluster's backup CronJob points at an S3 endpoint that does not exist here and fires at
// `0 */6 * * *` (a CronJob never fires for times before it was created), so this file never waits
// for a backup; the environment, and any Job it might start at a six-hour boundary, is gone at the end.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { CoordinationV1Api, CustomObjectsApi, PolicyV1Api, type V1Pod } from '@kubernetes/client-node';
import { ANNOTATION_BUDGET_RECOMPUTE } from '../../constructs/conventions/annotations.js';
import { clusterLabels, memberSelector, selectorString } from '../../constructs/conventions/labels.js';
import {
  DISRUPTION_ALLOWED_CONDITION,
  FIRST_REQUEST_AFTER_MS,
  RECOMPUTE_REQUESTED_REASON,
  SYNC_FAILED_REASON,
} from '../../controller/disruptionbudget/decide.js';
import type { EtcdCluster } from '../../controller/etcdcluster/api.js';
import { defaultToolsDir } from '../../controller/restore/cli-args.js';
import { restoreToolPath } from '../../controller/restore/etcd-version.js';
import { etcdVersions } from '../env/binaries.js';
import { distDir, type Manifest, readManifests } from '../env/dist-manifests.js';
import { type Environment, startEnvironment } from '../env/environment.js';
import { httpGet } from '../env/http-get.js';
import { pathInRegistry } from '../env/registry.js';
import { waitFor } from '../env/wait.js';

const execFileAsync = promisify(execFile);
const operatorNamespace = 'etcd-gitops-system';
const operator = 'etcd-gitops-controller';
const manifests = readManifests();
const example = manifests.find((m) => m.kind === 'EtcdCluster');
const namespace = example?.namespace ?? 'etcd-example';
const name = example?.name ?? 'example';

interface ManagedField {
  manager?: string;
  operation?: string;
  subresource?: string;
}

interface OperatorPod {
  name: string;
  ip: string;
  ready: boolean;
  restarts: number;
  lastTermination?: string;
}

describe('GitOps: dist/ applied as Argo CD would, on a cluster that runs Pods', () => {
  let env: Environment;
  let applied: Manifest[];

  const custom = () => env.kubeConfig.makeApiClient(CustomObjectsApi);
  const readCluster = async () =>
    (await custom().getNamespacedCustomObject({
      group: 'etcd.gitops.dev',
      version: 'v1alpha1',
      namespace,
      plural: 'etcdclusters',
      name,
    })) as EtcdCluster & { metadata: { generation?: number } };
  // The holder identity is `<pod name>_<uuid of the process>`; this returns the Pod name part.
  /** The Lease's holderIdentity: `<pod>_<uuid of the process>`. */
  const leaseIdentity = async () =>
    (
      await env.kubeConfig
        .makeApiClient(CoordinationV1Api)
        .readNamespacedLease({ namespace: operatorNamespace, name: operator })
    ).spec?.holderIdentity || undefined;
  /** The Pod of the Lease holder. */
  const leaseHolder = async () => {
    const identity = await leaseIdentity();
    return identity ? identity.slice(0, identity.lastIndexOf('_')) : identity;
  };
  const operatorPods = async (): Promise<OperatorPod[]> => {
    const list = JSON.parse(
      (
        await env.kubectl([
          'get',
          'pods',
          '-n',
          operatorNamespace,
          '-l',
          'app.kubernetes.io/component=controller',
          '-o',
          'json',
        ])
      ).stdout,
    ) as {
      items: {
        metadata: { name: string; deletionTimestamp?: string };
        status: {
          podIP?: string;
          containerStatuses?: {
            ready: boolean;
            restartCount: number;
            lastState?: { terminated?: { reason?: string } };
          }[];
        };
      }[];
    };
    return list.items
      .filter((pod) => !pod.metadata.deletionTimestamp)
      .map((pod) => ({
        name: pod.metadata.name,
        ip: pod.status.podIP ?? '',
        ready: pod.status.containerStatuses?.[0]?.ready === true,
        restarts: pod.status.containerStatuses?.[0]?.restartCount ?? 0,
        lastTermination: pod.status.containerStatuses?.[0]?.lastState?.terminated?.reason,
      }));
  };
  /** `http://127.0.0.1:<port>` forwarded to a Pod's port inside the environment (one forward per Pod IP and port). */
  const forwards = new Map<string, Promise<number>>();
  const podURL = async (ip: string, port: number) => {
    const key = `${ip}:${port}`;
    if (!forwards.has(key)) forwards.set(key, env.forward(ip, port));
    return `http://127.0.0.1:${await forwards.get(key)}`;
  };
  /** `etcd_gitops_<metric>` as one replica's /metrics (on its own Pod IP) reports it. */
  const metric = async (pod: OperatorPod, series: string) => {
    const { body } = await httpGet(`${await podURL(pod.ip, 8080)}/metrics`);
    const line = body.split('\n').find((l) => l.startsWith(`${series} `));
    return line === undefined ? undefined : Number(line.slice(series.length + 1));
  };
  const memberPods = async () => {
    const list = JSON.parse(
      (
        await env.kubectl([
          'get',
          'pods',
          '-n',
          namespace,
          '-l',
          `app.kubernetes.io/instance=${name},app.kubernetes.io/component=member`,
          '-o',
          'json',
        ])
      ).stdout,
    ) as {
      items: {
        metadata: { name: string; deletionTimestamp?: string };
        spec: { nodeName?: string };
        status: { podIP?: string };
      }[];
    };
    return list.items
      .filter((pod) => !pod.metadata.deletionTimestamp)
      .map((pod) => ({ name: pod.metadata.name, node: pod.spec.nodeName ?? '', ip: pod.status.podIP ?? '' }));
  };
  /** `etcdctl <args>` run by `kubectl exec` in a member's etcd container as users type it: no endpoint flag, so
   *  etcdctl asks its default 127.0.0.1:2379, the member's own loopback listener. Right after a container restart
   *  the kubelet's view may lag a moment ("container not found"): retried for at most 30 s. */
  const etcdctlInMember = (member: string, args: string[]) =>
    waitFor(() => env.kubectl(['exec', '-n', namespace, member, '-c', 'etcd', '--', 'etcdctl', ...args]), {
      what: `etcdctl ${args.join(' ')} in ${member}`,
      timeoutMs: 30_000,
      intervalMs: 1_000,
    });
  /** What to read when the cluster does not get Ready: its status, the operator Pods and the tails of their logs. */
  const diagnostics = async (): Promise<string> => {
    const lines = [`status: ${JSON.stringify((await readCluster()).status)}`];
    for (const pod of await operatorPods().catch(() => [])) {
      const logs = await env.kubectl(['logs', '-n', operatorNamespace, pod.name, '--tail=15'], {
        allowFailure: true,
      });
      const tail = `${logs.stdout}${logs.stderr}`.trim();
      lines.push(`--- ${pod.name} (ready ${pod.ready}, restarts ${pod.restarts}):\n${tail}`);
    }
    return lines.join('\n');
  };
  const readyCluster = async (size = 3) => {
    try {
      return await waitFor(
        async () => {
          const cluster = await readCluster();
          const ready = cluster.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
          return (
            ready &&
            cluster.status?.readyMembers === size &&
            cluster.status?.members?.length === size &&
            cluster
          );
        },
        {
          what: `EtcdCluster ${namespace}/${name} Ready with ${size} members`,
          timeoutMs: 300_000,
          intervalMs: 1_000,
        },
      );
    } catch (error) {
      throw new Error(`${(error as Error).message}\n${await diagnostics()}`);
    }
  };

  /** The Events on PodDisruptionBudget `budget` in `ns`, of `reason` if given. */
  const budgetEvents = async (ns: string, budget: string, reason?: string) => {
    const selector = `involvedObject.kind=PodDisruptionBudget,involvedObject.name=${budget}`;
    const { stdout } = await env.kubectl([
      'get',
      'events',
      '-n',
      ns,
      '--field-selector',
      reason ? `${selector},reason=${reason}` : selector,
      '-o',
      'json',
    ]);
    return (
      JSON.parse(stdout) as {
        items: { reason?: string; message?: string; lastTimestamp?: string; eventTime?: string }[];
      }
    ).items;
  };

  before(async () => {
    env = await startEnvironment({ nodes: 3 });
  });
  after(async () => {
    await env?.stop();
  });

  test('GIVEN an empty cluster WHEN dist/ is applied wave by wave THEN every object of dist/ is there and nothing else was applied', async () => {
    assert.ok(example, `dist/ (${distDir}) holds no EtcdCluster`);
    applied = await env.applyDist();
    assert.equal(applied.length, manifests.length);
    const waves = applied.map((m) => m.wave);
    assert.deepEqual(
      waves,
      [...waves].sort((a, b) => a - b),
      'applied in sync-wave order',
    );
    const listed = await env.kubectl(['get', 'etcdclusters', '-A', '-o', 'name']);
    assert.equal(listed.stdout.trim(), `etcdcluster.etcd.gitops.dev/${name}`);
  });

  test('THEN the operator Deployment becomes Available with 2 ready replicas, each on its own Pod IP', async () => {
    await env.kubectl([
      'rollout',
      'status',
      `deployment/${operator}`,
      '-n',
      operatorNamespace,
      '--timeout=180s',
    ]);
    const deployment = JSON.parse(
      (await env.kubectl(['get', 'deployment', operator, '-n', operatorNamespace, '-o', 'json'])).stdout,
    ) as {
      status: {
        readyReplicas?: number;
        availableReplicas?: number;
        conditions?: { type: string; status: string }[];
      };
    };
    assert.equal(deployment.status.readyReplicas, 2);
    assert.equal(deployment.status.availableReplicas, 2);
    assert.equal(deployment.status.conditions?.find((c) => c.type === 'Available')?.status, 'True');
    const pods = await operatorPods();
    assert.equal(pods.length, 2);
    assert.notEqual(pods[0]?.ip, pods[1]?.ip);
    for (const pod of pods) assert.equal((await httpGet(`${await podURL(pod.ip, 8081)}/readyz`)).status, 200);
  });

  test('THEN each replica runs our image as uid 65532 on a read-only root, under its memory limit', async () => {
    const deployment = manifests.find((m) => m.kind === 'Deployment' && m.name === operator);
    const image = /^\s+image: (\S+)$/m.exec(deployment?.yaml ?? '')?.[1];
    assert.ok(image, 'the Deployment of dist/ names an image');
    const probe = [
      'console.log(process.getuid(), process.getgid());',
      "try { require('node:fs').writeFileSync('/probe', 'x'); console.log('wrote /'); }",
      'catch (e) { console.log(e.code); }',
    ].join(' ');
    for (const pod of await operatorPods()) {
      const spec = JSON.parse(
        (await env.kubectl(['get', 'pod', pod.name, '-n', operatorNamespace, '-o', 'json'])).stdout,
      ) as {
        spec: { containers: { image: string; resources: { limits: { memory: string } } }[] };
        status: { containerStatuses: { imageID: string }[] };
      };
      assert.equal(spec.spec.containers[0]?.image, image);
      assert.match(spec.spec.containers[0]?.resources.limits.memory ?? '', /^\d+Mi$/);
      // The image has no shell: exec its Node.js, the only program besides our CLI.
      const out = await env
        .kubectl(['exec', '-n', operatorNamespace, pod.name, '--', '/nodejs/bin/node', '-e', probe])
        .catch(async (error: unknown) => {
          // Say why the probe died (a CI run saw exit 137): the container's state, restarts and last termination.
          const now = await env.kubectl(['get', 'pod', pod.name, '-n', operatorNamespace, '-o', 'json']);
          const statuses = (JSON.parse(now.stdout) as { status?: { containerStatuses?: unknown } }).status
            ?.containerStatuses;
          throw new Error(`${(error as Error).message}
container statuses: ${JSON.stringify(statuses)}`);
        });
      assert.equal(out.stdout, '65532 65532\nEROFS\n');
    }
  });

  test('THEN exactly one replica holds the Lease and leads; the other stands by', async () => {
    const pods = await operatorPods();
    const holder = await waitFor(leaseHolder, { what: 'a holder of the leader Lease', timeoutMs: 60_000 });
    assert.ok(
      pods.some((pod) => pod.name === holder),
      `Lease holder ${holder} is one of ${pods.map((p) => p.name)}`,
    );
    const leading = await waitFor(
      async () => {
        const gauges = await Promise.all(pods.map((pod) => metric(pod, 'etcd_gitops_leader')));
        return (
          gauges.filter((g) => g === 1).length === 1 &&
          gauges.filter((g) => g === 0).length === 1 &&
          pods.filter((_, i) => gauges[i] === 1)
        );
      },
      { what: 'one replica reporting etcd_gitops_leader 1 and the other 0', timeoutMs: 30_000 },
    );
    assert.deepEqual(
      leading.map((p) => p.name),
      [holder],
    );
  });

  test('THEN the example EtcdCluster becomes Ready with 3 voting members, one per node, in status and in etcd', async () => {
    const cluster = await readyCluster();
    const members = cluster.status?.members ?? [];
    assert.equal(members.length, 3);
    assert.ok(
      members.every((m) => m.learner === false && m.ready === true),
      JSON.stringify(members),
    );
    assert.equal(cluster.status?.replicas, 3);
    assert.equal(cluster.status?.observedGeneration, cluster.metadata.generation);

    const pods = await memberPods();
    assert.deepEqual(
      pods.map((p) => p.node).sort(),
      ['node-1', 'node-2', 'node-3'],
      'the default anti-affinity spreads the members over the nodes',
    );
    // etcd itself, from inside a member (`kubectl exec`, as users type it; loopback traffic never meets the
    // NetworkPolicy). This process is outside the Pod network and dist/ admits no address.
    const listed = await etcdctlInMember(`${name}-0`, ['member', 'list', '--hex']);
    // "<hex id>, started, <name>, <peer URLs>, <client URLs>, <is learner>"
    const inEtcd = listed.stdout
      .trim()
      .split('\n')
      .map((line) => line.split(', '))
      .map(([id, , memberName, , , learner]) => ({
        name: memberName,
        id: BigInt(`0x${id}`).toString(),
        learner: learner === 'true',
      }));
    assert.deepEqual(inEtcd.map((m) => m.name).sort(), members.map((m) => m.name).sort());
    assert.ok(
      inEtcd.every((m) => !m.learner),
      JSON.stringify(inEtcd),
    );
    assert.deepEqual(inEtcd.map((m) => m.id).sort(), members.map((m) => m.id).sort());
  });

  test('THEN every container pulled its image from the environment registry: its imageID is the name it runs by at the digest the registry serves for that name', async () => {
    await readyCluster();
    const deployment = applied.find((m) => m.kind === 'Deployment' && m.name === operator);
    const controllerImage = /\n\s+image: (\S+)\n/.exec(deployment?.yaml ?? '')?.[1];
    assert.ok(controllerImage, 'dist/ names the controller image');
    const pulled: Array<{ pod: string; image: string; imageID: string }> = [];
    for (const ns of [operatorNamespace, namespace]) {
      const pods = JSON.parse((await env.kubectl(['get', 'pods', '-n', ns, '-o', 'json'])).stdout) as {
        items: Array<{
          metadata: { name: string };
          status: { containerStatuses?: Array<{ image: string; imageID: string }> };
        }>;
      };
      for (const pod of pods.items)
        for (const status of pod.status.containerStatuses ?? [])
          pulled.push({ pod: pod.metadata.name, image: status.image, imageID: status.imageID });
    }
    const images = new Set(pulled.map((p) => p.image));
    assert.ok(images.has(controllerImage), `${controllerImage} runs: ${[...images].join(', ')}`);
    assert.ok(
      [...images].some((image) => image.startsWith('gcr.io/etcd-development/etcd:v')),
      `the members run etcd's image: ${[...images].join(', ')}`,
    );
    const registry = env.registry;
    assert.ok(registry, 'an environment with nodes has a registry');
    for (const { pod, image, imageID } of pulled) {
      const repository = image.slice(0, image.lastIndexOf(':'));
      assert.equal(imageID, `${repository}@${await registry.digestOf(image)}`, `${pod} runs ${image}`);
    }
  });

  test("THEN the registry serves our image as an index of linux/amd64 and linux/arm64 (skopeo inspect --raw), and each platform's Node.js and etcdutl are ELF binaries of that architecture", async () => {
    const registry = env.registry;
    assert.ok(registry, 'an environment with nodes has a registry');
    const deployment = applied.find((m) => m.kind === 'Deployment' && m.name === operator);
    const image = /\n\s+image: (\S+)\n/.exec(deployment?.yaml ?? '')?.[1] as string;
    const path = pathInRegistry(image.slice(0, image.lastIndexOf(':')));
    const repository = `${registry.endpoint.replace('http://', '')}/${path}`;
    const raw = async (reference: string) =>
      JSON.parse(
        (
          await execFileAsync('skopeo', ['inspect', '--raw', '--tls-verify=false', `docker://${reference}`], {
            maxBuffer: 1 << 24,
          })
        ).stdout,
      );
    const blob = (digest: string) => fetch(`${registry.endpoint}/v2/${path}/blobs/${digest}`);
    const index = await raw(`${repository}:${image.slice(image.lastIndexOf(':') + 1)}`);
    assert.equal(index.mediaType, 'application/vnd.oci.image.index.v1+json');
    assert.deepEqual(
      index.manifests.map(
        (m: { platform: { os: string; architecture: string } }) =>
          `${m.platform.os}/${m.platform.architecture}`,
      ),
      ['linux/amd64', 'linux/arm64'],
    );
    // e_machine of an ELF header (offset 18, little-endian): 62 x86-64, 183 AArch64.
    const machine = { amd64: 62, arm64: 183 } as const;
    // In the image without their leading '/': the Node.js the entrypoint runs, the restore tool of etcd 3.6.
    const binaries = ['nodejs/bin/node', restoreToolPath(defaultToolsDir, etcdVersions['3.6']).slice(1)];
    const dir = await mkdtemp(join(tmpdir(), 'etcd-gitops-platforms-'));
    try {
      for (const entry of index.manifests as Array<{
        digest: string;
        platform: { architecture: 'amd64' | 'arm64' };
      }>) {
        const manifest = await raw(`${repository}@${entry.digest}`);
        const config = (await (await blob(manifest.config.digest)).json()) as { architecture: string };
        assert.equal(config.architecture, entry.platform.architecture);
        const root = join(dir, entry.platform.architecture);
        await mkdir(root);
        for (const layer of manifest.layers as Array<{ digest: string }>) {
          const file = join(dir, 'layer.tar.gz');
          await writeFile(file, Buffer.from(await (await blob(layer.digest)).arrayBuffer()));
          // Each layer holds one of them at most: tar fails on the names a layer lacks.
          // (Layers name their files `./<path>`.)
          await execFileAsync('tar', ['-xzf', file, '-C', root, ...binaries.map((b) => `./${b}`)]).catch(
            () => undefined,
          );
        }
        for (const binary of binaries) {
          const header = await readFile(join(root, binary));
          assert.equal(
            header.subarray(0, 4).toString('latin1'),
            '\x7fELF',
            `${entry.platform.architecture} ${binary}`,
          );
          assert.equal(
            header.readUInt16LE(18),
            machine[entry.platform.architecture],
            `${entry.platform.architecture} ${binary}`,
          );
        }
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test("THEN the PodDisruptionBudget counts the declared size through the scale subresource and allows one disruption; a count that failed is redone after a later member Pod change, the controller's recompute request only when no other change came", async (t) => {
    // maxUnavailable makes kube-controller-manager's disruption controller read spec.size through the scale
    // subresource of the members' owner (the EtcdCluster). Its discovery learns a new CRD only on its 30 s reset,
    // and a budget that failed before that stays failed until a member Pod changes: the controller annotates one
    // 35 s after the failure if it is still failed then (docs/design/disruption-budget.md). A failure while the
    // members are still starting is redone by their own next change (a readiness transition, the member record).
    const policy = env.kubeConfig.makeApiClient(PolicyV1Api);
    const status = await waitFor(
      async () => {
        const s = (await policy.readNamespacedPodDisruptionBudget({ namespace, name })).status;
        return s?.expectedPods === 3 && s.currentHealthy === 3 && s.disruptionsAllowed === 1 && s;
      },
      {
        what: `PodDisruptionBudget ${namespace}/${name} expecting 3 Pods, 3 healthy, allowing 1 disruption`,
        // The first request is due 35 s after the failure, which comes after the CRD, plus the disruption
        // controller's sync.
        timeoutMs: 90_000,
        intervalMs: 1_000,
      },
    );
    assert.equal(status.desiredHealthy, 2);
    const { stdout } = await env.kubectl([
      'get',
      'pods',
      '-n',
      namespace,
      '-l',
      selectorString(memberSelector(name)),
      '-o',
      'json',
      // kubectl leaves managedFields out unless asked: their times say when each member Pod last changed.
      '--show-managed-fields',
    ]);
    const members = (JSON.parse(stdout) as { items: V1Pod[] }).items;
    assert.equal(members.length, 3);
    for (const pod of members)
      for (const container of pod.status?.containerStatuses ?? [])
        assert.equal(container.restartCount, 0, `${pod.metadata?.name} ${container.name} restarted`);
    const events = await budgetEvents(namespace, name);
    const reasons = events.map((event) => event.reason);
    const annotated = members.filter((pod) => pod.metadata?.annotations?.[ANNOTATION_BUDGET_RECOMPUTE]);
    const failure = events.find((event) => event.reason === 'CalculateExpectedPodCountFailed');
    // When a member Pod last changed, from managedFields' times (whole seconds, as the Events'); read in every case
    // so that each run checks they are there.
    const changes = members.flatMap((pod) =>
      (pod.metadata?.managedFields ?? []).map((field) => ({
        pod: pod.metadata?.name,
        manager: field.manager,
        subresource: field.subresource,
        at: new Date(field.time ?? 0).getTime(),
      })),
    );
    assert.ok(
      changes.length >= members.length && changes.every((c) => c.at > 0),
      'every member Pod carries managedFields with times',
    );
    const last = changes.reduce((a, b) => (b.at > a.at ? b : a));
    const lastChange = `${last.pod}'s change by ${last.manager}${last.subresource ? ` (${last.subresource})` : ''} at ${new Date(last.at).toISOString()}`;
    if (failure && reasons.includes(RECOMPUTE_REQUESTED_REASON)) {
      // The failure outlasted the members' own changes: the controller's request is what brought the budget back.
      assert.equal(annotated.length, 1, 'one member Pod carries the recompute request');
      t.diagnostic('the budget failed after the members last changed; the controller asked again');
    } else if (failure) {
      // No request: then a member Pod changed after the (last) failure, and that change had the budget counted
      // again.
      const failedAtText = failure.lastTimestamp ?? failure.eventTime;
      const failedAt = Date.parse(failedAtText ?? '');
      assert.ok(
        Number.isFinite(failedAt) && last.at >= failedAt,
        `the last member Pod change (${lastChange}) comes after the failure at ${failedAtText}; events: ${reasons.join(', ')}`,
      );
      assert.equal(annotated.length, 0, 'no recompute request without its Event');
      t.diagnostic(
        `the budget failed at ${failedAtText} while the members were still changing; ${lastChange} had it counted again`,
      );
    } else {
      assert.equal(reasons.includes(RECOMPUTE_REQUESTED_REASON), false, 'no request without a failure');
      assert.equal(annotated.length, 0);
      t.diagnostic('the budget was computed at the first try (discovery knew the CRD already)');
    }
    await readyCluster();
  });

  test('GIVEN a budget kube-controller-manager failed to compute (an owner kind its discovery does not know yet) over a member Pod that never changes WHEN the controller runs THEN it annotates that Pod 35 s after the failure and the budget is computed', async (t) => {
    // The gitops-dist budget above fails only when the discovery reset falls after the members' last change (a
    // matter of timing). Here the failure is made certain: a CRD created a moment before the budget, whose kind
    // owns a Pod that no scheduler picks up (so no kubelet or scheduler ever updates it). Without the controller's
    // request this budget stays SyncFailed for as long as kube-controller-manager's informers do not resync (12 h+).
    const policy = env.kubeConfig.makeApiClient(PolicyV1Api);
    const group = 'e2e.etcd.gitops.dev';
    const probeNamespace = 'budget-probe';
    await env.kubectl(['create', 'namespace', probeNamespace]);
    let failure: { kind: string; sinceMs: number } | undefined;
    // Discovery may reset between the CRD's creation and the budget's first sync (about 2 s of 30): then that
    // kind is known at once and the budget computed; a new kind is tried, at most three.
    for (let attempt = 1; attempt <= 3 && !failure; attempt += 1) {
      const kind = `Probe${attempt}`;
      const plural = `probe${attempt}s`;
      const budgetName = `probe-${attempt}`;
      const crd = {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: `${plural}.${group}` },
        spec: {
          group,
          scope: 'Namespaced',
          names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
          versions: [
            {
              name: 'v1',
              served: true,
              storage: true,
              subresources: {
                scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' },
              },
              schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
            },
          ],
        },
      };
      await env.kubectl(['apply', '-f', '-'], { input: JSON.stringify(crd) });
      await env.kubectl(['wait', '--for=condition=Established', `crd/${plural}.${group}`, '--timeout=30s']);
      const owner = {
        apiVersion: `${group}/v1`,
        kind,
        metadata: { name: 'owner', namespace: probeNamespace },
        spec: { replicas: 3 },
      };
      const created = JSON.parse(
        (await env.kubectl(['create', '-f', '-', '-o', 'json'], { input: JSON.stringify(owner) })).stdout,
      ) as { metadata: { uid: string } };
      const labels = clusterLabels(budgetName);
      await env.kubectl(['create', '-f', '-'], {
        input: JSON.stringify({
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: {
            name: `${budgetName}-0`,
            namespace: probeNamespace,
            labels,
            ownerReferences: [
              { apiVersion: `${group}/v1`, kind, name: 'owner', uid: created.metadata.uid, controller: true },
            ],
          },
          spec: {
            schedulerName: 'no-such-scheduler',
            securityContext: {
              runAsNonRoot: true,
              runAsUser: 65532,
              seccompProfile: { type: 'RuntimeDefault' },
            },
            containers: [
              {
                name: 'never-started',
                image: 'registry.invalid/never-pulled:1',
                securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
              },
            ],
          },
        }),
      });
      await policy.createNamespacedPodDisruptionBudget({
        namespace: probeNamespace,
        body: {
          metadata: { name: budgetName, labels },
          spec: { maxUnavailable: 1, selector: { matchLabels: memberSelector(budgetName) } },
        },
      });
      const first = await waitFor(
        async () => {
          const condition = (
            await policy.readNamespacedPodDisruptionBudget({ namespace: probeNamespace, name: budgetName })
          ).status?.conditions?.find((c) => c.type === DISRUPTION_ALLOWED_CONDITION);
          return condition && { reason: condition.reason, since: condition.lastTransitionTime };
        },
        { what: `budget ${budgetName} synced once`, timeoutMs: 30_000, intervalMs: 500 },
      );
      if (first.reason === SYNC_FAILED_REASON) failure = { kind, sinceMs: new Date(first.since).getTime() };
      else t.diagnostic(`${kind}: computed at the first sync (${first.reason}); trying a new kind`);
      if (failure) {
        const computed = await waitFor(
          async () => {
            const budget = await policy.readNamespacedPodDisruptionBudget({
              namespace: probeNamespace,
              name: budgetName,
            });
            const condition = budget.status?.conditions?.find((c) => c.type === DISRUPTION_ALLOWED_CONDITION);
            return condition?.reason !== SYNC_FAILED_REASON && condition && { budget, condition };
          },
          // Due 35 s after the failure's whole-second time; 25 s more for the watch, the patch and the sync.
          {
            what: `budget ${budgetName} computed after the controller's request`,
            timeoutMs: 60_000,
            intervalMs: 500,
          },
        );
        // The owner's scale says 3; the one Pod is not Ready: computed, and honestly no disruption allowed.
        assert.equal(computed.budget.status?.expectedPods, 3);
        assert.equal(computed.condition.reason, 'InsufficientPods');
        const pod = JSON.parse(
          (await env.kubectl(['get', 'pod', '-n', probeNamespace, `${budgetName}-0`, '-o', 'json'])).stdout,
        ) as V1Pod;
        const requestedAt = pod.metadata?.annotations?.[ANNOTATION_BUDGET_RECOMPUTE];
        assert.ok(requestedAt, 'the member Pod carries the recompute request');
        const afterMs = new Date(requestedAt).getTime() - failure.sinceMs;
        assert.ok(
          afterMs >= FIRST_REQUEST_AFTER_MS && afterMs < FIRST_REQUEST_AFTER_MS + 2_000,
          `requested ${afterMs} ms after the failure`,
        );
        assert.equal(pod.status?.phase, 'Pending', 'never scheduled');
        const events = await budgetEvents(probeNamespace, budgetName, RECOMPUTE_REQUESTED_REASON);
        assert.equal(events.length, 1);
        assert.match(
          events[0]?.message ?? '',
          new RegExp(`no matches for kind "${kind}".*annotated member Pod ${budgetName}-0`),
        );
      }
    }
    assert.ok(failure, 'one of three new kinds made the budget fail');
    await env.kubectl(['delete', 'namespace', probeNamespace, '--wait=false']);
    for (let attempt = 1; attempt <= 3; attempt += 1)
      await env.kubectl(['delete', 'crd', `probe${attempt}s.${group}`, '--ignore-not-found', '--wait=false']);
  });

  test('WHEN kubectl logs and kubectl exec are run on a member Pod THEN they reach its etcd: etcdctl endpoint health and status as typed, at its default endpoint', async () => {
    const member = `${name}-0`;
    const logs = await env.kubectl(['logs', '-n', namespace, member, '-c', 'etcd', '--tail=200']);
    assert.match(logs.stdout, /"msg":"serving client traffic insecurely|ready to serve client requests/);
    const health = await etcdctlInMember(member, ['endpoint', 'health']);
    assert.match(`${health.stdout}${health.stderr}`, /^127\.0\.0\.1:2379 is healthy/);
    const status = await etcdctlInMember(member, ['endpoint', 'status']);
    assert.match(status.stdout, /^127\.0\.0\.1:2379, [0-9a-f]+, 3\.\d+\.\d+, /);
  });

  test('THEN kubectl get etcdclusters -A shows it in the printer columns', async () => {
    const row = async (wide: boolean) => {
      const { stdout } = await env.kubectl(['get', 'etcdclusters', '-A', ...(wide ? ['-o', 'wide'] : [])]);
      const [header, ...rows] = stdout.trim().split('\n');
      const columns = header?.split(/\s+/) ?? [];
      const cells = rows.map((r) => r.split(/\s+/)).find((c) => c[1] === name);
      assert.ok(cells, stdout);
      return (column: string) => {
        assert.ok(columns.includes(column), `no column ${column} in: ${header}`);
        return cells[columns.indexOf(column)];
      };
    };
    // READY follows each pass's health check, which can dip for a pass while the member restarted above settles
    // on a loaded machine: wait for the row to show all three, then read every column from that one row.
    const cell = await waitFor(
      async () => {
        const found = await row(false);
        return found('READY') === '3' && found;
      },
      { what: 'kubectl get etcdclusters to show READY 3', timeoutMs: 60_000, intervalMs: 1_000 },
    );
    assert.equal(cell('NAMESPACE'), namespace);
    assert.equal(cell('SIZE'), '3');
    assert.equal(cell('VERSION'), /^ {2}version: "?([\d.]+)"?$/m.exec(example?.yaml ?? '')?.[1]);
    assert.equal(cell('PHASE'), 'Running');
    const wide = await row(true);
    assert.equal(wide('AVAILABLE'), 'True');
    assert.equal(wide('PAUSED'), 'false');
  });

  test('WHEN dist/ is applied again after the controller acted THEN nothing changes (no drift)', async () => {
    const before = await readCluster();
    const diff = await env.kubectl(['diff', '--server-side', '-f', distDir], { allowFailure: true });
    assert.equal(
      diff.code,
      0,
      `kubectl diff --server-side -f dist/ shows a difference:\n${diff.stdout}${diff.stderr}`,
    );
    await env.applyDist();
    const afterApply = await readCluster();
    assert.equal(afterApply.metadata.generation, before.metadata.generation);
    assert.deepEqual(afterApply.spec, before.spec);
    // Git (kubectl's apply) owns spec; every other writer touched only the status subresource
    const managers = (afterApply.metadata as { managedFields?: ManagedField[] }).managedFields ?? [];
    assert.ok(managers.some((m) => m.manager === 'kubectl' && m.operation === 'Apply'));
    const others = managers.filter((m) => !(m.manager === 'kubectl' && m.operation === 'Apply'));
    assert.ok(others.length > 0, 'the controller wrote status');
    assert.ok(
      others.every((m) => m.subresource === 'status'),
      JSON.stringify(
        others.map(({ manager, operation, subresource }) => ({ manager, operation, subresource })),
      ),
    );
  });

  test('WHEN the leader replica is killed THEN a live replica takes the Lease over within the lease bound, exactly one leads, and the cluster stays Ready', async () => {
    const pods = await operatorPods();
    const killedIdentity = await leaseIdentity();
    const oldLeader = killedIdentity?.slice(0, killedIdentity.lastIndexOf('_'));
    const leader = pods.find((pod) => pod.name === oldLeader);
    assert.ok(killedIdentity && leader, `leader ${killedIdentity} among ${pods.map((p) => p.name)}`);

    await env.faults.killContainer(operatorNamespace, leader.name, 'controller', 'SIGKILL');

    // The kubelet restarts the killed container within seconds under a new identity (`<pod>_<uuid>`), so when
    // the Lease expires the standby and the restarted process both compete for it, and either may win: the
    // promise is a live process other than the killed one, not a particular Pod.
    const newIdentity = await waitFor(
      async () => {
        const identity = await leaseIdentity();
        return identity && identity !== killedIdentity ? identity : undefined;
      },
      { what: `the Lease to pass from the killed ${killedIdentity}`, timeoutMs: 90_000, intervalMs: 500 },
    );
    const holderName = newIdentity.slice(0, newIdentity.lastIndexOf('_'));
    // the new leader reconciles the cluster and sees all its members ready
    const holder = await waitFor(
      async () => {
        const pod = (await operatorPods()).find((p) => p.name === holderName);
        return pod?.ready &&
          (await metric(pod, 'etcd_gitops_leader')) === 1 &&
          (await metric(pod, `etcd_gitops_members_ready{namespace="${namespace}",cluster="${name}"}`)) === 3
          ? pod
          : undefined;
      },
      { what: `${newIdentity} leading and reporting 3 ready members`, timeoutMs: 60_000 },
    );
    const cluster = await readyCluster();
    assert.equal(cluster.status?.members?.length, 3);
    // the killed replica is restarted by its kubelet
    await waitFor(
      async () => {
        const now = (await operatorPods()).find((pod) => pod.name === leader.name);
        return now !== undefined && now.restarts > leader.restarts && now.ready;
      },
      { what: `${leader.name} restarted and ready again`, timeoutMs: 120_000, intervalMs: 1_000 },
    );
    // AND exactly one replica leads: the Lease holder says 1, the other 0
    const now = await operatorPods();
    assert.equal(now.length, 2);
    for (const pod of now)
      assert.equal(await metric(pod, 'etcd_gitops_leader'), pod.name === holder.name ? 1 : 0, pod.name);
    assert.equal(await leaseIdentity(), newIdentity);
  });
  test('WHEN the cluster is scaled 3 → 5 → 3 (kubectl scale, last: it writes spec) THEN it follows, and no controller replica restarts or is OOM-killed', async () => {
    const before = await operatorPods();
    const scale = async (size: number) => {
      await env.kubectl(['scale', `etcdcluster/${name}`, '-n', namespace, `--replicas=${size}`]);
      await readyCluster(size);
    };
    await scale(5);
    assert.equal((await memberPods()).length, 5);
    await scale(3);
    assert.equal((await memberPods()).length, 3);
    const after = await operatorPods();
    assert.deepEqual(
      after.map((p) => ({ name: p.name, restarts: p.restarts, last: p.lastTermination })),
      before.map((p) => ({ name: p.name, restarts: p.restarts, last: p.lastTermination })),
      'restartCount unchanged, no OOMKilled',
    );
  });
});
