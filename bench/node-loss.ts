// A node lost, on the real nodes (`npm run bench node-loss`): a 3-member etcd 3.6 cluster on four nodes (one spare),
// `spec.failureDetection.nodeNotReady` 20 s. Each run stops the node of the leader (kubelet, containerd and every
// container killed at once, the API not told, as test/e2e/cluster-node-loss.test.ts does) and measures from that
// moment until the EtcdCluster is Ready with 3 voters again, none of them the lost member; with the share of each
// step: the Node seen NotReady (the control plane's node-monitor-grace-period), the member removed from etcd (the
// bound passed, docs/design/membership.md "Lost members"), the replacement Ready. The bound itself is the floor: no
// one can replace the member sooner without replacing members that may come back. Then the node boots again, the
// controller deletes the stale Pod and PVC (whenScaled: Delete), and the next run starts from 3 Ready members.
// Medians of 3 runs with min and max; JSON in bench/results/node-loss.json. The controller runs on the Node.js the
// image ships (image/node-runtime.ts).
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CoreV1Api } from '@kubernetes/client-node';
import { withClient } from '../controller/etcd/client.js';
import { nodeRuntime } from '../image/node-runtime.js';
import { etcdVersions } from '../test/env/binaries.js';
import { NODE_MONITOR_GRACE_SECONDS } from '../test/env/component-flags.js';
import { startEnvironment } from '../test/env/environment.js';
import { waitFor } from '../test/env/wait.js';
import { controllerProcesses } from '../test/integration/helpers/membership-controller.js';
import {
  createClusterHandle,
  podNames,
  prepareNamespace,
} from '../test/integration/helpers/membership-kube.js';
import { median } from './stats.js';

const results = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bench', 'results');
const RUNS = 3;
const ns = 'bench-node-loss';
const name = 'nl';
const version = etcdVersions['3.6'];
/** `spec.failureDetection.nodeNotReady`, in seconds. */
const NODE_NOT_READY_SECONDS = 20;
const POLL_MS = 200;

/** Seconds from the node's stop until each step was first seen (read every 200 ms). */
export interface NodeLossSample {
  /** The Node's Ready condition no longer True. */
  readonly nodeNotReady: number;
  /** The lost member gone from the EtcdCluster's status (removed from etcd). */
  readonly removed: number;
  /** Ready with 3 voters, the lost member not among them. */
  readonly replaced: number;
}

export interface NodeLossResults {
  readonly bench: 'node-loss';
  readonly date: string;
  readonly runs: number;
  /** The Node.js the controller ran on (the image's); absent before 2026-12-05 (the bench's own, Node.js 20). */
  readonly controllerNodeVersion?: string;
  /** Node-monitor-grace-period + nodeNotReady: the earliest a member on a dead node may be replaced. */
  readonly boundSeconds: number;
  readonly nodeMonitorGraceSeconds: number;
  readonly nodeNotReadySeconds: number;
  /** Medians of the samples. */
  readonly nodeNotReadyMedianSeconds: number;
  readonly removedMedianSeconds: number;
  readonly replacedMedianSeconds: number;
  readonly replacedMinSeconds: number;
  readonly replacedMaxSeconds: number;
  readonly samples: readonly NodeLossSample[];
}

