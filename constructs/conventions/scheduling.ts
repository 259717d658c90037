// Where member Pods go: the member anti-affinity (members on distinct nodes, preferably by default, required on
// request), merged into whatever affinity the user sets, so a user affinity never drops it. JSON shapes, as the
// CRD holds them.
import { describeProblem, type SpecProblem } from './etcd-backend.js';
import { memberSelector } from './labels.js';

export type JsonObject = { readonly [field: string]: unknown };

/** The node label the member anti-affinity spreads members over. */
export const DEFAULT_SPREAD_TOPOLOGY_KEY = 'kubernetes.io/hostname';

/**
 * How members of one cluster avoid sharing a node (`spec.podTemplate.memberAntiAffinity`): `Preferred` schedules
 * them on distinct nodes when it can (a one-node cluster still runs every member); `Required` never puts two on
 * one node (a member that finds no free node stays Pending).
 */
export const MEMBER_ANTI_AFFINITIES = ['Preferred', 'Required'] as const;
/** One of {@link MEMBER_ANTI_AFFINITIES}. */
export type MemberAntiAffinity = (typeof MEMBER_ANTI_AFFINITIES)[number];
export const DEFAULT_MEMBER_ANTI_AFFINITY: MemberAntiAffinity = 'Preferred';

/** Why a `memberAntiAffinity` value is refused (field, value, what is allowed). */
export function memberAntiAffinityProblem(field: string, value: unknown): SpecProblem | undefined {
  return (MEMBER_ANTI_AFFINITIES as readonly unknown[]).includes(value)
    ? undefined
    : { field, value: String(value), allowed: MEMBER_ANTI_AFFINITIES.join(' or ') };
}

/** Members of `cluster` on distinct nodes: the pod affinity term both modes use. */
function memberAntiAffinityPodTerm(cluster: string): JsonObject {
  return {
    topologyKey: DEFAULT_SPREAD_TOPOLOGY_KEY,
    labelSelector: { matchLabels: memberSelector(cluster) },
  };
}

/** Members of `cluster` preferably on distinct nodes (a preference: a one-node cluster still schedules them). */
export function defaultMemberAntiAffinityTerm(cluster: string): JsonObject {
  return { weight: 100, podAffinityTerm: memberAntiAffinityPodTerm(cluster) };
}

const PREFERRED = 'preferredDuringSchedulingIgnoredDuringExecution';
const REQUIRED = 'requiredDuringSchedulingIgnoredDuringExecution';

/** `terms` with `term` added at the end unless an equal term is there. */
function withTerm(terms: unknown, term: JsonObject): readonly unknown[] {
  const list = (terms ?? []) as readonly unknown[];
  const present = list.some((existing) => JSON.stringify(existing) === JSON.stringify(term));
  return present ? list : [...list, term];
}

/**
 * The affinity of a member Pod: the user's (node affinity, pod affinity, pod anti-affinity terms, all kept) with
 * our member anti-affinity term added after the user's terms of its kind, unless the same term is there:
 * `Preferred` adds a weighted term to `preferredDuringSchedulingIgnoredDuringExecution`, `Required` a term to
 * `requiredDuringSchedulingIgnoredDuringExecution`. Both on `kubernetes.io/hostname`, selecting this cluster's
 * members.
 */
export function memberAffinity(
  cluster: string,
  user?: JsonObject,
  mode: MemberAntiAffinity = DEFAULT_MEMBER_ANTI_AFFINITY,
): JsonObject {
  const problem = memberAntiAffinityProblem('spec.podTemplate.memberAntiAffinity', mode);
  if (problem) throw new Error(describeProblem(problem));
  const anti = (user?.podAntiAffinity ?? {}) as JsonObject;
  const merged =
    mode === 'Required'
      ? { ...anti, [REQUIRED]: withTerm(anti[REQUIRED], memberAntiAffinityPodTerm(cluster)) }
      : { ...anti, [PREFERRED]: withTerm(anti[PREFERRED], defaultMemberAntiAffinityTerm(cluster)) };
  return { ...user, podAntiAffinity: merged };
}
