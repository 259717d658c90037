// When the controller asks kube-controller-manager to compute a cluster's PodDisruptionBudget again
// (docs/design/disruption-budget.md): only on SyncFailed, first 35 s after the failure began, then after as long
// again as the failure had lasted (35 s .. 10 min), on the first member Pod by name that is not being deleted.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Pod, V1PodDisruptionBudget } from '@kubernetes/client-node';
import { ANNOTATION_BUDGET_RECOMPUTE } from '../../../constructs/conventions/annotations.js';
import {
  type BudgetCondition,
  type BudgetDecision,
  type BudgetPod,
  decideBudget,
  intervalAfter,
} from '../../../controller/disruptionbudget/decide.js';
import { budgetFacts } from '../../../controller/disruptionbudget/facts.js';

const S = 1_000;
const failed = (sinceMs = 0): BudgetCondition => ({
  status: 'False',
  reason: 'SyncFailed',
  message: 'no matches for kind "EtcdCluster" in version "etcd.gitops.dev/v1alpha1"',
  sinceMs,
});
const pods = (...names: string[]): BudgetPod[] => names.map((name) => ({ name, terminating: false }));
const requested = (name: string, requestedAtMs: number): BudgetPod => ({
  name,
  terminating: false,
  requestedAtMs,
});

describe('decideBudget', () => {
  const cases: ReadonlyArray<{
    name: string;
    condition?: BudgetCondition;
    pods: BudgetPod[];
    nowMs: number;
    want: BudgetDecision['kind'];
    pod?: string;
    requeueAfterMs?: number;
  }> = [
    { name: 'no status yet', pods: pods('a-0'), nowMs: 60 * S, want: 'Computed' },
    {
      name: 'computed: SufficientPods',
      condition: { status: 'True', reason: 'SufficientPods', message: '', sinceMs: 0 },
      pods: pods('a-0'),
      nowMs: 60 * S,
      want: 'Computed',
    },
    {
      name: 'a member down or joining: InsufficientPods is an answer, not a failure',
      condition: { status: 'False', reason: 'InsufficientPods', message: '', sinceMs: 0 },
      pods: pods('a-0'),
      nowMs: 600 * S,
      want: 'Computed',
    },
    {
      name: 'failed 10 s ago: the first request waits for the discovery reset',
      condition: failed(0),
      pods: pods('a-0'),
      nowMs: 10 * S,
      want: 'Wait',
      requeueAfterMs: 25 * S,
    },
    {
      name: 'failed 35 s ago: the first request, on the first member by name',
      condition: failed(0),
      pods: pods('a-2', 'a-0', 'a-1'),
      nowMs: 35 * S,
      want: 'RequestRecompute',
      pod: 'a-0',
      requeueAfterMs: 35 * S,
    },
    {
      name: 'the first member by name is being deleted: the next one',
      condition: failed(0),
      pods: [{ name: 'a-0', terminating: true }, ...pods('a-1')],
      nowMs: 35 * S,
      want: 'RequestRecompute',
      pod: 'a-1',
    },
    {
      name: 'asked at 35 s: the next request waits until 70 s',
      condition: failed(0),
      pods: [requested('a-0', 35 * S), ...pods('a-1')],
      nowMs: 45 * S,
      want: 'Wait',
      requeueAfterMs: 25 * S,
    },
    {
      name: 'asked at 35 s, now 70 s: asked again, then after 70 s',
      condition: failed(0),
      pods: [requested('a-0', 35 * S), ...pods('a-1')],
      nowMs: 70 * S,
      want: 'RequestRecompute',
      pod: 'a-0',
      requeueAfterMs: 70 * S,
    },
    {
      name: 'the latest request on any member counts: asked at 70 s, the next at 140 s',
      condition: failed(0),
      pods: [requested('a-0', 35 * S), requested('a-1', 70 * S)],
      nowMs: 100 * S,
      want: 'Wait',
      requeueAfterMs: 40 * S,
    },
    {
      name: 'a request from an earlier failure does not count',
      condition: failed(500 * S),
      pods: [requested('a-0', 100 * S)],
      nowMs: 536 * S,
      want: 'RequestRecompute',
      pod: 'a-0',
      requeueAfterMs: 36 * S,
    },
    {
      name: 'failing for an hour: one request per 10 min',
      condition: failed(0),
      pods: [requested('a-0', 3000 * S)],
      nowMs: 3300 * S,
      want: 'Wait',
      requeueAfterMs: 300 * S,
    },
    {
      name: 'no member Pod to annotate: wait 35 s',
      condition: failed(0),
      pods: [{ name: 'a-0', terminating: true }],
      nowMs: 60 * S,
      want: 'Wait',
      requeueAfterMs: 35 * S,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const decision = decideBudget({
        ...(c.condition ? { condition: c.condition } : {}),
        pods: c.pods,
        nowMs: c.nowMs,
      });
      assert.equal(decision.kind, c.want);
      if (c.pod !== undefined) assert.equal(decision.kind === 'RequestRecompute' && decision.pod, c.pod);
      if (c.requeueAfterMs !== undefined)
        assert.equal(decision.kind !== 'Computed' && decision.requeueAfterMs, c.requeueAfterMs);
    });
  }

  it('a failure that lasts is asked about at 35, 70, 140, 280, 560, 1120 s, then every 600 s', () => {
    const times: number[] = [];
    let annotated: BudgetPod = { name: 'a-0', terminating: false };
    for (let nowMs = 0; nowMs <= 3000 * S; nowMs += S) {
      const decision = decideBudget({ condition: failed(0), pods: [annotated], nowMs });
      if (decision.kind === 'RequestRecompute') {
        times.push(nowMs / S);
        annotated = { ...annotated, requestedAtMs: nowMs };
      }
    }
    assert.deepEqual(times, [35, 70, 140, 280, 560, 1120, 1720, 2320, 2920]);
  });

  it('intervalAfter keeps within 35 s and 10 min', () => {
    assert.deepEqual([0, 45 * S, 3600 * S].map(intervalAfter), [35 * S, 45 * S, 600 * S]);
  });
});

