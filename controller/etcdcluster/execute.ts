// Performs exactly one planned action: one etcd call or one Kubernetes write (docs/design/membership.md), except
// `CreatePVCs` and `CreatePods`, one write per seed PVC or Pod of a static bootstrap, sent together, `CreatePVCs`
// followed by the seed Pods once every PVC is made (docs/design/bootstrap.md), and a joiner's `AddLearner`, followed
// by its PVC and Pod (membership.md, "A joiner in one pass"). The restore branch's own actions are in
// execute-restore.ts.
import { PatchStrategy } from '@kubernetes/client-node';
import {
  ANNOTATION_INITIAL_CLUSTER_STATE,
  peerURL,
  pvcName,
  schemes,
} from '../../constructs/conventions/index.js';
import type { Endpoint } from '../etcd/client.js';
import {
  addLearner,
  disarmAlarm,
  type EtcdMember,
  isEtcdBusy,
  moveLeader,
  promoteMember,
  removeMember,
} from '../etcd/members.js';
import { describeSeedSource, seedSource } from '../restore/seed-init-container.js';
import {
  apiRefusal,
  apiStatus,
  deleteIgnoringNotFound,
  isAlreadyExists,
  patchOptions,
} from '../runtime/kube.js';
import type { ExecuteContext, Outcome } from './execute-context.js';
import { executeRestoreStep } from './execute-restore.js';
import { buildMemberPvc } from './member-pod.js';
import { REQUEUE } from './plan.js';
import { podForAction } from './pod-for-action.js';
import { CLUSTER_REASONS } from './reasons.js';
import { isRestoreLockAction } from './restore-types.js';
import { describeAction } from './status-progress.js';
import type { Action, CreatePodAction, CreatePvcAction } from './types.js';

const done = (reason: string, message: string, change?: string): Outcome => ({
  requeueAfterMs: REQUEUE.soon,
  events: [{ reason, message }],
  ...(change ? { change } : {}),
});

/** A membership change etcd accepted: the next step runs at once (nothing in Kubernetes changed to wake it). */
const changed = (reason: string, message: string, change: string): Outcome => ({
  ...done(reason, message, change),
  requeueAfterMs: REQUEUE.now,
});

function endpoint(context: ExecuteContext): Endpoint {
  const found = context.etcd?.healthyEndpoints[0];
  if (!found) throw new Error('no healthy etcd member to send a membership change to');
  return found;
}

async function createPvc(context: ExecuteContext, action: CreatePvcAction): Promise<Outcome> {
  const { member } = action;
  const pvc = buildMemberPvc(context.cluster, member, action.token, action.initialCluster);
  try {
    await context.core.createNamespacedPersistentVolumeClaim({
      namespace: pvc.metadata?.namespace as string,
      body: pvc,
    });
  } catch (error) {
    if (!isAlreadyExists(error)) throw error;
  }
  const initial = action.initialCluster ?? [];
  const of = initial.length > 1 ? ` (initial member of ${initial.join(', ')})` : '';
  return done(
    CLUSTER_REASONS.memberPVCCreated,
    `created PVC ${pvc.metadata?.name} for member ${member}${of}`,
  );
}

async function createPod(context: ExecuteContext, action: CreatePodAction): Promise<Outcome> {
  const pod = podForAction(context.cluster, action, context.image);
  try {
    await context.core.createNamespacedPod({ namespace: pod.metadata?.namespace as string, body: pod });
  } catch (error) {
    if (!isAlreadyExists(error)) throw error;
  }
  const reason = action.reason === 'seed' ? CLUSTER_REASONS.clusterSeeded : CLUSTER_REASONS.memberPodCreated;
  const source = seedSource(context.cluster, action);
  const restores = source ? `, restores ${describeSeedSource(source)}` : '';
  const message = `created Pod ${action.member} (${action.reason}, initial-cluster-state ${action.state}${restores})`;
  return {
    ...done(reason, message, action.reason === 'seed' ? 'seed' : undefined),
    requeueAfterMs: REQUEUE.starting,
  };
}

/**
 * Sends every write at once and waits for all of them; when some are refused the others are still made, and the pass
 * fails with one error that names every refusal (the first as its cause): the next pass finds what exists and creates
 * the rest.
 */
