// The fault soak's operation sequence (issue 23; docs/design/soak.md): a seeded random sequence of operations drawn
// with weights from the catalog, each allowed only when the soak's model of the world says it makes sense (a node
// is restarted only after it was stopped, a backup needs MinIO, one restore at a time), with the undo of each
// temporary fault scheduled a few steps later, and a share of steps overlapping the next. Pure and deterministic:
// the same seed and options give the same plan, which is how a failing seed is replayed (the timing may differ).
// The executor (not here) resolves `pick` against the members alive when the step runs.
import { uniformInt } from 'pure-rand/distribution/uniformInt';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import type { RandomGenerator } from 'pure-rand/types/RandomGenerator';

/** The clusters under soak: `plain` and `tls`. */
export const SOAK_CLUSTERS = ['plain', 'tls'] as const;
export type SoakCluster = (typeof SOAK_CLUSTERS)[number];

/** The member `pick` (0 ≤ pick < 1) names among the live members (sorted by name), or none when none is live. */
export function pickMember(members: readonly string[], pick: number): string | undefined {
  return members[Math.floor(pick * members.length)];
}

/** What one step does. `pick` (0 ≤ pick < 1) chooses among the members alive when the step runs. */
export type SoakOperation =
  | { readonly kind: 'scale'; readonly cluster: SoakCluster; readonly size: number }
  | { readonly kind: 'deletePod'; readonly cluster: SoakCluster; readonly pick: number }
  | { readonly kind: 'wipeVolume'; readonly cluster: SoakCluster; readonly pick: number }
  | { readonly kind: 'evict'; readonly cluster: SoakCluster; readonly pick: number }
  | { readonly kind: 'stopNode'; readonly node: number }
  | { readonly kind: 'startNode'; readonly node: number }
  | { readonly kind: 'replaceNode'; readonly node: number }
  | { readonly kind: 'cutNetwork'; readonly node: number }
  | { readonly kind: 'healNetwork'; readonly node: number }
  | { readonly kind: 'killLeader' }
  | { readonly kind: 'restartApiServer' }
  | { readonly kind: 'stopMinio' }
  | { readonly kind: 'startMinio' }
  | { readonly kind: 'backup'; readonly cluster: SoakCluster }
  | { readonly kind: 'restoreBackup'; readonly cluster: SoakCluster }
  | { readonly kind: 'restoreSurvivor'; readonly cluster: SoakCluster }
  | { readonly kind: 'upgrade'; readonly cluster: SoakCluster; readonly version: string }
  | { readonly kind: 'resources'; readonly cluster: SoakCluster; readonly memory: string }
  | { readonly kind: 'pause'; readonly cluster: SoakCluster }
  | { readonly kind: 'unpause'; readonly cluster: SoakCluster }
  | { readonly kind: 'fillAndDefrag'; readonly cluster: SoakCluster };

export type SoakKind = SoakOperation['kind'];

export interface SoakStep {
  /** 1-based, as a failing step is reported. */
  readonly index: number;
  readonly op: SoakOperation;
  /** The next step starts before this one has converged. */
  readonly overlapsNext: boolean;
}

/** The operations a seed draws from, by weight; undo operations (`startNode`, `healNetwork`, `startMinio`,
 *  `unpause`) are not drawn: the plan schedules them after their fault. */
export type SoakWeights = Readonly<Partial<Record<SoakKind, number>>>;

export const DEFAULT_SOAK_WEIGHTS: SoakWeights = {
  scale: 8,
  deletePod: 10,
  wipeVolume: 4,
  evict: 4,
  stopNode: 5,
  replaceNode: 2,
  cutNetwork: 4,
  killLeader: 6,
  restartApiServer: 3,
  stopMinio: 3,
  backup: 8,
  restoreBackup: 3,
  restoreSurvivor: 2,
  upgrade: 3,
  resources: 3,
  pause: 3,
  fillAndDefrag: 2,
};

export interface SoakPlanOptions {
  readonly seed: number;
  /** Operations drawn (undo operations come on top). */
  readonly operations: number;
  /** Share of steps whose next step starts before they converge, 0 to 1. Restores and undo operations never
   *  overlap. */
  readonly overlapShare: number;
  /** Worker nodes of the environment, 1-based names `node-1` … */
  readonly nodes: number;
  /** Sizes a scale may choose. */
  readonly sizes: readonly number[];
  /** The size each cluster starts at. */
  readonly initialSize: number;
  /** The version path: each upgrade moves a cluster one entry on (a patch or one minor), never back. */
  readonly versions: readonly string[];
  /** Memory requests a resources change picks from. */
  readonly memories: readonly string[];
  /** Steps until a temporary fault is undone: drawn from this range, inclusive. */
  readonly undoAfter: readonly [number, number];
  readonly weights?: SoakWeights;
}

