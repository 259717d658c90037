// The status of one container in the shape of the API's ContainerStatus (timestamps as RFC 3339 text).

export interface TerminatedState {
  exitCode: number;
  signal?: number;
  reason: string;
  message?: string;
  startedAt: string;
  finishedAt: string;
  containerID: string;
}

export interface ContainerState {
  waiting?: { reason: string; message?: string };
  running?: { startedAt: string };
  terminated?: TerminatedState;
}

export interface ContainerStatus {
  name: string;
  image: string;
  imageID: string;
  containerID?: string;
  ready: boolean;
  started: boolean;
  restartCount: number;
  state: ContainerState;
  lastState: ContainerState;
}

/** RFC 3339 in whole seconds, as metav1.Time serialises. */
export function rfc3339(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function waitingStatus(
  name: string,
  image: string,
  reason: string,
  message?: string,
): ContainerStatus {
  return {
    name,
    image,
    imageID: '',
    ready: false,
    started: false,
    restartCount: 0,
    state: { waiting: message ? { reason, message } : { reason } },
    lastState: {},
  };
}