async function allOrRefusals(writes: readonly Promise<unknown>[]): Promise<void> {
  const refusals = (await Promise.allSettled(writes)).flatMap((result) =>
    result.status === 'rejected' ? [result.reason as unknown] : [],
  );
  if (refusals.length === 0) return;
  if (refusals.length === 1) throw refusals[0];
  const text = (error: unknown) =>
    apiRefusal(error)?.message ?? (error instanceof Error ? error.message : String(error));
  throw new Error(
    `${refusals.length} of ${writes.length} writes refused: ${refusals.map(text).join(' | ')}`,
    {
      cause: refusals[0],
    },
  );
}

/**
 * The seed PVCs of a static bootstrap, created at once (docs/design/bootstrap.md, step 2), then, only once every one
 * is made, its seed Pods, created at once (step 3). A PVC refused fails the pass before any Pod is sent; a Pod
 * refused ends the pass after the others are made, and the next pass's `CreatePods` reports it as refused.
 */
async function createPvcs(
  context: ExecuteContext,
  action: Extract<Action, { kind: 'CreatePVCs' }>,
): Promise<Outcome> {
  await allOrRefusals(action.pvcs.map((pvc) => createPvc(context, pvc)));
  const names = action.pvcs.map((pvc) => pvcName(pvc.member)).join(', ');
  const made = done(
    CLUSTER_REASONS.memberPVCCreated,
    `created PVCs ${names} (initial members ${action.pvcs[0]?.initialCluster?.join(', ')})`,
  );
  performed(context, { kind: 'CreatePVCs', pvcs: action.pvcs, pods: [] });
  if (action.pods.length === 0) return made;
  const pods = { kind: 'CreatePods', pods: action.pods } as const;
  try {
    const seeded = await createPods(context, pods);
    performed(context, pods);
    return { ...seeded, events: [...(made.events ?? []), ...(seeded.events ?? [])] };
  } catch (error) {
    context.log.warn(
      { action: pods, err: error },
      'a seed Pod was refused after its PVCs were made: the next pass makes what is missing',
    );
    return made;
  }
}

/** The seed Pods of a static bootstrap, created at once (docs/design/bootstrap.md, step 3). */
async function createPods(
  context: ExecuteContext,
  action: Extract<Action, { kind: 'CreatePods' }>,
): Promise<Outcome> {
  await allOrRefusals(action.pods.map((pod) => createPod(context, pod)));
  const [first] = action.pods;
  const names = action.pods.map((pod) => pod.member).join(', ');
  return {
    ...done(
      CLUSTER_REASONS.clusterSeeded,
      `created Pods ${names} (seed, initial-cluster-state new, initial cluster ${first?.initialCluster.join(', ')})`,
      'seed',
    ),
    requeueAfterMs: REQUEUE.starting,
  };
}

/**
 * The learner's PVC and Pod in the pass of its `AddLearner` (docs/design/membership.md, "A joiner in one pass"):
 * only when etcd's member list after the add is the `--initial-cluster` the plan gave the Pod; each write only after
 * the previous one succeeded. A refused write ends the pass after what was made (the next pass resumes at step 6).
 */
async function join(
  context: ExecuteContext,
  action: Extract<Action, { kind: 'AddLearner' }>,
  members: readonly EtcdMember[],
  added: Outcome,
): Promise<Outcome> {
  const { name, namespace } = context.cluster.metadata as { name: string; namespace: string };
  const scheme = schemes(context.cluster.spec.tls).peer;
  const planned = action.join.pod.initialCluster.map((member) => peerURL(name, namespace, member, scheme));
  const inEtcd = members.flatMap((member) => member.peerURLs);
  if (!sameSet(planned, inEtcd)) {
    context.log.info(
      { planned, inEtcd },
      'etcd holds other members than planned: the next pass makes the PVC and Pod from a fresh read',
    );
    return added;
  }
  let outcome = added;
  for (const write of [action.join.pvc, action.join.pod]) {
    if (!write) continue;
    try {
      const made =
        write.kind === 'CreatePVC' ? await createPvc(context, write) : await createPod(context, write);
      performed(context, write);
      outcome = {
        ...made,
        events: [...(outcome.events ?? []), ...(made.events ?? [])],
        change: outcome.change,
      };
    } catch (error) {
      context.log.warn(
        { action: write, err: error },
        'the joiner’s write was refused: the next pass resumes the add from a fresh read',
      );
      return { ...outcome, requeueAfterMs: REQUEUE.soon };
    }
  }
  return outcome;
}

/** Logs a change made and fires the test-only crash switch after it (membership.md, "Test-only crash switch"). */
function performed(context: ExecuteContext, action: Action): void {
  context.log.info({ action }, 'Performed membership action');
  context.crash.after(action.kind);
}

const sameSet = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((item) => b.includes(item));