interface ClusterModel {
  size: number;
  version: number;
  paused: boolean;
}

/** The soak's model of the world while planning. */
interface Model {
  readonly clusters: Record<SoakCluster, ClusterModel>;
  /** Nodes stopped or cut off, waiting for their undo. */
  readonly downNodes: Set<number>;
  minioUp: boolean;
  /** Undo operations due at a step index (1-based index of the step they come after). */
  readonly due: Map<number, SoakOperation[]>;
}

/** A number in [0, 1) with 6 decimals, from the generator. */
function fraction(rng: RandomGenerator): number {
  return uniformInt(rng, 0, 999_999) / 1_000_000;
}

function pickOne<T>(rng: RandomGenerator, items: readonly T[]): T {
  return items[uniformInt(rng, 0, items.length - 1)] as T;
}

/** The operations of `kind` the model allows now, or an empty list. */
function candidates(
  kind: SoakKind,
  model: Model,
  options: SoakPlanOptions,
  rng: RandomGenerator,
): SoakOperation[] {
  const clusters = SOAK_CLUSTERS.filter((c) => !model.clusters[c].paused);
  const cluster = () => pickOne(rng, clusters);
  const upNodes = Array.from({ length: options.nodes }, (_, i) => i + 1).filter(
    (n) => !model.downNodes.has(n),
  );
  // One node down at a time, and only while every cluster has three members or more: each keeps a majority of its
  // members on the other nodes (a cluster of one may have its only member on that node, and waits for it).
  const nodeFault =
    model.downNodes.size === 0 &&
    upNodes.length > 1 &&
    SOAK_CLUSTERS.every((c) => model.clusters[c].size >= 3);
  // Losing a volume keeps the data only where a majority holds it: a cluster of three or more.
  const majorityHolds = clusters.filter((c) => model.clusters[c].size >= 3);
  switch (kind) {
    case 'scale': {
      if (clusters.length === 0) return [];
      const c = cluster();
      const sizes = options.sizes.filter((s) => s !== model.clusters[c].size);
      return sizes.length ? [{ kind, cluster: c, size: pickOne(rng, sizes) }] : [];
    }
    case 'deletePod':
    case 'evict':
      return clusters.length ? [{ kind, cluster: cluster(), pick: fraction(rng) }] : [];
    case 'wipeVolume':
      return majorityHolds.length
        ? [{ kind, cluster: pickOne(rng, majorityHolds), pick: fraction(rng) }]
        : [];
    case 'stopNode':
    case 'replaceNode':
    case 'cutNetwork':
      return nodeFault ? [{ kind, node: pickOne(rng, upNodes) }] : [];
    case 'killLeader':
    case 'restartApiServer':
      return [{ kind }];
    case 'stopMinio':
      return model.minioUp ? [{ kind }] : [];
    case 'backup':
    case 'restoreBackup':
    case 'fillAndDefrag':
      return model.minioUp && clusters.length ? [{ kind, cluster: cluster() }] : [];
    case 'restoreSurvivor':
      // A forced quorum loss with a survivor left needs at least three members (one alone has quorum).
      return majorityHolds.length ? [{ kind, cluster: pickOne(rng, majorityHolds) }] : [];
    case 'upgrade': {
      const ready = clusters.filter((c) => model.clusters[c].version < options.versions.length - 1);
      if (ready.length === 0) return [];
      const c = pickOne(rng, ready);
      return [{ kind, cluster: c, version: options.versions[model.clusters[c].version + 1] as string }];
    }
    case 'resources':
      return clusters.length ? [{ kind, cluster: cluster(), memory: pickOne(rng, options.memories) }] : [];
    case 'pause':
      return clusters.length ? [{ kind, cluster: cluster() }] : [];
    default:
      return [];
  }
}

