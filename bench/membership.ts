// Membership speed on the local Kubernetes, beside the floors measured in the same run. The loopback floor: the same
// etcd build on loopback, no Kubernetes (a new cluster started static, members joined with etcdctl `member add
// --learner`, start, `member promote`). Cases: create a size-3 and a size-5 cluster → Ready (through the API client,
// as the Kubernetes floors create their objects: no kubectl process started in either); per-member scale-up (3 → 5,
// halved; `kubectl scale`); replace a dead member (its Pod and PVC deleted → a new member, Ready); controller RSS.
// Every row is also measured on the same nodes against the fair floor (membership-pods.ts: our member Pods, each step by a
// script as fast as etcd allows), and the creation rows against a static-bootstrap StatefulSet (the peer method).
// An untimed start first (`warmUp`), then medians over 5 runs (ours with min and max; every sample in the JSON); a
// table on stdout, JSON in bench/results/membership.json. `npm run bench membership`. The controller runs on the
// Node.js the image ships (image/node-runtime.ts), so its RSS is the shipped controller's.
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { CoreV1Api } from '@kubernetes/client-node';
import { nodeRuntime } from '../image/node-runtime.js';
import { etcdBinary, etcdVersions } from '../test/env/binaries.js';
import { type Environment, startEnvironment } from '../test/env/environment.js';
import { waitFor } from '../test/env/wait.js';
import {
  type ControllerProcesses,
  type ControllerRun,
  controllerProcesses,
} from '../test/integration/helpers/membership-controller.js';
import { createTestCluster, type TestCluster } from '../test/integration/helpers/membership-etcd.js';
import {
  type ClusterHandle,
  createClusterHandle,
  prepareNamespace,
} from '../test/integration/helpers/membership-kube.js';
import {
  byHand,
  type MembershipSample,
  POLL_MS,
  podsByHand,
  removeAll,
  removeCluster,
  staticStatefulSet,
} from './membership-pods.js';
import { median, timed } from './stats.js';

const results = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bench', 'results');
/** Five, not three: one start in ten or so stalls 13-16 s on these nodes, whoever makes it (the Node authorizer race,
 *  docs/design/bootstrap.md), and a median of three moves with a single stall. */
const RUNS = 5;
const ns = 'bench-membership';
const version = etcdVersions['3.6'];
const execFileAsync = promisify(execFile);
const READY_TIMEOUT_MS = 240_000;

type Sample = MembershipSample;
type Case = keyof Sample;
const CASES: Case[] = ['size 3 → Ready', 'size 5 → Ready', 'one member added', 'dead member replaced'];
/** The creation rows on Kubernetes without the controller. */
type Creation = 'size 3 → Ready' | 'size 5 → Ready';
const CREATIONS: Creation[] = ['size 3 → Ready', 'size 5 → Ready'];
type KubeSample = Record<Creation, number>;

/** One run of both Kubernetes baselines: the fair floor of every row, the peer method of the creation rows. */
async function kubeBaselines(env: Environment, index: number): Promise<{ pods: Sample; peer: KubeSample }> {
  const pods = await podsByHand(env, ns, `hand-${index}`, version);
  const peer = {} as KubeSample;
  for (const [name, size] of [
    ['size 3 → Ready', 3],
    ['size 5 → Ready', 5],
  ] as const) {
    peer[name] = await staticStatefulSet(env, ns, `sts${size}-${index}`, size, version);
  }
  return { pods, peer };
}

// ---- the floor: etcdctl by hand -------------------------------------------------------------------------------

async function etcdctl(endpoint: string, args: string[]): Promise<string> {
  const { stdout } = await execFileAsync(
    etcdBinary(version, 'etcdctl'),
    [`--endpoints=${endpoint}`, ...args],
    {
      env: { PATH: process.env.PATH ?? '' },
    },
  );
  return stdout;
}

/** Retries an etcdctl call the way an operator would by hand (etcd refuses some changes for a while). */
async function retry(endpoint: string, args: string[]): Promise<string> {
  return waitFor(() => etcdctl(endpoint, args), { what: `etcdctl ${args.join(' ')}`, timeoutMs: 60_000 });
}

async function healthy(cluster: TestCluster, name: string): Promise<void> {
  const url = cluster.members.get(name)?.clientURL as string;
  await retry(url, ['endpoint', 'health']);
}

