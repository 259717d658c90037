// One container of a Pod over its whole life: configure, start, probe, observe the exit, and start
// again per restartPolicy with the kubelet's crash-loop backoff, keeping restartCount and lastState.
import type { V1Container } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { type BackoffPolicy, backoffDelay, shouldRestart } from './backoff.js';
import {
  type ContainerExit,
  type ContainerLaunch,
  type ContainerProcess,
  groupAlive,
  launchContainer,
  signalGroup,
} from './container-process.js';
import { type ContainerStatus, rfc3339, waitingStatus } from './container-status.js';
import type { LocalImage } from './images.js';
import { ProbeLoop } from './probe-loop.js';
import type { ProbeResult } from './probes.js';
import { fallbackMessage, logOffset } from './termination-message.js';

export interface RunnerOptions {
  container: V1Container;
  imageRef: string;
  image: LocalImage;
  /** The effective policy for this container (init containers: `Always` acts as `OnFailure`). */
  restartPolicy: 'Always' | 'OnFailure' | 'Never';
  backoff: BackoffPolicy;
  podIP: string;
  /** Grace period for kills the agent decides on (liveness and startup failures). */
  terminationGraceMs: number;
  /** Builds env, mounts and argv; throws a ContainerConfigError (retried) or any other error. */
  prepare(): Promise<ContainerLaunch>;
  onChange(): void;
  /** Called with each new process group, for last-resort cleanup. */
  onStarted(pid: number): void;
  log: Logger;
}

const configRetryMs = 2_000;

export class ContainerRunner {
  status: ContainerStatus;
  private process: ContainerProcess | undefined;
  private stopped = false;
  private wake: (() => void) | undefined;
  private probes: ProbeLoop[] = [];
  private killReason: string | undefined;
  private starts = 0;

  constructor(private readonly options: RunnerOptions) {
    this.status = waitingStatus(options.container.name, options.imageRef, 'ContainerCreating');
  }

  get pid(): number | undefined {
    return this.process?.pid;
  }

  /** Runs until the container will not be started again (or stop()); resolves with its last exit. */
  async run(): Promise<ContainerExit | undefined> {
    let failures = 0;
    let last: ContainerExit | undefined;
    while (!this.stopped) {
      const launch = await this.configure();
      if (!launch) continue;
      if (this.stopped) break;
      const startedAt = new Date();
      last = await this.runOnce(launch);
      if (this.stopped || !shouldRestart(this.options.restartPolicy, last.exitCode)) break;
      const ranMs = Date.now() - startedAt.getTime();
      failures = ranMs >= this.options.backoff.resetAfterMs ? 1 : failures + 1;
      const delay = backoffDelay(this.options.backoff, failures);
      if (this.status.state.terminated) this.status.lastState = { terminated: this.status.state.terminated };
      this.setState({
        waiting: {
          reason: 'CrashLoopBackOff',
          message: `back-off ${Math.round(delay / 1000)}s restarting failed container=${this.options.container.name}`,
        },
      });
      await this.sleep(delay);
    }
    return last;
  }

