// Where member Pods go: the default pod anti-affinity (members preferably on distinct nodes), merged into whatever
// affinity the user sets, so a user affinity never drops it. JSON shapes, as the CRD holds them.
import { memberSelector } from './labels.js';

export type JsonObject = { readonly [field: string]: unknown };

/** The node label the default anti-affinity spreads members over. */
export const DEFAULT_SPREAD_TOPOLOGY_KEY = 'kubernetes.io/hostname';

/** Members of `cluster` preferably on distinct nodes (a preference: a one-node cluster still schedules them). */
export function defaultMemberAntiAffinityTerm(cluster: string): JsonObject {
  return {
    weight: 100,
    podAffinityTerm: {
      topologyKey: DEFAULT_SPREAD_TOPOLOGY_KEY,
      labelSelector: { matchLabels: memberSelector(cluster) },
    },
  };
}

const PREFERRED = 'preferredDuringSchedulingIgnoredDuringExecution';

/**
 * The affinity of a member Pod: the user's (node affinity, pod affinity, pod anti-affinity terms, all kept) with
 * the default anti-affinity term added to `podAntiAffinity`'s preferred terms unless the same term is there.
 */
export function memberAffinity(cluster: string, user?: JsonObject): JsonObject {
  const term = defaultMemberAntiAffinityTerm(cluster);
  const anti = (user?.podAntiAffinity ?? {}) as JsonObject;
  const preferred = (anti[PREFERRED] ?? []) as readonly unknown[];
  const present = preferred.some((existing) => JSON.stringify(existing) === JSON.stringify(term));
  return {
    ...user,
    podAntiAffinity: { ...anti, [PREFERRED]: present ? preferred : [...preferred, term] },
  };
}