async function etcdChange(action: Action, context: ExecuteContext): Promise<Outcome> {
  const { name, namespace } = context.cluster.metadata as { name: string; namespace: string };
  switch (action.kind) {
    case 'AddLearner': {
      const result = await addLearner(
        endpoint(context),
        peerURL(name, namespace, action.member, schemes(context.cluster.spec.tls).peer),
      );
      const added = changed(
        CLUSTER_REASONS.memberAdded,
        `added learner ${action.member} (${result.outcome})`,
        'add-learner',
      );
      performed(context, action);
      // Already a member: something this pass did not plan on added it; the next pass reads what is.
      return result.outcome === 'added' ? join(context, action, result.members, added) : added;
    }
    case 'PromoteLearner': {
      const result = await promoteMember(endpoint(context), action.id);
      if (result === 'not-ready')
        return { requeueAfterMs: REQUEUE.busy, notYet: 'learner not caught up yet' };
      return changed(
        CLUSTER_REASONS.memberPromoted,
        `promoted learner ${action.member} (${result})`,
        'promote',
      );
    }
    case 'MoveLeader': {
      const leader = context.etcd?.leaderEndpoint;
      if (!leader) throw new Error('the leader does not answer: cannot move leadership');
      await moveLeader(leader, action.toId);
      const why = action.purpose === 'roll' ? ', so the leader is rolled last' : '';
      return changed(
        CLUSTER_REASONS.leaderMoved,
        `moved leadership from ${action.fromId} to ${action.toMember}${why}`,
        'move-leader',
      );
    }
    case 'RemoveMember': {
      const result = await removeMember(endpoint(context), action.id);
      const change = {
        dead: 'replace',
        lost: 'replace',
        roll: 'roll',
        evict: 'evict',
        'scale-in': 'remove',
        undo: 'remove',
      }[action.reason];
      const detail = action.detail ? `: ${action.detail}` : '';
      return changed(
        CLUSTER_REASONS.memberRemoved,
        `removed member ${action.member} (${action.reason}${detail}, ${result})`,
        change,
      );
    }
    case 'DisarmAlarm':
      await disarmAlarm(endpoint(context), action.memberId, action.alarm);
      // Not a membership change (no change label): the next pass reads the alarms again.
      return done(
        CLUSTER_REASONS.alarmDisarmed,
        `disarmed the ${action.alarm} alarm of member ${action.memberId}, which is no longer a member of the cluster (etcd keeps a removed member's alarm, and refuses writes under it)`,
      );
    default:
      throw new Error(`not an etcd change: ${action.kind}`);
  }
}

/**
 * Stops a member for its restart at the new revision (docs/design/rolling-update.md, step 15.4): a healthy member by
 * eviction, so the PodDisruptionBudget decides together with node drains (429: not now); a member that is down
 * already by a plain delete. Its PVC is never touched; step 6 recreates the Pod.
 */
async function rollMember(
  context: ExecuteContext,
  action: Extract<Action, { kind: 'RollMember' }>,
): Promise<Outcome> {
  const namespace = context.cluster.metadata.namespace as string;
  if (action.evict) {
    try {
      await context.core.createNamespacedPodEviction({
        name: action.pod,
        namespace,
        body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: action.pod, namespace } },
      });
    } catch (error) {
      if (apiStatus(error) === 429)
        return { requeueAfterMs: REQUEUE.quorum, notYet: 'the PodDisruptionBudget allows no disruption now' };
      if (apiStatus(error) !== 404) throw error;
    }
  } else {
    await deleteIgnoringNotFound(() => context.core.deleteNamespacedPod({ namespace, name: action.pod }));
  }
  const how = action.evict ? 'evicted' : 'deleted';
  return done(
    CLUSTER_REASONS.memberRolling,
    `${how} Pod ${action.pod} to restart member ${action.member} on its volume at revision ${action.toRevision} (was ${action.fromRevision ?? 'none'})`,
    'roll',
  );
}