/** Applies `op` to the model and schedules its undo, if it has one. */
function apply(
  op: SoakOperation,
  model: Model,
  index: number,
  options: SoakPlanOptions,
  rng: RandomGenerator,
): void {
  const undoAt = () => index + uniformInt(rng, options.undoAfter[0], options.undoAfter[1]);
  const schedule = (undo: SoakOperation) => {
    const at = undoAt();
    model.due.set(at, [...(model.due.get(at) ?? []), undo]);
  };
  switch (op.kind) {
    case 'scale':
      model.clusters[op.cluster].size = op.size;
      return;
    case 'upgrade':
      model.clusters[op.cluster].version += 1;
      return;
    case 'stopNode':
      model.downNodes.add(op.node);
      schedule({ kind: 'startNode', node: op.node });
      return;
    case 'cutNetwork':
      model.downNodes.add(op.node);
      schedule({ kind: 'healNetwork', node: op.node });
      return;
    case 'replaceNode':
      // The node is replaced by a new one within the step (its number then names the new node): up when the step ends.
      return;
    case 'startNode':
    case 'healNetwork':
      model.downNodes.delete(op.node);
      return;
    case 'stopMinio':
      model.minioUp = false;
      schedule({ kind: 'startMinio' });
      return;
    case 'startMinio':
      model.minioUp = true;
      return;
    case 'pause':
      model.clusters[op.cluster].paused = true;
      schedule({ kind: 'unpause', cluster: op.cluster });
      return;
    case 'unpause':
      model.clusters[op.cluster].paused = false;
      return;
    default:
      return;
  }
}

/** The kind whose share of the weights' running total holds `target` (0 ≤ target < total). */
function drawKind(weights: readonly (readonly [SoakKind, number])[], target: number): SoakKind {
  let rest = target;
  for (const [kind, weight] of weights) {
    if (rest < weight) return kind;
    rest -= weight;
  }
  throw new Error(`soak plan: ${target} is beyond the weights' total`);
}

/** Kinds whose next step always waits for them to converge. */
/**
 * Node faults start from a world whose previous step converged: a change still in flight when a node stops may need
 * that node to finish (a cluster growing from one member, whose only member is there, cannot grow until it is
 * back, and the step before would wait out its bound). Changes made while a node is down may overlap freely.
 */
const NODE_FAULTS: ReadonlySet<SoakKind> = new Set(['stopNode', 'cutNetwork', 'replaceNode']);

const NEVER_OVERLAPPED: ReadonlySet<SoakKind> = new Set([
  'restoreBackup',
  'restoreSurvivor',
  'startNode',
  'healNetwork',
  'startMinio',
  'unpause',
]);

/** The plan of a seed: `options.operations` drawn operations with their undo operations among them, and every
 *  fault still pending undone at the end. */
export function planSoak(options: SoakPlanOptions): SoakStep[] {
  const weights = Object.entries(options.weights ?? DEFAULT_SOAK_WEIGHTS).filter(
    (entry): entry is [SoakKind, number] => (entry[1] ?? 0) > 0,
  );
  const total = weights.reduce((sum, [, weight]) => sum + weight, 0);
  if (total === 0) throw new Error('soak weights: at least one operation needs a weight above 0');
  const rng = xoroshiro128plus(options.seed);
  const clusterModel = (): ClusterModel => ({ size: options.initialSize, version: 0, paused: false });
  const model: Model = {
    clusters: { plain: clusterModel(), tls: clusterModel() },
    downNodes: new Set(),
    minioUp: true,
    due: new Map(),
  };
  const ops: SoakOperation[] = [];
  const take = (op: SoakOperation) => {
    ops.push(op);
    apply(op, model, ops.length, options, rng);
  };
  /** Takes the undo operations due at or before the step just taken (or, with `any`, the earliest pending);
   *  false when there was none. */
  const takeDue = (any = false): boolean => {
    const pending = [...model.due.keys()].sort((a, b) => a - b);
    const at = pending.find((k) => any || k <= ops.length);
    if (at === undefined) return false;
    const undos = model.due.get(at) ?? [];
    model.due.delete(at);
    for (const undo of undos) take(undo);
    return true;
  };
  let drawn = 0;
  let misses = 0;
  while (drawn < options.operations) {
    const kind = drawKind(weights, uniformInt(rng, 0, total - 1));
    const [op] = candidates(kind, model, options, rng);
    if (!op) {
      // Only faults that wait for an undo were drawn for a while: undo the earliest one now.
      misses += 1;
      if (misses % 100 === 0 && !takeDue(true) && misses >= 1_000)
        throw new Error(`soak plan: no operation these weights allow is possible at step ${ops.length + 1}`);
      continue;
    }
    misses = 0;
    take(op);
    drawn += 1;
    while (takeDue()) {}
  }
  // Undo what is still pending, in the order it was due.
  while (takeDue(true)) {}
  return ops.map((op, i) => ({
    index: i + 1,
    op,
    overlapsNext:
      i < ops.length - 1 &&
      !NEVER_OVERLAPPED.has(op.kind) &&
      !NODE_FAULTS.has((ops[i + 1] as SoakOperation).kind) &&
      fraction(rng) < options.overlapShare,
  }));
}