  /** SIGTERM to the container's process group, SIGKILL after `graceMs`; no restart afterwards. */
  async stop(graceMs: number): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.terminate(graceMs);
  }

  /** Signals the running container (fault injection); the runner then restarts it per policy. */
  kill(signal: NodeJS.Signals): boolean {
    return this.process ? signalGroup(this.process.pid, signal) : false;
  }

  private async configure(): Promise<ContainerLaunch | undefined> {
    try {
      return await this.options.prepare();
    } catch (error) {
      const message = (error as Error).message;
      this.options.log.warn(
        { container: this.options.container.name, err: message },
        'Cannot configure container',
      );
      this.setState({ waiting: { reason: 'CreateContainerConfigError', message } });
      await this.sleep(configRetryMs);
      return undefined;
    }
  }

  private async runOnce(launch: ContainerLaunch): Promise<ContainerExit> {
    const offset = logOffset(launch.logPath);
    const process = launchContainer(launch);
    this.process = process;
    this.options.onStarted(process.pid);
    this.killReason = undefined;
    const containerID = `agent://${process.pid}`;
    const startedAt = rfc3339(process.startedAt);
    this.starts += 1;
    this.status.restartCount = this.starts - 1;
    if (this.status.state.terminated) this.status.lastState = { terminated: this.status.state.terminated };
    this.status.containerID = containerID;
    this.status.imageID = `agent://${launch.argv[0]}`;
    this.status.started = !this.options.container.startupProbe;
    this.status.ready = false;
    this.setState({ running: { startedAt } });
    this.options.log.info(
      { container: this.options.container.name, pid: process.pid, argv: launch.argv },
      'Started container',
    );
    this.startProbes(launch, process.pid);
    const exit = await process.exited;
    this.stopProbes();
    await waitGroupGone(process.pid);
    this.process = undefined;
    const reason = exit.exitCode === 0 ? 'Completed' : 'Error';
    const fallback = this.options.container.terminationMessagePolicy === 'FallbackToLogsOnError';
    const message =
      this.killReason ??
      (fallback && exit.exitCode !== 0 ? fallbackMessage(launch.logPath, offset) : undefined);
    this.status.ready = false;
    this.status.started = false;
    this.setState({
      terminated: {
        exitCode: exit.exitCode,
        ...(exit.signal ? { signal: exit.exitCode - 128 } : {}),
        reason,
        ...(message ? { message } : {}),
        startedAt,
        finishedAt: rfc3339(new Date()),
        containerID,
      },
    });
    this.options.log.info(
      { container: this.options.container.name, pid: process.pid, exitCode: exit.exitCode },
      'Container exited',
    );
    return exit;
  }

  private startProbes(launch: ContainerLaunch, pid: number): void {
    const { container } = this.options;
    const target = {
      podIP: this.options.podIP,
      pid,
      env: launch.env,
      image: this.options.image,
      ports: container.ports ?? [],
    };
    const liveness = container.livenessProbe;
    const readiness = container.readinessProbe;
    const afterStartup = () => {
      if (liveness)
        this.addProbe(new ProbeLoop('liveness', liveness, target, (ok, last) => this.onLiveness(ok, last)));
      if (readiness) {
        this.addProbe(new ProbeLoop('readiness', readiness, target, (ok) => this.setReady(ok)));
      } else {
        this.setReady(true);
      }
    };
    if (container.startupProbe) {
      this.addProbe(
        new ProbeLoop('startup', container.startupProbe, target, (ok, last) => {
          if (!ok) {
            void this.killForProbe('Startup', last);
            return;
          }
          this.status.started = true;
          this.options.onChange();
          afterStartup();
        }),
      );
    } else {
      afterStartup();
    }
  }

  private addProbe(loop: ProbeLoop): void {
    this.probes.push(loop);
    loop.start();
  }

  private stopProbes(): void {
    for (const probe of this.probes) probe.stop();
    this.probes = [];
  }

  private setReady(ready: boolean): void {
    if (!this.process || this.status.ready === ready) return;
    this.status.ready = ready;
    this.options.onChange();
  }

  private onLiveness(ok: boolean, last: ProbeResult): void {
    if (!ok) void this.killForProbe('Liveness', last);
  }

  private async killForProbe(kind: string, last: ProbeResult): Promise<void> {
    this.killReason = `${kind} probe failed: ${last.message ?? ''}`.trim();
    this.options.log.info(
      { container: this.options.container.name, reason: this.killReason },
      'Killing container',
    );
    this.stopProbes();
    await this.terminate(this.options.terminationGraceMs);
  }

  private async terminate(graceMs: number): Promise<void> {
    const process = this.process;
    if (!process) return;
    signalGroup(process.pid, 'SIGTERM');
    const timer = new Promise((resolve) => setTimeout(resolve, graceMs).unref());
    await Promise.race([process.exited, timer]);
    signalGroup(process.pid, 'SIGKILL');
    await process.exited;
    await waitGroupGone(process.pid);
  }

  private setState(state: ContainerStatus['state']): void {
    this.status.state = state;
    this.options.onChange();
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }
}

/** Resolves once no process of group `pgid` is left (SIGKILLing stragglers whose leader is gone). */
async function waitGroupGone(pgid: number): Promise<void> {
  // As a runtime ends a container with its main process: whatever it forked goes too.
  signalGroup(pgid, 'SIGKILL');
  while (groupAlive(pgid)) await new Promise((resolve) => setTimeout(resolve, 20));
}
