import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type ContainerStatus, waitingStatus } from '../../env/agent/container-status.js';
import { type PodRunState, podPhase, podStatus } from '../../env/agent/pod-status.js';

const now = '2030-01-01T00:00:10Z';
const running = (name: string, ready: boolean): ContainerStatus => ({
  ...waitingStatus(name, 'busybox', 'x'),
  ready,
  started: true,
  state: { running: { startedAt: now } },
});
const exited = (name: string, exitCode: number): ContainerStatus => ({
  ...waitingStatus(name, 'busybox', 'x'),
  state: {
    terminated: {
      exitCode,
      reason: exitCode === 0 ? 'Completed' : 'Error',
      startedAt: now,
      finishedAt: now,
      containerID: 'agent://1',
    },
  },
});
const state = (overrides: Partial<PodRunState>): PodRunState => ({
  podIP: '127.1.1.1',
  hostIP: '127.0.0.1',
  startTime: now,
  restartPolicy: 'Always',
  initStatuses: [],
  containerStatuses: [],
  initialized: true,
  readinessGates: [],
  ...overrides,
});

describe('pod phase', () => {
  it('is Pending until init containers are done', () => {
    assert.equal(podPhase(state({ initialized: false, initStatuses: [running('init', false)] })), 'Pending');
  });

  it('is Failed when an init container fails under restartPolicy Never', () => {
    assert.equal(
      podPhase(state({ initialized: false, restartPolicy: 'Never', initStatuses: [exited('init', 1)] })),
      'Failed',
    );
  });

  it('is Running while a container runs or restarts', () => {
    assert.equal(podPhase(state({ containerStatuses: [running('a', false)] })), 'Running');
    assert.equal(podPhase(state({ containerStatuses: [exited('a', 1)] })), 'Running', 'Always restarts it');
  });

  it('is Succeeded or Failed once no container will run again', () => {
    assert.equal(
      podPhase(state({ restartPolicy: 'Never', containerStatuses: [exited('a', 0)] })),
      'Succeeded',
    );
    assert.equal(
      podPhase(state({ restartPolicy: 'OnFailure', containerStatuses: [exited('a', 0)] })),
      'Succeeded',
    );
    assert.equal(
      podPhase(state({ restartPolicy: 'Never', containerStatuses: [exited('a', 0), exited('b', 2)] })),
      'Failed',
    );
  });
});

describe('pod conditions', () => {
  it('is Ready when every container is ready, naming the unready ones otherwise', () => {
    const notReady = podStatus(
      state({ containerStatuses: [running('a', true), running('b', false)] }),
      [],
      now,
    );
    const ready = notReady.conditions.find((c) => c.type === 'Ready');
    assert.equal(ready?.status, 'False');
    assert.equal(ready?.message, 'containers with unready status: [b]');
    const allReady = podStatus(
      state({ containerStatuses: [running('a', true), running('b', true)] }),
      [],
      now,
    );
    assert.equal(allReady.conditions.find((c) => c.type === 'Ready')?.status, 'True');
    assert.equal(allReady.podIP, '127.1.1.1');
  });

  it('keeps conditions owned by others and transition times of unchanged ones', () => {
    const previous = [
      { type: 'PodScheduled', status: 'True', lastTransitionTime: new Date('2030-01-01T00:00:01Z') },
      { type: 'Ready', status: 'True', lastTransitionTime: new Date('2030-01-01T00:00:05Z') },
    ];
    const status = podStatus(state({ containerStatuses: [running('a', true)] }), previous, now);
    assert.equal(
      status.conditions.find((c) => c.type === 'PodScheduled')?.lastTransitionTime,
      '2030-01-01T00:00:01Z',
    );
    assert.equal(
      status.conditions.find((c) => c.type === 'Ready')?.lastTransitionTime,
      '2030-01-01T00:00:05Z',
    );
    assert.equal(status.conditions.find((c) => c.type === 'ContainersReady')?.lastTransitionTime, now);
  });

  it('fails readiness while a readiness gate is not True', () => {
    const status = podStatus(
      state({ containerStatuses: [running('a', true)], readinessGates: ['example.com/gate'] }),
      [],
      now,
    );
    const ready = status.conditions.find((c) => c.type === 'Ready');
    assert.equal(ready?.status, 'False');
    assert.equal(ready?.reason, 'ReadinessGatesNotReady');
  });
});