describe('budgetFacts', () => {
  const budget = (matchExpressions = false): V1PodDisruptionBudget => ({
    metadata: { name: 'a', namespace: 'ns' },
    spec: {
      maxUnavailable: 1,
      selector: {
        matchLabels: { app: 'etcd', instance: 'a' },
        ...(matchExpressions ? { matchExpressions: [{ key: 'x', operator: 'Exists' }] } : {}),
      },
    },
    status: {
      currentHealthy: 3,
      desiredHealthy: 0,
      disruptionsAllowed: 0,
      expectedPods: 0,
      conditions: [
        {
          type: 'DisruptionAllowed',
          status: 'False',
          reason: 'SyncFailed',
          message: 'no matches',
          lastTransitionTime: new Date(5 * S),
        },
      ],
    },
  });
  const pod = (
    name: string,
    labels: Record<string, string>,
    extra: Partial<V1Pod['metadata']> = {},
  ): V1Pod => ({
    metadata: { name, namespace: 'ns', labels, ...extra },
  });
  const inNamespace = [
    pod(
      'a-0',
      { app: 'etcd', instance: 'a' },
      { annotations: { [ANNOTATION_BUDGET_RECOMPUTE]: new Date(40 * S).toISOString() } },
    ),
    pod('a-1', { app: 'etcd', instance: 'a' }, { deletionTimestamp: new Date(50 * S) }),
    pod('b-0', { app: 'etcd', instance: 'b' }),
    pod(
      'a-2',
      { app: 'etcd', instance: 'a' },
      { annotations: { [ANNOTATION_BUDGET_RECOMPUTE]: 'not a time' } },
    ),
  ];

  it("reads the condition's transition time and the selected Pods' requests", () => {
    assert.deepEqual(budgetFacts(budget(), inNamespace, 60 * S), {
      condition: { status: 'False', reason: 'SyncFailed', message: 'no matches', sinceMs: 5 * S },
      pods: [
        { name: 'a-0', terminating: false, requestedAtMs: 40 * S },
        { name: 'a-1', terminating: true },
        { name: 'a-2', terminating: false },
      ],
      nowMs: 60 * S,
    });
  });

  it('a selector with matchExpressions selects no Pod: none is annotated on a guess', () => {
    assert.deepEqual(budgetFacts(budget(true), inNamespace, 60 * S).pods, []);
  });
});
