// Rolling upgrade speed on the local Kubernetes, beside two floors measured in the same run: the fair floor, our own
// member Pods on the same nodes rolled by a script (podsFloorRun); and the same etcd builds
// upgraded by hand with etcdctl on loopback, no Kubernetes (each member in turn, the leader last after
// `etcdctl move-leader`: stop it, start the next version on its data dir, wait until it is healthy and answers a
// linearizable read). Cases: a size-3 and a size-5 cluster from etcd 3.5 to 3.6. Medians over 3 runs (ours with min and max); a table on
// stdout, JSON in bench/results/rolling.json. `npm run bench rolling`. The controller runs on the Node.js the image
// ships (image/node-runtime.ts).
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { listMembers, memberStatus, moveLeader } from '../controller/etcd/members.js';
import { nodeRuntime } from '../image/node-runtime.js';
import { etcdBinary, etcdVersions } from '../test/env/binaries.js';
import { type Environment, startEnvironment } from '../test/env/environment.js';
import { waitFor } from '../test/env/wait.js';
import { controllerProcesses } from '../test/integration/helpers/membership-controller.js';
import { createTestCluster, type TestCluster } from '../test/integration/helpers/membership-etcd.js';
import {
  type ClusterHandle,
  createClusterHandle,
  prepareNamespace,
} from '../test/integration/helpers/membership-kube.js';
import { byHand, removeAll, removeCluster } from './membership-pods.js';
import { median } from './stats.js';

const results = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bench', 'results');
const RUNS = 3;
const ns = 'bench-rolling';
const from = etcdVersions['3.5'];
const to = etcdVersions['3.6'];
const SIZES = [3, 5] as const;
const execFileAsync = promisify(execFile);

type Sample = Record<`size ${(typeof SIZES)[number]}`, number>;

// ---- the floor: etcdctl by hand -------------------------------------------------------------------------------

async function etcdctl(endpoint: string, args: string[]): Promise<string> {
  const { stdout } = await execFileAsync(etcdBinary(to, 'etcdctl'), [`--endpoints=${endpoint}`, ...args], {
    env: { PATH: process.env.PATH ?? '' },
  });
  return stdout;
}

/** Healthy and caught up, as an operator checks by hand: `endpoint health`, then a linearizable read through it. */
async function ready(cluster: TestCluster, name: string): Promise<void> {
  const url = cluster.members.get(name)?.clientURL as string;
  await waitFor(
    async () => {
      await etcdctl(url, ['endpoint', 'health']);
      await etcdctl(url, ['get', '--consistency=l', 'bench']);
      return true;
    },
    { what: `${name} healthy and caught up`, timeoutMs: 60_000, intervalMs: 100 },
  );
}

async function floorRun(size: number): Promise<number> {
  const cluster = await createTestCluster('3.5');
  try {
    const names = Array.from({ length: size }, (_, index) => `m${index}`);
    for (const name of names) await cluster.reserve(name);
    for (const name of names) cluster.start(name, 'new', names, 'bench-rolling');
    for (const name of names) await ready(cluster, name);
    await etcdctl(cluster.members.get('m0')?.clientURL as string, ['put', 'bench', 'x']);
    const start = performance.now();
    const leader = (await cluster.waitForLeader(names)).name;
    for (const name of [...names.filter((n) => n !== leader), leader]) {
      // The leader last, after moving leadership away (if it still leads).
      if (name === leader && (await cluster.waitForLeader(names)).name === leader) {
        const target = names.find((n) => n !== leader) as string;
        const { memberId } = await memberStatus(cluster.members.get(target)?.clientURL as string);
        await etcdctl(cluster.members.get(leader)?.clientURL as string, [
          'move-leader',
          BigInt(memberId).toString(16),
        ]);
      }
      await cluster.members.get(name)?.process?.stop(30_000);
      cluster.start(name, 'existing', names, undefined, { version: '3.6' });
      await ready(cluster, name);
    }
    return performance.now() - start;
  } finally {
    await cluster.stop();
  }
}

// ---- ours: the controller on the local Kubernetes --------------------------------------------------------------

async function rolled(cluster: ClusterHandle, size: number): Promise<void> {
  await waitFor(
    async () => {
      const object = await cluster.read();
      const status = object.status;
      const progressing = status?.conditions?.find((condition) => condition.type === 'Progressing');
      return (
        status?.observedGeneration === object.metadata.generation &&
        status?.currentVersion === to &&
        status.updatedMembers === size &&
        progressing?.status === 'False'
      );
    },
    { what: `${cluster.name} rolled to ${to}`, timeoutMs: 600_000, intervalMs: 200 },
  );
}

// ---- the fair floor: our member Pods on the same nodes, rolled by a script ------------------------------------