/** Adds `name` as a learner, starts it, promotes it once caught up. */
async function joinByHand(cluster: TestCluster, seed: string, name: string): Promise<void> {
  const member = await cluster.reserve(name);
  const seedURL = cluster.members.get(seed)?.clientURL as string;
  const added = await retry(seedURL, ['member', 'add', name, `--peer-urls=${member.peerURL}`, '--learner']);
  const id = /Member\s+([0-9a-f]+)\s+added/.exec(added)?.[1];
  if (!id) throw new Error(`no member id in: ${added}`);
  const names = [...cluster.members.keys()];
  cluster.start(name, 'existing', names);
  await retry(seedURL, ['member', 'promote', id]);
  await healthy(cluster, name);
}

/** `names` started at once, `new`, one token, each the whole initial cluster (a static bootstrap, as ours). */
async function startStatic(cluster: TestCluster, names: string[]): Promise<void> {
  for (const name of names) await cluster.reserve(name);
  for (const name of names) cluster.start(name, 'new', names, 'floor');
  await Promise.all(names.map((name) => healthy(cluster, name)));
}

async function floorRun(): Promise<Sample> {
  const size5 = await staticCluster(['m0', 'm1', 'm2', 'm3', 'm4']);
  const cluster = await createTestCluster('3.6');
  try {
    const size3 = await timed(() => startStatic(cluster, ['m0', 'm1', 'm2']));
    const twoMore = await timed(async () => {
      for (const name of ['m3', 'm4']) await joinByHand(cluster, 'm0', name);
    });
    const replace = await timed(async () => {
      await cluster.kill('m4');
      const seedURL = cluster.members.get('m0')?.clientURL as string;
      // `member list` lines: `<hex id>, <status>, <name>, <peer URLs>, <client URLs>, <is learner>`
      const dead = (await etcdctl(seedURL, ['member', 'list']))
        .split('\n')
        .map((line) => line.split(',').map((field) => field.trim()))
        .find((fields) => fields[2] === 'm4')?.[0];
      await retry(seedURL, ['member', 'remove', dead as string]);
      cluster.members.delete('m4'); // its process is gone; m5's --initial-cluster must not name it
      await joinByHand(cluster, 'm0', 'm5');
    });
    return {
      'size 3 → Ready': size3,
      'size 5 → Ready': size5,
      'one member added': twoMore / 2,
      'dead member replaced': replace,
    };
  } finally {
    await cluster.stop();
  }
}

/** Milliseconds for a static start of `names` on loopback, on a cluster of its own. */
async function staticCluster(names: string[]): Promise<number> {
  const cluster = await createTestCluster('3.6');
  try {
    return await timed(() => startStatic(cluster, names));
  } finally {
    await cluster.stop();
  }
}

// ---- ours: the controller on the local Kubernetes --------------------------------------------------------------

async function ourRun(env: Environment, index: number): Promise<Sample> {
  const spec = {
    version,
    persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Delete', whenScaled: 'Delete' },
  };
  const three = await createClusterHandle(env, ns, `three-${index}`);
  const size3 = await timed(async () => {
    await three.create({ ...spec, size: 3 });
    await three.readyAt(3, READY_TIMEOUT_MS, POLL_MS);
  });
  const twoMore = await timed(async () => {
    await three.scale(5);
    await three.readyAt(5, READY_TIMEOUT_MS, POLL_MS);
  });
  const replace = await timed(() => replaceDeadMember(env, three));
  await removeCluster(env, ns, three.name);
  const five = await createClusterHandle(env, ns, `five-${index}`);
  const size5 = await timed(async () => {
    await five.create({ ...spec, size: 5 });
    await five.readyAt(5, READY_TIMEOUT_MS, POLL_MS);
  });
  await removeCluster(env, ns, five.name);
  return {
    'size 3 → Ready': size3,
    'size 5 → Ready': size5,
    'one member added': twoMore / 2,
    'dead member replaced': replace,
  };
}

/** Deletes the highest member's PVC and Pod (its data is gone) and waits until a new member took its place. */
async function replaceDeadMember(env: Environment, cluster: ClusterHandle): Promise<void> {
  const core = env.kubeConfig.makeApiClient(CoreV1Api);
  const victim = `${cluster.name}-4`;
  const oldId = (await cluster.membership()).ids.get(victim);
  await core.deleteNamespacedPersistentVolumeClaim({ namespace: ns, name: `${victim}-data` });
  await core.deleteNamespacedPod({ namespace: ns, name: victim });
  // The replacement takes a new name (the old Pod and PVC still hold theirs while it is added; membership.md, "Dead
  // members"): wait, in one status, for Ready at 5 without the old member id.
  await waitFor(
    async () => {
      const status = (await cluster.read()).status;
      const ready = status?.conditions?.find((condition) => condition.type === 'Ready')?.status === 'True';
      const members = status?.members ?? [];
      return (
        ready &&
        members.length === 5 &&
        members.every((member) => member.ready && !member.learner && member.id !== oldId)
      );
    },
    { what: `${victim} (${oldId}) replaced, Ready at 5`, timeoutMs: 180_000, intervalMs: 200 },
  );
}

