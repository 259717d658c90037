// The soak's steps on the real world (docs/design/soak.md, "The executor"): each operation of the plan done as a
// user, a failing machine or an operator would do it, and what "converged" means for it. `act` does the operation
// and returns once it is done (a fault in place, a request accepted, a restore completed); `converged` waits until
// the world has settled after it.
import { randomBytes } from 'node:crypto';
import { BatchV1Api, CoreV1Api, CustomObjectsApi, type V1Pod } from '@kubernetes/client-node';
import type { Etcd3 } from 'etcd3';
import { ANNOTATION_EVICT } from '../../constructs/conventions/annotations.js';
import { memberSelectorString } from '../../constructs/conventions/labels.js';
import { RESTORE_REVISION_BUMP } from '../../controller/restore/etcd-version.js';
import { RESTORE_INIT_CONTAINER } from '../../controller/restore/seed-init-container.js';
import { loseMembersWithData } from '../env/lose-data.js';
import { waitFor } from '../env/wait.js';
import { backupResult, restoreObjects } from '../integration/helpers/restore-kube.js';
import { convergedViolations } from './membership.js';
import { etcdAnswer, liveMemberPods, memberPods, membershipSnapshot, readCluster } from './observe.js';
import { pickMember, type SoakCluster, type SoakOperation } from './plan.js';
import { newestSeed, reportedBump } from './restore-result.js';
import { reseedWhenLost } from './runbook.js';
import { SOAK_NAMESPACE, SOAK_QUOTA_BYTES, type SoakClusterState, type SoakWorld } from './world.js';

/** How long a step may take to converge before the soak reports it as a violation. */
export const CONVERGE_TIMEOUT_MS = 600_000;

async function patchSpec(
  world: SoakWorld,
  cluster: SoakCluster,
  spec: Record<string, unknown>,
): Promise<void> {
  await world.env.kubectl([
    'patch',
    'etcdcluster',
    cluster,
    '-n',
    SOAK_NAMESPACE,
    '--type=merge',
    '-p',
    JSON.stringify({ spec }),
  ]);
}

/** Why the cluster has not converged yet, or nothing: Ready at `size` with nothing in progress for its current
 *  generation (a roll's first pass still reads Ready while it deletes a Pod), its voters, live Pods and volumes in
 *  use naming the same members, and etcd agreeing: every voter answers a linearizable read, no learner. The status
 *  alone is not enough: a step that changes no generation (a Pod deleted, a node lost) finds the status of before. */
async function notConverged(world: SoakWorld, cluster: SoakClusterState): Promise<string | undefined> {
  const resource = await readCluster(world, cluster.name);
  const status = resource.status;
  const condition = (type: string) => status?.conditions?.find((c) => c.type === type)?.status;
  if (
    condition('Ready') !== 'True' ||
    condition('Progressing') !== 'False' ||
    status?.observedGeneration !== resource.metadata?.generation ||
    status?.readyMembers !== cluster.size ||
    status?.replicas !== cluster.size
  )
    return `status: Ready ${condition('Ready')}, Progressing ${condition('Progressing')}, ${status?.readyMembers}/${status?.replicas} ready of ${cluster.size}, observed generation ${status?.observedGeneration} of ${resource.metadata?.generation}`;
  const membership = convergedViolations(await membershipSnapshot(world, cluster, cluster.size));
  if (membership.length) return membership.map((v) => v.detail).join('; ');
  const etcd = await etcdAnswer(world, cluster);
  if (!etcd.quorum || etcd.healthyVoters !== cluster.size || etcd.voters !== cluster.size || etcd.learners)
    return `etcd: ${etcd.healthyVoters}/${etcd.voters} voters healthy of ${cluster.size}, ${etcd.learners} learners`;
  return undefined;
}

/**
 * Every cluster not paused has converged ({@link notConverged}). A cluster paused while this waits (the next step
 * overlapping this one: seed 4, step 153 paused `plain` 0.2 s into step 152's scale) does nothing until it is
 * unpaused, so the wait for it ends there and the unpause's own convergence judges it.
 */