async function kubeChange(action: Action, context: ExecuteContext): Promise<Outcome> {
  const namespace = context.cluster.metadata.namespace as string;
  switch (action.kind) {
    case 'CreatePVC':
      return createPvc(context, action);
    case 'CreatePVCs':
      return createPvcs(context, action);
    case 'CreatePod':
      return createPod(context, action);
    case 'CreatePods':
      return createPods(context, action);
    case 'RollMember':
      return rollMember(context, action);
    case 'MarkExisting':
      await context.core.patchNamespacedPod(
        {
          namespace,
          name: action.pod,
          body: { metadata: { annotations: { [ANNOTATION_INITIAL_CLUSTER_STATE]: 'existing' } } },
        },
        patchOptions(PatchStrategy.MergePatch),
      );
      return done(
        CLUSTER_REASONS.seedMarkedExisting,
        `member ${action.member} has served: its next start joins the cluster (initial-cluster-state existing) instead of bootstrapping one`,
      );
    case 'DeletePod': {
      await deleteIgnoringNotFound(() => context.core.deleteNamespacedPod({ namespace, name: action.pod }));
      const restore = context.cluster.status?.restore;
      const whose =
        restore?.phase === 'Restoring'
          ? `of old member ${action.member}, stopped for EtcdRestore ${restore.name} (its PVC is retained)`
          : `of removed member ${action.member}`;
      return done(CLUSTER_REASONS.memberPodDeleted, `deleted Pod ${action.pod} ${whose}`);
    }
    case 'DeletePVC':
      await deleteIgnoringNotFound(() =>
        context.core.deleteNamespacedPersistentVolumeClaim({
          namespace,
          name: action.pvc ?? pvcName(action.member),
        }),
      );
      return done(
        CLUSTER_REASONS.memberPVCDeleted,
        `deleted PVC ${action.pvc} of removed member ${action.member} (whenScaled: Delete)`,
      );
    default:
      throw new Error(`not a Kubernetes change: ${action.kind}`);
  }
}

const ETCD_ACTIONS = new Set<Action['kind']>([
  'AddLearner',
  'PromoteLearner',
  'MoveLeader',
  'RemoveMember',
  'DisarmAlarm',
]);
const KUBE_ACTIONS = new Set<Action['kind']>([
  'CreatePVC',
  'CreatePVCs',
  'CreatePod',
  'CreatePods',
  'RollMember',
  'MarkExisting',
  'DeletePod',
  'DeletePVC',
]);

/** The outcome of a plan that performs nothing (Steady, Paused, a refusal, a report): the steady requeue. */
export const RESTING_OUTCOME: Outcome = { requeueAfterMs: REQUEUE.steady };

/**
 * What a refused action reports: etcd busy (strict reconfiguration, a learner behind) is `notYet`, retried in
 * `REQUEUE.busy`; a Kubernetes write the API server refused for what it is (`apiRefusal`) is `refused`, told in the
 * status and retried every `REQUEUE.refused`. Anything else is thrown: the work queue retries it with backoff.
 */
function unperformed(action: Action, error: unknown): Outcome {
  if (ETCD_ACTIONS.has(action.kind)) {
    if (!isEtcdBusy(error)) throw error;
    return { requeueAfterMs: REQUEUE.busy, notYet: error instanceof Error ? error.message : String(error) };
  }
  const refusal = apiRefusal(error);
  if (!refusal) throw error;
  return {
    requeueAfterMs: REQUEUE.refused,
    refused: `the API server refused ${describeAction(action)} (HTTP ${refusal.code}): ${refusal.message}`,
  };
}

/**
 * Performs `action` (at most one side effect; `CreatePVCs` and `CreatePods` one per PVC or Pod, `CreatePVCs` then its
 * seed Pods; a joiner's `AddLearner` also its PVC and Pod); waits, refusals and status-only actions do nothing here.
 */
export async function execute(action: Action, context: ExecuteContext): Promise<Outcome> {
  if (action.kind === 'Wait') return { requeueAfterMs: action.requeueAfterMs };
  if (!ETCD_ACTIONS.has(action.kind) && !KUBE_ACTIONS.has(action.kind) && !isRestoreLockAction(action))
    return RESTING_OUTCOME;
  let outcome: Outcome;
  try {
    outcome = ETCD_ACTIONS.has(action.kind)
      ? await etcdChange(action, context)
      : isRestoreLockAction(action)
        ? await executeRestoreStep(action, context)
        : await kubeChange(action, context);
  } catch (error) {
    outcome = unperformed(action, error);
  }
  if (outcome.refused) {
    context.log.warn({ action: action.kind, reason: outcome.refused }, 'The API server refused the write');
  } else if (outcome.notYet) {
    context.log.info({ action: action.kind, reason: outcome.notYet }, 'etcd refused the change for now');
  } else if (action.kind !== 'AddLearner' && action.kind !== 'CreatePVCs') {
    // A joiner's AddLearner and a seed's CreatePVCs tell each of their writes as they make it (`join`, `createPvcs`).
    performed(context, action);
  }
  return outcome;
}
