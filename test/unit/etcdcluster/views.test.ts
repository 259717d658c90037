// The crash-loop rule of member Pods (docs/design/membership.md, "Dead members"): etcd exiting by itself with an
// error, again and again, marks a Pod that cannot run; a process killed from outside never does. And the lost Pod
// ("Lost members"): its Node read, not Ready past the bound, gone, or the Pod unscheduled.
import assert from 'node:assert/strict';
import { describe, it, test } from 'node:test';
import type { V1ContainerState, V1Node, V1Pod } from '@kubernetes/client-node';
import { failureBounds } from '../../../constructs/conventions/index.js';
import {
  failureLine,
  isCrashLooping,
  placementOf,
  toPodView,
  UNREACHABLE_AFTER_READY_MS,
} from '../../../controller/etcdcluster/views.js';

function memberPod(options: {
  restarts: number;
  ready?: boolean;
  state?: V1ContainerState;
  lastState?: V1ContainerState;
  phase?: string;
}): V1Pod {
  return {
    metadata: { name: 'demo-1', labels: { 'etcd.gitops.dev/member': 'demo-1' } },
    status: {
      phase: options.phase ?? 'Running',
      conditions: [{ type: 'Ready', status: options.ready ? 'True' : 'False' }],
      containerStatuses: [
        {
          name: 'etcd',
          image: 'gcr.io/etcd-development/etcd:v3.6.16',
          imageID: '',
          ready: options.ready === true,
          restartCount: options.restarts,
          state: options.state ?? { waiting: { reason: 'CrashLoopBackOff' } },
          lastState: options.lastState ?? {},
        },
      ],
    },
  };
}

const exited = (exitCode: number): V1ContainerState => ({
  terminated: { exitCode, reason: 'Error' },
});

describe('isCrashLooping', () => {
  test('GIVEN etcd exited by itself with code 1 three times, not ready THEN the Pod is crash-looping', () => {
    assert.equal(isCrashLooping(memberPod({ restarts: 3, lastState: exited(1) })), true);
  });

  test('GIVEN a Go panic (exit 2) on the current termination THEN the Pod is crash-looping', () => {
    assert.equal(isCrashLooping(memberPod({ restarts: 4, state: exited(2) })), true);
  });

  test('GIVEN a member SIGKILLed three times in a row (exit 137), waiting in back-off THEN it is not crash-looping', () => {
    assert.equal(isCrashLooping(memberPod({ restarts: 3, lastState: exited(137) })), false);
  });

  test('GIVEN a member killed by SIGTERM (exit 143) five times, running again but not ready yet THEN it is not crash-looping', () => {
    const pod = memberPod({
      restarts: 5,
      state: { running: { startedAt: new Date() } },
      lastState: exited(143),
    });
    assert.equal(isCrashLooping(pod), false);
  });

  test('GIVEN etcd exited with an error only twice THEN it is not crash-looping yet', () => {
    assert.equal(isCrashLooping(memberPod({ restarts: 2, lastState: exited(1) })), false);
  });

  test('GIVEN a ready member with many error exits behind it THEN it is not crash-looping', () => {
    const pod = memberPod({
      restarts: 7,
      ready: true,
      state: { running: { startedAt: new Date() } },
      lastState: exited(1),
    });
    assert.equal(isCrashLooping(pod), false);
  });

  test('GIVEN phase Failed THEN the Pod is crash-looping whatever its restarts', () => {
    assert.equal(isCrashLooping(memberPod({ restarts: 0, phase: 'Failed' })), true);
  });

  test('fails when the rule would count a restart without any recorded termination', () => {
    assert.equal(isCrashLooping(memberPod({ restarts: 3 })), false);
  });

  test('GIVEN a crash-looping member Pod THEN its PodView says so', () => {
    assert.equal(toPodView(memberPod({ restarts: 3, lastState: exited(1) }))?.crashLooping, true);
  });
});

describe('failureLine (why a rolled member does not start)', () => {
  // What etcd 3.4.23, 3.5.35 and 3.6.16 print for an unknown flag (exit 2): the error, then a short usage.
  const usage =
    'flag provided but not defined: -no-such-flag\nUsage:\n\n  etcd [flags]\n    Start an etcd server.\n\n  etcd grpc-proxy\n    Run the stateless etcd v3 gRPC L7 reverse proxy.\n';
  test('GIVEN an unknown flag THEN the flag error, not the usage text after it', () => {
    assert.equal(failureLine(usage), 'flag provided but not defined: -no-such-flag');
  });
  test('GIVEN a bad value THEN the value error', () => {
    assert.equal(
      failureLine('invalid value "abc" for flag -snapshot-count: parse error\nUsage:\n'),
      'invalid value "abc" for flag -snapshot-count: parse error',
    );
  });
  test('GIVEN JSON logs ending in a fatal line THEN its msg and error', () => {
    const logs = [
      '{"level":"info","msg":"starting"}',
      '{"level":"fatal","msg":"discovery failed","error":"cannot fetch cluster info from peer urls"}',
    ].join('\n');
    assert.equal(failureLine(logs), 'discovery failed: cannot fetch cluster info from peer urls');
  });
  test('GIVEN a Go panic THEN its panic line; only stack frames left THEN that etcd panicked', () => {
    assert.equal(
      failureLine(
        'panic: detected disallowed v2 WAL for stage --v2-deprecation=write-only [recovered]\n\tpanic: x\n',
      ),
      'panic: detected disallowed v2 WAL for stage --v2-deprecation=write-only [recovered]',
    );
    // The tail an etcd 3.6.16 member upgraded from 3.4 left in its termination message (the e2e saw it).
    const frames =
      'go.etcd.io/etcd/pkg/v3/schedule.(*fifo).run(0x267bdd34e70)\n\tgo.etcd.io/etcd/pkg/v3@v3.6.16/schedule/schedule.go:101 +0x16f\n';
    assert.equal(
      failureLine(frames),
      'etcd panicked; its Go stack trace is in the container log (kubectl logs --previous)',
    );
  });
  test('GIVEN no message THEN nothing; a plain last line otherwise', () => {
    assert.equal(failureLine(undefined), undefined);
    assert.equal(failureLine('a\nlast words\n'), 'last words');
  });
  test('GIVEN a Pod whose etcd exited 2 by itself THEN its PodView names the exit and the reason; a kill does not', () => {
    const terminated = (exitCode: number): V1ContainerState => ({
      terminated: { exitCode, reason: 'Error', message: usage },
    });
    assert.equal(
      toPodView(memberPod({ restarts: 3, lastState: terminated(2) }))?.lastFailure,
      'exit code 2: flag provided but not defined: -no-such-flag',
    );
    assert.equal(toPodView(memberPod({ restarts: 3, lastState: terminated(137) }))?.lastFailure, undefined);
  });
});