async function allReady(world: SoakWorld): Promise<void> {
  for (const cluster of Object.values(world.clusters)) {
    let last: string | undefined;
    let paused = false;
    await waitFor(
      async () => {
        if (cluster.paused) {
          paused = true;
          return true;
        }
        last = await notConverged(world, cluster);
        return last === undefined;
      },
      {
        what: `${cluster.name} to converge (or be paused)`,
        timeoutMs: CONVERGE_TIMEOUT_MS,
        intervalMs: 1_000,
      },
    ).catch((error: Error) => {
      throw new Error(`${error.message} (${last})`);
    });
    if (!paused) cluster.sizeBefore = cluster.size;
  }
}

let jobs = 0;

/** An operation the world did not let complete (a backup Job whose Pod landed on a node that then died): reported
 *  in the summary with its reason, not a violation; the invariants still judge what it left behind. */
export class IncompleteOperation extends Error {}

/** How long a backup Job may take: a Pod scheduled onto a node that dies is evicted after the default 300 s
 *  toleration, so a longer wait would only wait for that. */
const BACKUP_TIMEOUT_MS = 300_000;

/** A backup now, a Job from the cluster's CronJob; recorded with the history it copied. */
async function backup(world: SoakWorld, cluster: SoakClusterState): Promise<void> {
  const history = cluster.record.current;
  const job = await jobFromCronJob(world, cluster, 'backup');
  const outcome = await jobOutcome(world, job, BACKUP_TIMEOUT_MS);
  const log = await jobLog(world, job);
  if (outcome !== 'Complete')
    throw new IncompleteOperation(`backup Job ${job} ${outcome}: ${log.slice(-400)}`);
  const result = backupResult(log);
  cluster.backups.push({ ...result, history });
}

/** `kubectl create job --from=cronjob/<cluster>-<kind>`, as the README says; returns the Job's name. */
async function jobFromCronJob(
  world: SoakWorld,
  cluster: SoakClusterState,
  kind: 'backup' | 'defrag',
): Promise<string> {
  jobs += 1;
  const job = `${cluster.name}-${kind}-${jobs}`;
  await world.env.kubectl([
    'create',
    'job',
    `--from=cronjob/${cluster.name}-${kind}`,
    job,
    '-n',
    SOAK_NAMESPACE,
  ]);
  return job;
}

/** `Complete`, `Failed`, or `did not finish within <ms> ms`. */
async function jobOutcome(world: SoakWorld, job: string, timeoutMs: number): Promise<string> {
  return waitFor(
    async () =>
      (
        await world.env.kubeConfig
          .makeApiClient(BatchV1Api)
          .readNamespacedJob({ namespace: SOAK_NAMESPACE, name: job })
      ).status?.conditions?.find((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True')
        ?.type,
    { what: `${job} to finish`, timeoutMs, intervalMs: 1_000 },
  ).catch(() => `did not finish within ${timeoutMs} ms`);
}

/** The logs of a Job's Pods, each line after the Pod's name, node and phase. */
async function jobLog(world: SoakWorld, job: string): Promise<string> {
  const pods = await world.env.kubeConfig
    .makeApiClient(CoreV1Api)
    .listNamespacedPod({ namespace: SOAK_NAMESPACE, labelSelector: `job-name=${job}` });
  const logs = await Promise.all(
    pods.items.map(async (pod) => {
      const name = pod.metadata?.name as string;
      const out = await world.env.kubectl(['logs', '-n', SOAK_NAMESPACE, name], { allowFailure: true });
      return `${name} on ${pod.spec?.nodeName ?? '-'} ${pod.status?.phase ?? '-'}:\n${out.stdout}${out.stderr}`;
    }),
  );
  return logs.join('\n');
}

/** Creates an EtcdRestore and waits until it is Completed; fails with its conditions when it fails. */
async function restore(
  world: SoakWorld,
  cluster: SoakClusterState,
  spec: Record<string, unknown>,
  step: number,
): Promise<void> {
  jobs += 1;
  const name = `${cluster.name}-restore-${jobs}`;
  await world.env.kubeConfig.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
    group: 'etcd.gitops.dev',
    version: 'v1alpha1',
    plural: 'etcdrestores',
    namespace: SOAK_NAMESPACE,
    body: {
      apiVersion: 'etcd.gitops.dev/v1alpha1',
      kind: 'EtcdRestore',
      metadata: { name },
      spec: { clusterName: cluster.name, ...spec },
    },
  });
  const objects = restoreObjects(world.env, SOAK_NAMESPACE);
  // Failed is an end too: it is told at once, not retried until the timeout. A seed the cluster reports lost (its
  // node stopped or cut by an earlier step) is the user's to delete (runbook.ts), and the soak does it.
  const status = await waitFor(
    async () => {
      const read = (await objects.readRestore(name)).status;
      if (read?.phase === 'Completed' || read?.phase === 'Failed') return read;
      const done = await reseedWhenLost(world, cluster, step, nodesOutNames(world));
      if (done) {
        world.runbook.push(done);
        process.stdout.write(
          `${new Date().toISOString()} RUNBOOK step ${step} ${cluster.name}: ${done.what}\n`,
        );
      }
      return false;
    },
    { what: `${name} Completed or Failed`, timeoutMs: CONVERGE_TIMEOUT_MS, intervalMs: 1_000 },
  );
  if (status.phase === 'Failed') throw new Error(`${name} failed: ${status.message ?? ''}`);
}

