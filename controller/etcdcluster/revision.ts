// The pod revision: one hash per spec of everything the member Pod builder writes, so a changed spec is seen as
// out-of-date member Pods (docs/design/rolling-update.md, "The pod revision"). Pure.
import { createHash } from 'node:crypto';
import type { V1Pod } from '@kubernetes/client-node';
import {
  ANNOTATION_CLUSTER_TOKEN,
  ANNOTATION_CLUSTER_UID,
  ANNOTATION_INITIAL_CLUSTER,
  ANNOTATION_INITIAL_CLUSTER_STATE,
  ANNOTATION_POD_REVISION,
} from '../../constructs/conventions/index.js';
import type { EtcdCluster } from './api.js';
import { buildMemberPod } from './member-pod.js';

/** Hex digits of the sha256 kept in the revision. */
export const REVISION_LENGTH = 10;

/** The placeholder member of the canonical Pod: every member of one spec has the same revision. */
const CANONICAL_MEMBER = '<member>';

/** Annotations of the member's moment (etcd ignores them once its data dir exists), not counted. */
const MOMENT_ANNOTATIONS = [
  ANNOTATION_INITIAL_CLUSTER,
  ANNOTATION_INITIAL_CLUSTER_STATE,
  ANNOTATION_CLUSTER_TOKEN,
  ANNOTATION_CLUSTER_UID,
  ANNOTATION_POD_REVISION,
];

/** JSON with object keys sorted and `undefined` dropped, so key order never changes the hash. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The revision of the member Pods `cluster`'s spec asks for. */
export function podRevision(cluster: EtcdCluster): string {
  const pod = buildMemberPod(cluster, { member: CANONICAL_MEMBER, state: 'existing', initialCluster: [] });
  const annotations = { ...(pod.metadata?.annotations ?? {}) };
  for (const annotation of MOMENT_ANNOTATIONS) delete annotations[annotation];
  const canonical = { ...pod, metadata: { ...pod.metadata, annotations } };
  return createHash('sha256').update(canonicalJson(canonical)).digest('hex').slice(0, REVISION_LENGTH);
}

/** `pod` with the revision annotation of `cluster`'s spec: every member Pod the controller creates carries it. */
export function withPodRevision(cluster: EtcdCluster, pod: V1Pod): V1Pod {
  const annotations = { ...pod.metadata?.annotations, [ANNOTATION_POD_REVISION]: podRevision(cluster) };
  return { ...pod, metadata: { ...pod.metadata, annotations } };
}