export async function run(): Promise<void> {
  const runtime = await nodeRuntime();
  const env = await startEnvironment({ nodes: 4 });
  const controllers = await controllerProcesses(env, { namespaces: [ns], node: runtime.node });
  const core = env.kubeConfig.makeApiClient(CoreV1Api);
  const samples: NodeLossSample[] = [];
  try {
    await prepareNamespace(env, ns);
    await controllers.start();
    const cluster = await createClusterHandle(env, ns, name);
    await cluster.apply({
      size: 3,
      version,
      failureDetection: { nodeNotReady: `${NODE_NOT_READY_SECONDS}s` },
      persistentVolumeClaimRetentionPolicy: { whenScaled: 'Delete' },
    });
    const nodeOf = async (pod: string) =>
      (await core.readNamespacedPod({ namespace: ns, name: pod })).spec?.nodeName as string;
    for (let index = 0; index < RUNS; index += 1) {
      await cluster.readyAt(3);
      const before = await cluster.membership();
      // The client Service answers a moment after Ready (its endpoints, the network policy enforcer's admission).
      const leaderId = await waitFor(
        () =>
          withClient(cluster.clientURL, async (client) => (await client.maintenance.status()).leader).catch(
            () => undefined,
          ),
        { what: `the leader, asked through ${cluster.clientURL}`, timeoutMs: 60_000, intervalMs: 1_000 },
      );
      const lost = [...before.ids.entries()].find(([, id]) => id === leaderId)?.[0];
      if (!lost) throw new Error(`the leader ${leaderId} is none of ${podNames(before).join(', ')}`);
      const node = await nodeOf(lost);
      const start = performance.now();
      const at = () => (performance.now() - start) / 1000;
      await env.faults.stopNode(node);
      const seen: { -readonly [K in keyof NodeLossSample]?: number } = {};
      await waitFor(
        async () => {
          const [nodeObject, status] = await Promise.all([
            core.readNode({ name: node }),
            cluster.read().then((read) => read.status),
          ]);
          const ready = nodeObject.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
          if (!ready) seen.nodeNotReady ??= at();
          const members = status?.members ?? [];
          if (!members.some((member) => member.name === lost)) seen.removed ??= at();
          const clusterReady = status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
          const voters = members.filter((member) => member.ready && !member.learner && member.name !== lost);
          if (clusterReady && voters.length === 3 && members.length === 3) seen.replaced ??= at();
          return seen.replaced !== undefined;
        },
        { what: `${lost} (node ${node}) replaced, Ready at 3`, timeoutMs: 300_000, intervalMs: POLL_MS },
      );
      const { nodeNotReady, removed, replaced } = seen;
      if (nodeNotReady === undefined || removed === undefined || replaced === undefined)
        throw new Error(`run ${index}: a step was never seen (${JSON.stringify(seen)})`);
      samples.push({ nodeNotReady, removed, replaced });
      console.log(JSON.stringify({ run: index, lost, node, nodeNotReady, removed, replaced }));
      // The node boots again; its stale Pod and PVC go, and it is the spare of the next run.
      await env.faults.restartNode(node);
      await waitFor(
        async () => {
          const membership = await cluster.membership();
          return !podNames(membership).includes(lost) && !membership.pvcs.includes(`${lost}-data`);
        },
        { what: `${lost}'s Pod and PVC gone`, timeoutMs: 180_000, intervalMs: 1_000 },
      );
    }
  } finally {
    await controllers.stop();
    await env.stop();
  }
  const replaced = samples.map((sample) => sample.replaced);
  const output: NodeLossResults = {
    bench: 'node-loss',
    date: new Date().toISOString(),
    runs: samples.length,
    controllerNodeVersion: runtime.version,
    boundSeconds: NODE_MONITOR_GRACE_SECONDS + NODE_NOT_READY_SECONDS,
    nodeMonitorGraceSeconds: NODE_MONITOR_GRACE_SECONDS,
    nodeNotReadySeconds: NODE_NOT_READY_SECONDS,
    nodeNotReadyMedianSeconds: median(samples.map((sample) => sample.nodeNotReady)),
    removedMedianSeconds: median(samples.map((sample) => sample.removed)),
    replacedMedianSeconds: median(replaced),
    replacedMinSeconds: Math.min(...replaced),
    replacedMaxSeconds: Math.max(...replaced),
    samples,
  };
  console.log(
    `\nnode lost (median of ${output.runs}, etcd ${version}): NotReady ${output.nodeNotReadyMedianSeconds.toFixed(1)} s, removed ${output.removedMedianSeconds.toFixed(1)} s, 3 Ready ${output.replacedMedianSeconds.toFixed(1)} s (${output.replacedMinSeconds.toFixed(1)}-${output.replacedMaxSeconds.toFixed(1)}); bound ${output.boundSeconds} s`,
  );
  mkdirSync(results, { recursive: true });
  const file = join(results, 'node-loss.json');
  writeFileSync(file, `${JSON.stringify(output, null, 2)}\n`);
  console.log(`wrote ${file}`);
}