/**
 * The restored cluster's content is its source up to revision (now − the bump): the restore raised the revision by
 * exactly the bump, and nothing has written since (the writer was stopped before the restore).
 */
/**
 * Where a restore's content ends, known only from the restored cluster: its revision now (no write since) less the
 * bump. A backup's recorded revision is only a lower bound (the snapshot may hold a few later writes, backup.md).
 */
async function restoredRevision(world: SoakWorld, cluster: SoakClusterState): Promise<bigint> {
  const now = await waitFor(
    () =>
      world.withClient(cluster, async (client) =>
        BigInt((await client.get('soak-none').exec()).header.revision),
      ),
    { what: `${cluster.name}: a read after the restore`, timeoutMs: 60_000, intervalMs: 1_000 },
  );
  return now - (await appliedBump(world, cluster));
}

/**
 * The bump the restore applied, from its seed's report: more than 10⁹ when the revision floor decided. Should the
 * seed Pod be gone (an overlapping step replaced it), the fixed bump, said in the log: it is exact unless the floor
 * decided, and a wrong one shows as a write-record violation naming this step.
 */
async function appliedBump(world: SoakWorld, cluster: SoakClusterState): Promise<bigint> {
  const pods = await world.env.kubeConfig
    .makeApiClient(CoreV1Api)
    .listNamespacedPod({ namespace: SOAK_NAMESPACE, labelSelector: memberSelectorString(cluster.name) });
  const seed = newestSeed(pods.items);
  const log = seed
    ? await world.env.kubectl(['logs', '-n', SOAK_NAMESPACE, seed, '-c', RESTORE_INIT_CONTAINER], {
        allowFailure: true,
      })
    : undefined;
  const bump = log ? reportedBump(`${log.stdout}\n${log.stderr}`) : undefined;
  if (bump !== undefined) return bump;
  process.stdout.write(
    `${new Date().toISOString()} ${cluster.name}: no restore report on a seed Pod (${seed ?? 'none'}); assuming the fixed bump\n`,
  );
  return BigInt(RESTORE_REVISION_BUMP);
}

const FILL_VALUE_BYTES = 512 * 1024;

/**
 * The runbook of a full database (docs/design/compaction-quota-defrag.md): fill the cluster with keys of its own
 * until etcd refuses a write with NOSPACE, delete them (etcd still takes deletes), wait until its periodic
 * compaction has passed the deletion, then run the defrag Job from the cluster's CronJob, which frees the space and
 * disarms the alarm.
 */
