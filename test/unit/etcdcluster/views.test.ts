// The crash-loop rule of member Pods (docs/design/membership.md, "Dead members"): etcd exiting by itself with an
// error, again and again, marks a Pod that cannot run; a process killed from outside never does.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { V1ContainerState, V1Pod } from '@kubernetes/client-node';
import { isCrashLooping, toPodView } from '../../../controller/etcdcluster/views.js';

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