/**
 * The same roll done by a script on the same nodes: our member Pods and PVCs of a static cluster at `from` (made
 * without the controller), then each member in turn, the leader last after `move-leader`: its Pod deleted and made
 * again at `to` on its PVC, then waited for until it answers at `to` and has caught up. What ours costs beyond
 * that is the controller's.
 */
async function podsFloorRun(env: Environment, size: number, index: number): Promise<number> {
  const name = `hand${size}-${index}`;
  await createClusterHandle(env, ns, name);
  const hand = byHand(env, ns, name, from);
  try {
    await hand.startStatic(size);
    const members = Array.from({ length: size }, (_, member) => hand.member(member));
    const start = performance.now();
    const { leaderId } = await memberStatus(hand.url(0));
    const { members: listed } = await listMembers(hand.url(0));
    const leader = members.indexOf(listed.find((member) => member.id === leaderId)?.name ?? '');
    if (leader < 0) throw new Error(`no leader among ${members.join(', ')}`);
    const order = [...members.keys()].filter((member) => member !== leader);
    for (const member of [...order, leader]) {
      if (member === leader) {
        const now = await memberStatus(hand.url(leader));
        const target = listed.find((entry) => entry.name === hand.member(order[0] as number));
        if (now.leaderId === now.memberId && target) await moveLeader(hand.url(leader), target.id);
      }
      await hand.restart(member, members, to);
    }
    return performance.now() - start;
  } finally {
    await removeAll(env, ns, name);
  }
}

async function ourRun(env: Environment, size: number, index: number): Promise<number> {
  const spec = {
    size,
    version: from,
    persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Delete', whenScaled: 'Delete' },
  };
  const cluster = await createClusterHandle(env, ns, `r${size}-${index}`);
  await cluster.apply(spec);
  await cluster.readyAt(size);
  const start = performance.now();
  await cluster.apply({ ...spec, version: to });
  await rolled(cluster, size);
  const elapsed = performance.now() - start;
  await removeCluster(env, ns, cluster.name);
  return elapsed;
}

export async function run(): Promise<void> {
  const runtime = await nodeRuntime();
  const env = await startEnvironment({ nodes: 3 });
  const controllers = await controllerProcesses(env, { namespaces: [ns], node: runtime.node });
  const ours: Sample[] = [];
  const floor: Sample[] = [];
  const pods: Sample[] = [];
  try {
    await prepareNamespace(env, ns);
    await controllers.start();
    for (let index = 0; index < RUNS; index += 1) {
      const oursSample = {} as Sample;
      const floorSample = {} as Sample;
      const podsSample = {} as Sample;
      for (const size of SIZES) {
        oursSample[`size ${size}`] = await ourRun(env, size, index);
        podsSample[`size ${size}`] = await podsFloorRun(env, size, index);
        floorSample[`size ${size}`] = await floorRun(size);
      }
      ours.push(oursSample);
      floor.push(floorSample);
      pods.push(podsSample);
    }
  } finally {
    await controllers.stop();
    await env.stop();
  }
  const rows = SIZES.map((size) => {
    const key = `size ${size}` as const;
    const samples = ours.map((sample) => sample[key]);
    const oursMs = median(samples);
    const floorMs = median(floor.map((sample) => sample[key]));
    const podFloorMs = median(pods.map((sample) => sample[key]));
    return {
      case: `${key}: ${from} → ${to}`,
      runs: RUNS,
      oursMs,
      ours: { minMs: Math.min(...samples), maxMs: Math.max(...samples) },
      floorMs,
      podFloorMs,
      ratio: oursMs / podFloorMs,
    };
  });
  console.log(
    `\nrolling upgrade (median of ${RUNS} runs; floors, leader last: our Pods rolled by a script on the same nodes, and the same etcd builds by hand with etcdctl on loopback)`,
  );
  console.log('case                          runs    ours s  pods s  loopback s  ratio (pods)');
  for (const r of rows) {
    console.log(
      `${r.case.padEnd(29)} ${String(r.runs).padStart(4)} ${(r.oursMs / 1000).toFixed(1).padStart(9)} ${(r.podFloorMs / 1000).toFixed(1).padStart(7)} ${(r.floorMs / 1000).toFixed(1).padStart(11)} ${r.ratio.toFixed(2).padStart(6)}`,
    );
  }
  mkdirSync(results, { recursive: true });
  const file = join(results, 'rolling.json');
  writeFileSync(
    file,
    `${JSON.stringify({ bench: 'rolling', node: process.version, controllerNodeVersion: runtime.version, from, to, date: new Date().toISOString(), rows, samples: { ours, floor, pods } }, null, 2)}\n`,
  );
  console.log(`wrote ${file}`);
}