async function fillAndDefrag(world: SoakWorld, cluster: SoakClusterState): Promise<void> {
  // Each call on a new client, retried while the cluster is briefly unreachable (an overlapping step deleted the
  // member its connection went to): these are the soak's own writes, which no invariant judges.
  const retried = <T>(what: string, call: (client: Etcd3) => Promise<T>) =>
    waitFor(() => world.withClient(cluster, call), {
      what: `${cluster.name}: ${what}`,
      timeoutMs: 60_000,
      intervalMs: 1_000,
    });
  let refused = false;
  let written = 0;
  const fill = async () => {
    while (!refused && written < (2 * SOAK_QUOTA_BYTES) / FILL_VALUE_BYTES) {
      written += 1;
      const key = `fill/${written}`;
      const value = randomBytes(FILL_VALUE_BYTES).toString('base64');
      // etcd's NOSPACE refusal is the answer sought, not a failure to retry.
      const answer = await retried(`a put of ${key}`, (client) =>
        client
          .put(key)
          .value(value)
          .exec()
          .then(
            () => 'written' as const,
            (error: Error) => {
              if (/database space exceeded/.test(error.message)) return 'refused' as const;
              throw error;
            },
          ),
      );
      if (answer === 'refused') refused = true;
    }
  };
  await Promise.all([fill(), fill(), fill(), fill()]);
  if (!refused) throw new Error(`${cluster.name}: twice the quota written, no NOSPACE`);
  const deleted = BigInt(
    (await retried('the delete of fill/', (client) => client.delete().prefix('fill/').exec())).header
      .revision,
  );
  await waitFor(
    () =>
      world.withClient(cluster, (client) =>
        client
          .get('fill/1')
          .revision(String(deleted - 1n))
          .string()
          .then(
            () => false,
            (error: Error) => /compacted/.test(error.message),
          ),
      ),
    {
      what: `${cluster.name}: auto-compaction past revision ${deleted - 1n}`,
      timeoutMs: 120_000,
      intervalMs: 2_000,
    },
  );
  const job = await jobFromCronJob(world, cluster, 'defrag');
  const outcome = await jobOutcome(world, job, 180_000);
  if (outcome !== 'Complete') throw new Error(`${job} ${outcome}: ${(await jobLog(world, job)).slice(-400)}`);
}

export interface StepRun {
  /** Resolves once the world has settled after the step. */
  converged(): Promise<void>;
  /** `ready`: converged means every cluster not paused is Ready at its size; `fault`: a fault is in place (or an
   *  action done) and the clusters may still be catching up with it. */
  readonly until: 'ready' | 'fault';
}

const settled: StepRun = { converged: () => Promise.resolve(), until: 'fault' };

/**
 * A node fault the soak does not inject: the node holds a majority of some cluster's members. Member anti-affinity
 * is only preferred (three nodes, sizes up to five), so replacements and rescheduling can put two of three members
 * on one node; one node's loss then takes that cluster's quorum, which no controller can give back before the node
 * returns. The plan's model ("each cluster keeps a majority elsewhere") does not hold then: the step is reported
 * incomplete, and its undo does nothing.
 */
async function notAMajority(world: SoakWorld, planNode: number | undefined, name: string): Promise<void> {
  for (const cluster of Object.values(world.clusters)) {
    const members = await liveMemberPods(world, cluster.name);
    const here = members.filter((pod) => pod.spec?.nodeName === name).length;
    if (here >= Math.floor(cluster.size / 2) + 1) {
      if (planNode !== undefined) world.faultsNotDone.add(planNode);
      throw new IncompleteOperation(
        `${name} holds ${here} of ${cluster.name}'s ${members.length} members (size ${cluster.size}): its loss would take the quorum`,
      );
    }
  }
}

/**
 * A volume the soak does not wipe: the member's data is lost for good, so its cluster must keep a majority among
 * the others, and a member on a node the soak has stopped or cut off counts as gone (until that node returns). The
 * plan knows nodes, not where members run (seed 3, step 148: node 2 stopped with one of `plain`'s three members,
 * then a second member's volume wiped: quorum lost until the node came back, which the plan would do only after
 * the wipe converged). Reported incomplete, like a node fault on a majority.
 */
