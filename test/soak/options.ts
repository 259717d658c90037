// The soak's plan options for `npm run soak` (docs/design/soak.md): a module of its own, so that tools may read a
// seed's plan without starting a run (importing main.ts runs the soak).
import { etcdVersions } from '../env/binaries.js';
import type { SoakPlanOptions } from './plan.js';

/** The soak's plan options: two clusters of 3, sizes 1, 3 and 5, the 3.5 → 3.6 path, four memory requests. */
export function soakOptions(seed: number, operations: number, overlapShare: number): SoakPlanOptions {
  return {
    seed,
    operations,
    overlapShare,
    nodes: 3,
    sizes: [1, 3, 5],
    initialSize: 3,
    versions: [etcdVersions['3.5'], etcdVersions['3.6']],
    memories: ['96Mi', '128Mi', '160Mi', '192Mi'],
    undoAfter: [2, 4],
  };
}
