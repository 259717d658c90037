// The soak's checks on the real world (docs/design/soak.md, "The invariants"): after a step has converged, every
// invariant; while steps run, the ones that must hold at every moment. Each reads what it needs and hands it to the
// pure invariant functions; what they report becomes a violation of the step.
import { CoreV1Api } from '@kubernetes/client-node';
import { listBackups } from '../../controller/backup/list-backups.js';
import { waitFor } from '../env/wait.js';
import { backupViolations } from './backups.js';
import { drillBackup } from './drill.js';
import { alwaysViolations, convergedViolations } from './membership.js';
import { contentOf, etcdAnswer, membershipSnapshot, readCluster } from './observe.js';
import { podSecurityViolations } from './pod-security.js';
import { DisagreementClock, statusDisagreements } from './status.js';
import { watchViolations } from './watch.js';
import { SOAK_NAMESPACE, SOAK_PREFIX, type SoakClusterState, type SoakWorld } from './world.js';

/** One broken invariant: what, where, and the step that replays it. */
export interface SoakViolation {
  readonly step: number;
  readonly invariant:
    | 'writes'
    | 'watch'
    | 'membership'
    | 'status'
    | 'backups'
    | 'pod-security'
    | 'convergence';
  readonly cluster?: string;
  readonly detail: string;
}

/** How long status may disagree with etcd: the nodes' NotReady grace (20 s) and the controller's next pass after
 *  it, with room for a pass that waits on a dead member's timeouts. */
export const STATUS_BOUND_MS = 60_000;

export interface CheckCounts {
  converged: number;
  continuous: number;
  /** Listed backups restored by the drill (drill.ts), each once. */
  drilled: number;
}

/** Every invariant but status, once the step has converged (status is judged continuously, with its bound: it
 *  lags etcd by a probe and a pass). The cluster's writer is stopped meanwhile, so the content read is exactly what
 *  the record must explain; the caller starts it again. With `ready` false (a fault in place, the clusters still
 *  catching up) membership is left to the continuous checks. */
export async function checkConverged(
  world: SoakWorld,
  cluster: SoakClusterState,
  step: number,
  ready: boolean,
  counts: CheckCounts,
): Promise<SoakViolation[]> {
  const violations: SoakViolation[] = [];
  const add = (invariant: SoakViolation['invariant'], details: readonly string[]) => {
    for (const detail of details) violations.push({ step, invariant, cluster: cluster.name, detail });
  };
  // A read has no effect: retried while the cluster elects a leader after a fault, each time by a new client with a
  // connection of its own (world.ts): a connection through the Service to a member that died hangs, and the next
  // try must not reuse it.
  const { content } = await waitFor(() => world.withClient(cluster, (c) => contentOf(c, SOAK_PREFIX)), {
    what: `${cluster.name}: a read of ${SOAK_PREFIX}`,
    timeoutMs: 60_000,
    intervalMs: 1_000,
  });
  add(
    'writes',
    cluster.record
      .check(content)
      .map((v) => `${v.kind} ${v.key}: expected ${v.expected ?? '-'}, found ${v.found ?? '-'}`),
  );
  if (cluster.watcher) add('watch', watchViolations(cluster.watcher.log, cluster.record.ackedNow()));
  if (ready && !cluster.paused) {
    // Read like the content, and for the same reason: the member list comes through the Service from one member,
    // and a new client's first connection may fail (seed 3, step 24: `UNAVAILABLE: No connection established` on
    // the member list, right after the content read had succeeded). What is judged is the list once read.
    const snapshot = await waitFor(() => membershipSnapshot(world, cluster, cluster.size), {
      what: `${cluster.name}: etcd's member list, the member Pods and the PVCs`,
      timeoutMs: 60_000,
      intervalMs: 1_000,
    });
    add(
      'membership',
      convergedViolations(snapshot).map((v) => `${v.kind}: ${v.detail}`),
    );
  }
  if (world.minio.process()) {
    const listing = await listBackups(world.s3, world.bucket, `${SOAK_NAMESPACE}/${cluster.name}/`);
    add('backups', backupViolations(listing, cluster.backups));
    for (const backup of listing.backups) {
      if (cluster.drilled.has(backup.key)) continue;
      const problem = await drillBackup(world.minio, world.bucket, backup);
      cluster.drilled.add(backup.key);
      counts.drilled += 1;
      if (problem) add('backups', [problem]);
    }
  }
  return violations;
}

/** No Pod in the soak's namespace runs as root or with a writable root filesystem. */
export async function checkPods(world: SoakWorld, step: number): Promise<SoakViolation[]> {
  const pods = await world.env.kubeConfig
    .makeApiClient(CoreV1Api)
    .listNamespacedPod({ namespace: SOAK_NAMESPACE });
  return pods.items.flatMap((pod) =>
    podSecurityViolations(pod).map((detail) => ({ step, invariant: 'pod-security' as const, detail })),
  );
}

/** The invariants of every moment, checked every `intervalMs` until stopped: membership, and status against etcd
 *  within {@link STATUS_BOUND_MS}. A read that fails is skipped (the API server or etcd may be down by design). */
export function startContinuousChecks(
  world: SoakWorld,
  currentStep: () => number,
  report: (violation: SoakViolation) => void,
  counts: CheckCounts,
  intervalMs = 3_000,
): { stop(): Promise<void> } {
  const clocks = new Map(
    Object.keys(world.clusters).map((name) => [name, new DisagreementClock(STATUS_BOUND_MS)]),
  );
  const reported = new Set<string>();
  let stopped = false;
  const once = async (cluster: SoakClusterState) => {
    const step = currentStep();
    // While a scale runs, the voters may number the larger of the two sizes (plus the one being added).
    const snapshot = await membershipSnapshot(world, cluster, Math.max(cluster.size, cluster.sizeBefore));
    counts.continuous += 1;
    for (const v of alwaysViolations(snapshot))
      report({ step, invariant: 'membership', cluster: cluster.name, detail: `${v.kind}: ${v.detail}` });
    if (cluster.paused) return;
    const status = (await readCluster(world, cluster.name)).status;
    const answer = await etcdAnswer(world, cluster);
    const lasting = clocks
      .get(cluster.name)
      ?.observe(Date.now(), statusDisagreements(status?.conditions ?? [], cluster.size, answer));
    for (const { disagreement, forMs } of lasting ?? []) {
      // Reported once per disagreement and step: it lasts until the status catches up.
      const key = `${step}:${cluster.name}:${disagreement}`;
      if (reported.has(key)) continue;
      reported.add(key);
      report({ step, invariant: 'status', cluster: cluster.name, detail: `${disagreement} for ${forMs} ms` });
    }
  };
  const loop = (async () => {
    while (!stopped) {
      for (const cluster of Object.values(world.clusters)) await once(cluster).catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
    },
  };
}