async function notTheQuorum(world: SoakWorld, cluster: SoakClusterState, member: string): Promise<void> {
  const out = nodesOutNames(world);
  const others = (await reachableMemberPods(world, cluster)).filter((pod) => pod.metadata?.name !== member);
  const majority = Math.floor(cluster.size / 2) + 1;
  if (others.length < majority)
    throw new IncompleteOperation(
      `wiping ${member} would leave ${others.length} of ${cluster.name}'s members (size ${cluster.size}) off the nodes ` +
        `cut or stopped (${[...out].join(', ') || 'none'}): fewer than a majority (${majority})`,
    );
}

/** The names of the nodes the soak has stopped or cut off (`world.nodesOut`). */
function nodesOutNames(world: SoakWorld): Set<string> {
  return new Set([...world.nodesOut].map((n) => world.nodeNames[n - 1] ?? `node ${n}`));
}

/** The cluster's live member Pods bound to a node the soak has not stopped or cut off. */
async function reachableMemberPods(world: SoakWorld, cluster: SoakClusterState): Promise<V1Pod[]> {
  const out = nodesOutNames(world);
  return (await liveMemberPods(world, cluster.name)).filter(
    (pod) => pod.spec?.nodeName !== undefined && !out.has(pod.spec.nodeName),
  );
}

/** The member a survivor restore keeps: the first by name among the reachable ones; none → not done. */
async function reachableSurvivor(world: SoakWorld, cluster: SoakClusterState): Promise<string> {
  const names = (await reachableMemberPods(world, cluster)).map((pod) => pod.metadata?.name ?? '').sort();
  if (names[0]) return names[0];
  throw new IncompleteOperation(
    `every live member of ${cluster.name} is on a node cut or stopped (${[...nodesOutNames(world)].join(', ')}): no survivor to restore from`,
  );
}

/** A member Pod as a step found it: its uid (undefined: no such Pod), whether it is being deleted, and its etcd
 *  container's restarts. */
interface PodState {
  readonly uid?: string;
  readonly deleting: boolean;
  readonly restarts: number;
}

async function podState(world: SoakWorld, name: string): Promise<PodState> {
  const pod = await world.env.kubeConfig
    .makeApiClient(CoreV1Api)
    .readNamespacedPod({ namespace: SOAK_NAMESPACE, name })
    .catch(() => undefined);
  const etcd = pod?.status?.containerStatuses?.find((c) => c.name === 'etcd');
  return {
    uid: pod?.metadata?.uid,
    deleting: pod?.metadata?.deletionTimestamp !== undefined,
    restarts: etcd?.restartCount ?? 0,
  };
}

/**
 * A removed member's volume counts as on its way out only while its Pod is there (membership.ts), and the controller
 * deletes it on its pass after the Pod is gone. So a step that brings Pods' deletion to an end on a node converges
 * once no Pod there is left to go (`gone`: being deleted, or any) and every cluster is Ready with its volumes
 * matching. A replaced node's Pods stay until the API server's Pod garbage collector deletes them for their deleted
 * Node (after a quarantine of about 40 s); a node back from a stop or a network cut ends the deletion of its Pods
 * that the controller asked for meanwhile. Seed 3 was most likely judged converged before those deletions ended and
 * checked before that pass, at step 67 (a node replaced) and at step 73 (a network healed: `PVCs tls-0, …, tls-6`
 * against `etcd tls-1, tls-2, …`).
 */
function untilGoneThenReady(world: SoakWorld, node: string, gone: 'deleting' | 'all'): StepRun {
  return {
    until: 'ready',
    converged: async () => {
      const core = world.env.kubeConfig.makeApiClient(CoreV1Api);
      await waitFor(
        async () =>
          (
            await core.listNamespacedPod({
              namespace: SOAK_NAMESPACE,
              fieldSelector: `spec.nodeName=${node}`,
            })
          ).items.filter((pod) => gone === 'all' || pod.metadata?.deletionTimestamp !== undefined).length ===
          0,
        {
          what: gone === 'all' ? `no Pod left on ${node}` : `no Pod on ${node} being deleted`,
          timeoutMs: CONVERGE_TIMEOUT_MS,
          intervalMs: 1_000,
        },
      );
      await allReady(world);
    },
  };
}