describe('placementOf and the lost Pod', () => {
  const NOW = Date.parse('2026-11-23T12:00:00Z');
  const bounds = failureBounds({ nodeNotReady: '1m' });
  const node = (ready: string, since: string): V1Node => ({
    metadata: { name: 'node-2' },
    status: { conditions: [{ type: 'Ready', status: ready, lastTransitionTime: new Date(since) }] },
  });
  const bound: V1Pod = {
    metadata: { name: 'demo-1', labels: { 'etcd.gitops.dev/member': 'demo-1' } },
    spec: { nodeName: 'node-2', containers: [] },
  };

  it("reads the Ready condition of the Pod's Node: Unknown past the bound is lost, before it a note", () => {
    const late = toPodView(bound, {
      nodes: new Map([['node-2', node('Unknown', '2026-11-23T11:58:50Z')]]),
      bounds,
      nowMs: NOW,
    });
    assert.equal(
      late?.lost,
      'its node node-2 has not been Ready for 1m10s (spec.failureDetection.nodeNotReady: 1m)',
    );
    const early = toPodView(bound, {
      nodes: new Map([['node-2', node('False', '2026-11-23T11:59:30Z')]]),
      bounds,
      nowMs: NOW,
    });
    assert.equal(early?.lost, undefined);
    assert.match(
      early?.nodeNotReady ?? '',
      /^its node node-2 has not been Ready for 30s; it is replaced after 1m/,
    );
    const ready = toPodView(bound, {
      nodes: new Map([['node-2', node('True', '2026-11-20T00:00:00Z')]]),
      bounds,
      nowMs: NOW,
    });
    assert.equal(ready?.lost, undefined);
    assert.equal(ready?.nodeNotReady, undefined);
  });

  it('a Node that no longer exists; an unscheduled Pod counted from its creation', () => {
    assert.equal(
      toPodView(bound, { nodes: new Map([['node-2', 'missing']]), bounds, nowMs: NOW })?.lost,
      'its node node-2 no longer exists',
    );
    const pending: V1Pod = {
      metadata: { ...bound.metadata, creationTimestamp: new Date('2026-11-23T11:54:00Z') },
      spec: { containers: [] },
      status: {
        phase: 'Pending',
        conditions: [{ type: 'PodScheduled', status: 'False', message: 'no node' }],
      },
    };
    assert.deepEqual(placementOf(pending, new Map()), {
      unscheduledSinceMs: Date.parse('2026-11-23T11:54:00Z'),
      unscheduledMessage: 'no node',
    });
    assert.equal(
      toPodView(pending, { nodes: new Map(), bounds, nowMs: NOW })?.lost,
      'its Pod has not been scheduled for 6m (spec.failureDetection.podStuck: 5m): no node',
    );
  });

  it('without a loss context (the etcd endpoints) nothing is lost', () => {
    assert.equal(toPodView(bound)?.lost, undefined);
  });
});

describe('toPodView readySettled (MembersUnreachable, docs/design/membership.md step 5.6)', () => {
  const NOW = Date.parse('2026-11-23T12:00:00Z');
  const context = { nodes: new Map(), bounds: failureBounds({}), nowMs: NOW };
  const readySince = (status: string, since: string): V1Pod => ({
    metadata: { name: 'demo-1', labels: { 'etcd.gitops.dev/member': 'demo-1' } },
    status: { conditions: [{ type: 'Ready', status, lastTransitionTime: new Date(since) }] },
  });

  it('GIVEN a Pod Ready for exactly UNREACHABLE_AFTER_READY_MS THEN it is settled', () => {
    const since = new Date(NOW - UNREACHABLE_AFTER_READY_MS).toISOString();
    assert.equal(toPodView(readySince('True', since), context)?.readySettled, true);
  });

  it('GIVEN a Pod Ready for a moment less THEN it is not settled yet', () => {
    const since = new Date(NOW - UNREACHABLE_AFTER_READY_MS + 1_000).toISOString();
    assert.equal(toPodView(readySince('True', since), context)?.readySettled, false);
  });

  it('GIVEN a Pod not Ready for long, or read without a clock THEN it is not settled', () => {
    assert.equal(toPodView(readySince('False', '2026-11-23T11:00:00Z'), context)?.readySettled, false);
    assert.equal(toPodView(readySince('True', '2026-11-23T11:00:00Z'))?.readySettled, false);
  });
});