/**
 * An untimed static start of 5 of our Pods by script on the 3 nodes, then their removal, so that the first timed
 * start (ours) does not pay for the nodes' first start of etcd's image, which the later ones (the floors') do not.
 * Before it, the first creation of each run was ours and took 5-16 s where the others took about 3; with it, ours'
 * first took 3.0-3.1 s in the runs of 2026-12-04 22:18, 22:29 and 22:47.
 */
async function warmUp(env: Environment): Promise<void> {
  const name = 'warm-up';
  await createClusterHandle(env, ns, name);
  try {
    await byHand(env, ns, name, version).startStatic(5);
  } finally {
    await removeAll(env, ns, name);
  }
}

async function controllerRss(controllers: ControllerProcesses, controller: ControllerRun): Promise<number> {
  return ((await controllers.metric(controller, 'process_resident_memory_bytes', {})) ?? 0) / 2 ** 20;
}

export async function run(): Promise<void> {
  const runtime = await nodeRuntime();
  const env = await startEnvironment({ nodes: 3 });
  const controllers = await controllerProcesses(env, { namespaces: [ns], node: runtime.node });
  const ours: Sample[] = [];
  const floor: Sample[] = [];
  const rss: number[] = [];
  const podFloor: Sample[] = [];
  const peer: KubeSample[] = [];
  try {
    await prepareNamespace(env, ns);
    await warmUp(env);
    const controller = await controllers.start();
    for (let index = 0; index < RUNS; index += 1) {
      ours.push(await ourRun(env, index));
      rss.push(await controllerRss(controllers, controller));
      floor.push(await floorRun());
      const baselines = await kubeBaselines(env, index);
      podFloor.push(baselines.pods);
      peer.push(baselines.peer);
    }
  } finally {
    await controllers.stop();
    await env.stop();
  }
  const spread = (values: number[]) => ({ minMs: Math.min(...values), maxMs: Math.max(...values) });
  const rows = CASES.map((name) => {
    const oursMs = median(ours.map((sample) => sample[name]));
    const floorMs = median(floor.map((sample) => sample[name]));
    const creation = (CREATIONS as string[]).includes(name) ? (name as Creation) : undefined;
    const podFloorMs = median(podFloor.map((sample) => sample[name]));
    const kube = {
      podFloorMs,
      ...(creation ? { peerMs: median(peer.map((sample) => sample[creation])) } : {}),
    };
    return {
      case: name,
      runs: RUNS,
      oursMs,
      ours: spread(ours.map((sample) => sample[name])),
      floorMs,
      ratio: oursMs / floorMs,
      ...kube,
      ratioToPodFloor: oursMs / podFloorMs,
    };
  });
  const rssMiB = median(rss);
  console.log(
    `\nmembership (median of ${RUNS} runs, etcd ${version}; floor: the same etcd joined by hand with etcdctl)`,
  );
  console.log(
    '  pod floor: our member Pods, each step by a script (static start, learner joins); StatefulSet: static, Parallel',
  );
  console.log(
    'case                   runs    ours s (min-max)   floor s  ratio  pod floor s  ratio  StatefulSet s',
  );
  const seconds = (ms: number | undefined, width: number) =>
    (ms === undefined ? '-' : (ms / 1000).toFixed(1)).padStart(width);
  for (const r of rows) {
    const range = `(${(r.ours.minMs / 1000).toFixed(1)}-${(r.ours.maxMs / 1000).toFixed(1)})`;
    console.log(
      `${r.case.padEnd(22)} ${String(r.runs).padStart(4)} ${seconds(r.oursMs, 9)} ${range.padEnd(11)} ${seconds(r.floorMs, 9)} ${r.ratio.toFixed(2).padStart(6)} ${seconds(r.podFloorMs, 12)} ${r.ratioToPodFloor.toFixed(2).padStart(6)} ${seconds(r.peerMs, 14)}`,
    );
  }
  console.log(`controller RSS after each run (median, Node.js ${runtime.version}): ${rssMiB.toFixed(0)} MiB`);
  mkdirSync(results, { recursive: true });
  const file = join(results, 'membership.json');
  writeFileSync(
    file,
    `${JSON.stringify({ bench: 'membership', node: process.version, controllerNodeVersion: runtime.version, etcd: version, date: new Date().toISOString(), rows, controllerRssMiB: rssMiB, samples: { ours, floor, podFloor, peer, rssMiB: rss } }, null, 2)}\n`,
  );
  console.log(`wrote ${file}`);
}