/**
 * A step on one member Pod changes no generation, and the status of before reads converged until the controller
 * has seen it: first the Pod's answer to the step (being deleted, gone or replaced for a delete or an evict, its
 * etcd restarted for a wiped volume; a Pod on a node that is down stays terminating), then {@link allReady}. A
 * cluster paused meanwhile (the next step, overlapping this one) answers nothing until it is unpaused: an eviction
 * waits for the controller, so the wait ends there, and {@link allReady} judges the cluster after the unpause.
 */
function untilReactedThenReady(
  world: SoakWorld,
  cluster: SoakClusterState,
  member: string,
  before: PodState,
): StepRun {
  return {
    until: 'ready',
    converged: async () => {
      await waitFor(
        async () => {
          if (cluster.paused) return true;
          const now = await podState(world, member);
          return (
            now.uid !== before.uid || (now.deleting && !before.deleting) || now.restarts > before.restarts
          );
        },
        {
          what: `${member} being deleted, replaced or restarted (or ${cluster.name} paused)`,
          timeoutMs: CONVERGE_TIMEOUT_MS,
          intervalMs: 500,
        },
      );
      await allReady(world);
    },
  };
}
const untilAllReady = (world: SoakWorld): StepRun => ({ converged: () => allReady(world), until: 'ready' });

