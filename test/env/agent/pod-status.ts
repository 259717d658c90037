// A Pod's status computed from its containers, as the kubelet reports it: phase, conditions (keeping
// conditions other components own, such as PodScheduled), addresses and container statuses.
import type { V1PodCondition } from '@kubernetes/client-node';
import { shouldRestart } from './backoff.js';
import { type ContainerStatus, rfc3339 } from './container-status.js';

export interface PodRunState {
  podIP?: string;
  hostIP: string;
  startTime: string;
  restartPolicy: string;
  initStatuses: ContainerStatus[];
  containerStatuses: ContainerStatus[];
  /** Every init container exited 0. */
  initialized: boolean;
  /** Condition types the Pod's readinessGates require (owned by others). */
  readinessGates: string[];
}

export interface Condition {
  type: string;
  status: 'True' | 'False';
  reason?: string;
  message?: string;
  lastProbeTime: null;
  lastTransitionTime: string;
}

export interface PodStatusPatch {
  phase: 'Pending' | 'Running' | 'Succeeded' | 'Failed';
  conditions: Condition[];
  hostIP: string;
  hostIPs: { ip: string }[];
  podIP?: string;
  podIPs?: { ip: string }[];
  startTime: string;
  initContainerStatuses: ContainerStatus[];
  containerStatuses: ContainerStatus[];
}

const ownTypes = ['PodReadyToStartContainers', 'Initialized', 'ContainersReady', 'Ready'];

function isFinal(status: ContainerStatus, restartPolicy: string): boolean {
  const terminated = status.state.terminated;
  return terminated !== undefined && !shouldRestart(restartPolicy, terminated.exitCode);
}

export function podPhase(state: PodRunState): PodStatusPatch['phase'] {
  const initFailed = state.initStatuses.some(
    (s) => s.state.terminated && s.state.terminated.exitCode !== 0 && state.restartPolicy === 'Never',
  );
  if (initFailed) return 'Failed';
  if (!state.initialized) return 'Pending';
  const containers = state.containerStatuses;
  if (containers.length > 0 && containers.every((s) => isFinal(s, state.restartPolicy))) {
    return containers.every((s) => s.state.terminated?.exitCode === 0) ? 'Succeeded' : 'Failed';
  }
  const started = containers.some((s) => s.state.running || s.state.terminated || s.lastState.terminated);
  return started ? 'Running' : 'Pending';
}

function condition(
  type: string,
  ok: boolean,
  reason: string | undefined,
  message: string | undefined,
  now: string,
): Condition {
  return {
    type,
    status: ok ? 'True' : 'False',
    ...(ok || !reason ? {} : { reason }),
    ...(ok || !message ? {} : { message }),
    lastProbeTime: null,
    lastTransitionTime: now,
  };
}

/** Informer objects carry Dates (listed) or strings (watched). */
function time(value: Date | string): string {
  return rfc3339(new Date(value));
}

function names(statuses: ContainerStatus[]): string {
  return `[${statuses.map((s) => s.name).join(' ')}]`;
}

/** The status to write; `previous` are the Pod's current conditions (transition times kept when unchanged). */
export function podStatus(state: PodRunState, previous: V1PodCondition[], now: string): PodStatusPatch {
  const phase = podPhase(state);
  const completed = phase === 'Succeeded' || phase === 'Failed';
  const pendingInit = state.initStatuses.filter((s) => s.state.terminated?.exitCode !== 0);
  const unready = state.containerStatuses.filter((s) => !s.ready);
  const gatesMet = state.readinessGates.every((gate) =>
    previous.some((c) => c.type === gate && c.status === 'True'),
  );
  const containersReady = unready.length === 0 && state.containerStatuses.length > 0;
  const unreadyReason = completed ? 'PodCompleted' : 'ContainersNotReady';
  const unreadyMessage = completed ? undefined : `containers with unready status: ${names(unready)}`;
  const ours = [
    condition(
      'PodReadyToStartContainers',
      state.podIP !== undefined && !completed,
      undefined,
      undefined,
      now,
    ),
    condition(
      'Initialized',
      state.initialized,
      'ContainersNotInitialized',
      `containers with incomplete status: ${names(pendingInit)}`,
      now,
    ),
    condition('ContainersReady', containersReady, unreadyReason, unreadyMessage, now),
    condition(
      'Ready',
      containersReady && gatesMet,
      containersReady ? 'ReadinessGatesNotReady' : unreadyReason,
      unreadyMessage,
      now,
    ),
  ];
  for (const c of ours) {
    const before = previous.find((p) => p.type === c.type);
    if (before && before.status === c.status && before.lastTransitionTime)
      c.lastTransitionTime = time(before.lastTransitionTime);
  }
  const others = previous
    .filter((c) => !ownTypes.includes(c.type))
    .map(
      (c): Condition => ({
        type: c.type,
        status: c.status as Condition['status'],
        ...(c.reason ? { reason: c.reason } : {}),
        ...(c.message ? { message: c.message } : {}),
        lastProbeTime: null,
        lastTransitionTime: c.lastTransitionTime ? time(c.lastTransitionTime) : now,
      }),
    );
  return {
    phase,
    conditions: [...others, ...ours],
    hostIP: state.hostIP,
    hostIPs: [{ ip: state.hostIP }],
    ...(state.podIP ? { podIP: state.podIP, podIPs: [{ ip: state.podIP }] } : {}),
    startTime: state.startTime,
    initContainerStatuses: state.initStatuses,
    containerStatuses: state.containerStatuses,
  };
}