/** Does `op`, the plan's step `step`; returns how to wait for its convergence. */
export async function act(world: SoakWorld, op: SoakOperation, step: number): Promise<StepRun> {
  const core = world.env.kubeConfig.makeApiClient(CoreV1Api);
  const node = (n: number) => {
    const name = world.nodeNames[n - 1];
    if (!name) throw new Error(`no node ${n}`);
    return name;
  };
  switch (op.kind) {
    case 'scale': {
      const cluster = world.clusters[op.cluster];
      await patchSpec(world, op.cluster, { size: op.size });
      // Until it converges, the cluster may hold as many voters as the larger size (plus one being added).
      cluster.sizeBefore = Math.max(cluster.sizeBefore, cluster.size);
      cluster.size = op.size;
      return untilAllReady(world);
    }
    case 'deletePod':
    case 'wipeVolume':
    case 'evict': {
      const member = pickMember(await memberPods(world, op.cluster), op.pick);
      if (!member) return untilAllReady(world); // no live member Pod now (a restore or a node fault took them)
      const before = await podState(world, member);
      if (op.kind === 'deletePod')
        await core.deleteNamespacedPod({ namespace: SOAK_NAMESPACE, name: member });
      else if (op.kind === 'evict')
        await world.env.kubectl([
          'annotate',
          'pod',
          member,
          '-n',
          SOAK_NAMESPACE,
          `${ANNOTATION_EVICT}=true`,
        ]);
      else {
        // A lost disk: the volume emptied under the running member, which then dies.
        await notTheQuorum(world, world.clusters[op.cluster], member);
        await world.env.faults.wipeVolume(SOAK_NAMESPACE, `${member}-data`);
        await world.env.faults.killContainer(SOAK_NAMESPACE, member, 'etcd').catch(() => undefined);
      }
      return untilReactedThenReady(world, world.clusters[op.cluster], member, before);
    }
    case 'stopNode':
      await notAMajority(world, op.node, node(op.node));
      await world.env.faults.stopNode(node(op.node));
      world.nodesOut.add(op.node);
      return settled;
    case 'startNode':
      if (!world.faultsNotDone.delete(op.node)) await world.env.faults.restartNode(node(op.node));
      world.nodesOut.delete(op.node);
      return untilGoneThenReady(world, node(op.node), 'deleting');
    case 'cutNetwork':
      await notAMajority(world, op.node, node(op.node));
      await world.env.faults.setNodeNetwork(node(op.node), false);
      world.nodesOut.add(op.node);
      return settled;
    case 'healNetwork':
      if (!world.faultsNotDone.delete(op.node)) await world.env.faults.setNodeNetwork(node(op.node), true);
      world.nodesOut.delete(op.node);
      return untilGoneThenReady(world, node(op.node), 'deleting');
    case 'replaceNode': {
      // The machine dies for good and a new one joins (a cloud replacing an instance): the old Node object is
      // deleted, as the cloud's node lifecycle controller would, and the plan's node number names the new node.
      const old = node(op.node);
      await notAMajority(world, undefined, old);
      await world.env.faults.stopNode(old);
      await core.deleteNode({ name: old });
      const added = await world.env.nodes?.addNode();
      if (!added) throw new Error('replaceNode needs an environment with nodes');
      world.nodeNames[op.node - 1] = added.layout.name;
      return untilGoneThenReady(world, old, 'all');
    }
    case 'killLeader': {
      await world.controller.process.kill();
      world.controller = await world.controllers.start();
      return untilAllReady(world);
    }
    case 'restartApiServer':
      await world.env.faults.restartApiServer();
      return untilAllReady(world);
    case 'stopMinio':
      await world.minio.pause();
      return settled;
    case 'startMinio':
      await world.minio.resume();
      return settled;
    case 'backup':
      await backup(world, world.clusters[op.cluster]);
      return settled;
    case 'restoreBackup': {
      const cluster = world.clusters[op.cluster];
      if (cluster.backups.length === 0) await backup(world, cluster);
      const newest = cluster.backups.at(-1) as NonNullable<ReturnType<typeof cluster.backups.at>>;
      await world.stopWriter(cluster);
      await restore(
        world,
        cluster,
        {
          allowHealthyCluster: true,
          backup: {
            bucket: world.bucket,
            key: newest.key,
            endpoint: world.minio.podEndpoint,
            forcePathStyle: true,
            credentialsSecretName: 's3',
          },
        },
        step,
      );
      await allReady(world);
      cluster.record.restoredFrom({
        history: newest.history,
        revision: await restoredRevision(world, cluster),
      });
      await world.startTraffic(cluster);
      return untilAllReady(world);
    }
    case 'restoreSurvivor': {
      // A forced quorum loss: every member but the survivor loses its Pod and volume. The survivor is the first
      // member (by name) on a node the soak has not stopped or cut off: a user restores from a member they can
      // reach (seed 3, step 149: the first by name was on a stopped node, the other two were destroyed, and the
      // restore could end only once that node returned, which the plan does after the step converges).
      const cluster = world.clusters[op.cluster];
      const members = await memberPods(world, op.cluster);
      if (members.length === 0) return untilAllReady(world);
      const survivor = await reachableSurvivor(world, cluster);
      const lost = members.filter((member) => member !== survivor);
      await world.stopWriter(cluster);
      await loseMembersWithData(core, SOAK_NAMESPACE, lost, { force: true });
      await restore(world, cluster, { survivor: { member: survivor } }, step);
      await allReady(world);
      cluster.record.restoredFromSurvivor(await restoredRevision(world, cluster));
      await world.startTraffic(cluster);
      return untilAllReady(world);
    }
    case 'upgrade':
      await patchSpec(world, op.cluster, { version: op.version });
      return untilAllReady(world);
    case 'resources':
      await patchSpec(world, op.cluster, { resources: { requests: { memory: op.memory } } });
      return untilAllReady(world);
    case 'pause':
      await patchSpec(world, op.cluster, { paused: true });
      world.clusters[op.cluster].paused = true;
      return settled;
    case 'unpause':
      await patchSpec(world, op.cluster, { paused: false });
      world.clusters[op.cluster].paused = false;
      return untilAllReady(world);
    case 'fillAndDefrag':
      await fillAndDefrag(world, world.clusters[op.cluster]);
      return untilAllReady(world);
  }
}
