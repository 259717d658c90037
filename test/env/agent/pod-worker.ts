// One Pod on this node, from first sight to removal: address, images, volumes, init containers in
// order, then the containers; status through the status subresource; graceful deletion at the end.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { V1Container, V1Pod } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { containerLaunch, implicitTokenVolume, writeResolvConf } from './container-launch.js';
import type { ContainerLaunch } from './container-process.js';
import { ContainerRunner } from './container-runner.js';
import { type ContainerStatus, rfc3339, waitingStatus } from './container-status.js';
import { type AgentContext, containerLogPath } from './context.js';
import type { PodEndpoint } from './dns-records.js';
import { type LocalImage, resolveImage } from './images.js';
import { errorMessage, isNotFound } from './kube.js';
import { type Mount, serviceAccountPath } from './mounts.js';
import { type PodStatusPatch, podStatus } from './pod-status.js';
import { StatusWriter } from './status-writer.js';
import { type HostVolume, prepareVolume } from './volumes.js';

const retryMs = 2_000;
type RestartPolicy = 'Always' | 'OnFailure' | 'Never';

export class PodWorker {
  podIP: string | undefined;
  private readonly log: Logger;
  private readonly podDir: string;
  private readonly startTime = rfc3339(new Date());
  private readonly pending = new Map<string, ContainerStatus>();
  private readonly volumes = new Map<string, HostVolume>();
  private readonly extraMounts: Mount[] = [];
  private initRunners: ContainerRunner[] = [];
  private runners: ContainerRunner[] = [];
  private initialized = false;
  private stopping = false;
  private gone = false;
  private terminating: Promise<void> | undefined;
  private readonly status: StatusWriter;

  constructor(
    private readonly ctx: AgentContext,
    public pod: V1Pod,
  ) {
    this.log = ctx.log.child({ pod: `${this.namespace}/${this.name}` });
    this.podDir = join(ctx.stateDir, 'pods', this.uid);
    this.status = new StatusWriter(ctx.core, this.namespace, this.name, () => this.currentStatus(), this.log);
  }

  get namespace(): string {
    return this.pod.metadata?.namespace ?? 'default';
  }

  get name(): string {
    return this.pod.metadata?.name ?? '';
  }

  get uid(): string {
    return this.pod.metadata?.uid ?? '';
  }

  private get restartPolicy(): RestartPolicy {
    return (this.pod.spec?.restartPolicy ?? 'Always') as RestartPolicy;
  }

  /** Starts the Pod in the background (a Pod that already finished is left as it is). */
  start(): void {
    const phase = this.pod.status?.phase;
    if (phase === 'Succeeded' || phase === 'Failed') {
      this.log.info({ phase }, 'Pod already finished, not running it again');
      return;
    }
    this.run().catch((error) => this.log.error({ err: errorMessage(error) }, 'Pod worker failed'));
  }

  /** The latest object from the API server; a deletionTimestamp starts graceful termination. */
  update(pod: V1Pod): void {
    this.pod = pod;
    if (pod.metadata?.deletionTimestamp) void this.terminate();
  }

  /** The Pod object is gone from the API server: stop everything now. */
  async vanish(): Promise<void> {
    this.gone = true;
    this.status.close();
    await this.terminate(0);
  }

  /** SIGTERM, grace period, SIGKILL; clean up; then remove the Pod object (grace 0), as the kubelet. */
  terminate(graceSeconds?: number): Promise<void> {
    this.terminating ??= this.doTerminate(graceSeconds);
    return this.terminating;
  }

  /** Stops the processes without touching the API (agent shutdown). */
  async shutdown(graceMs: number): Promise<void> {
    this.stopping = true;
    this.status.close();
    await Promise.all([...this.initRunners, ...this.runners].map((runner) => runner.stop(graceMs)));
  }

  /** SIGKILL to every process group, synchronously (process exit). */
  killNow(): void {
    for (const runner of [...this.initRunners, ...this.runners]) runner.kill('SIGKILL');
  }

  runner(container?: string): ContainerRunner | undefined {
    const all = [...this.runners, ...this.initRunners];
    return container ? all.find((r) => r.status.name === container) : (this.runners[0] ?? all[0]);
  }

  endpoint(): PodEndpoint | undefined {
    if (!this.podIP) return undefined;
    const ready = this.runners.length > 0 && this.runners.every((r) => r.status.ready);
    return {
      namespace: this.namespace,
      name: this.name,
      labels: this.pod.metadata?.labels ?? {},
      hostname: this.pod.spec?.hostname,
      subdomain: this.pod.spec?.subdomain,
      ip: this.podIP,
      ready,
      terminating: this.stopping || this.pod.metadata?.deletionTimestamp !== undefined,
    };
  }

  private async run(): Promise<void> {
    this.podIP = this.ctx.addresses.allocate(this.uid);
    this.ctx.onEndpointsChanged();
    this.log.info({ podIP: this.podIP }, 'Starting pod');
    const images = await this.resolveImages();
    if (!images) return;
    if (!(await this.prepareVolumes())) return;
    for (const container of this.pod.spec?.initContainers ?? []) {
      if (this.stopping) return;
      const policy = this.restartPolicy === 'Never' ? 'Never' : 'OnFailure';
      const runner = this.runnerFor(container, images.get(container.name), policy);
      this.initRunners.push(runner);
      const exit = await runner.run();
      if (this.stopping) return;
      if (exit?.exitCode !== 0) {
        this.log.info(
          { container: container.name, exitCode: exit?.exitCode },
          'Init container failed, pod failed',
        );
        return;
      }
    }
    this.initialized = true;
    if (this.stopping) return;
    this.runners = (this.pod.spec?.containers ?? []).map((c) =>
      this.runnerFor(c, images.get(c.name), this.restartPolicy),
    );
    this.writeStatus();
    await Promise.all(this.runners.map((runner) => runner.run()));
    this.writeStatus();
  }

  private allContainers(): V1Container[] {
    return [...(this.pod.spec?.initContainers ?? []), ...(this.pod.spec?.containers ?? [])];
  }

  /** Images of every container; while any is unknown the Pod waits with ErrImagePull (rechecked). */
  private async resolveImages(): Promise<Map<string, LocalImage> | undefined> {
    for (;;) {
      const images = new Map<string, LocalImage>();
      let missing = false;
      for (const container of this.allContainers()) {
        const resolution = resolveImage(container.image ?? '', this.ctx.imageRules);
        if ('image' in resolution) {
          images.set(container.name, resolution.image);
          this.pending.delete(container.name);
        } else {
          missing = true;
          this.pending.set(
            container.name,
            waitingStatus(container.name, container.image ?? '', 'ErrImagePull', resolution.error),
          );
        }
      }
      this.writeStatus();
      if (!missing) return images;
      this.log.warn({ images: [...this.pending.values()].map((s) => s.image) }, 'Unknown images');
      await sleep(retryMs * 5);
      if (this.stopping) return undefined;
    }
  }

  private async prepareVolumes(): Promise<boolean> {
    const volumes = [...(this.pod.spec?.volumes ?? [])];
    const mountsToken = this.allContainers().some((c) =>
      c.volumeMounts?.some((m) => m.mountPath === serviceAccountPath),
    );
    const placement = { podIP: this.podIP ?? '', hostIP: this.ctx.hostIP, nodeName: this.ctx.nodeName };
    const volumeContext = {
      pod: this.pod,
      placement,
      stateDir: this.ctx.stateDir,
      podDir: this.podDir,
      config: this.ctx.config,
      identity: this.ctx.identity,
    };
    while (!this.stopping) {
      try {
        for (const volume of volumes)
          this.volumes.set(volume.name, await prepareVolume(volumeContext, volume));
        break;
      } catch (error) {
        const message = `MountVolume.SetUp failed: ${errorMessage(error)}`;
        this.log.warn({ err: message }, 'Cannot prepare volumes');
        for (const c of this.allContainers())
          this.pending.set(c.name, waitingStatus(c.name, c.image ?? '', 'ContainerCreating', message));
        this.writeStatus();
        await sleep(retryMs);
      }
    }
    if (this.stopping) return false;
    this.pending.clear();
    const resolvConf = writeResolvConf(this.podDir, this.namespace);
    this.extraMounts.push({ source: resolvConf, target: '/etc/resolv.conf', readOnly: true });
    if (!mountsToken && this.pod.spec?.automountServiceAccountToken !== false) {
      try {
        const token = await prepareVolume(volumeContext, implicitTokenVolume);
        this.extraMounts.push({ source: token.hostPath, target: serviceAccountPath, readOnly: true });
      } catch (error) {
        this.log.warn({ err: errorMessage(error) }, 'No service account token for the pod');
      }
    }
    return true;
  }

  private runnerFor(
    container: V1Container,
    image: LocalImage | undefined,
    restartPolicy: RestartPolicy,
  ): ContainerRunner {
    if (!image) throw new Error(`no image resolved for container ${container.name}`);
    const grace = (this.pod.spec?.terminationGracePeriodSeconds ?? 30) * 1000;
    return new ContainerRunner({
      container,
      imageRef: container.image ?? '',
      image,
      restartPolicy,
      backoff: this.ctx.backoff,
      podIP: this.podIP ?? '',
      terminationGraceMs: grace,
      prepare: () => this.launchFor(container, image),
      onChange: () => {
        this.writeStatus();
        this.ctx.onEndpointsChanged();
      },
      onStarted: (pid) => this.ctx.recordProcessGroup(pid),
      log: this.log,
    });
  }

  private launchFor(container: V1Container, image: LocalImage): Promise<ContainerLaunch> {
    return containerLaunch({
      pod: this.pod,
      container,
      image,
      placement: { podIP: this.podIP ?? '', hostIP: this.ctx.hostIP, nodeName: this.ctx.nodeName },
      config: this.ctx.config,
      baseEnv: this.ctx.baseEnv,
      volumes: this.volumes,
      extraMounts: this.extraMounts,
      mountPoints: this.ctx.mountPoints,
      stateDir: this.ctx.stateDir,
      logPath: containerLogPath(this.ctx.stateDir, this.namespace, this.name, container.name),
    });
  }

  private async doTerminate(graceSeconds?: number): Promise<void> {
    this.stopping = true;
    this.status.close();
    this.ctx.onEndpointsChanged();
    const grace =
      graceSeconds ??
      this.pod.metadata?.deletionGracePeriodSeconds ??
      this.pod.spec?.terminationGracePeriodSeconds ??
      30;
    this.log.info({ graceSeconds: grace }, 'Terminating pod');
    await Promise.all([...this.initRunners, ...this.runners].map((runner) => runner.stop(grace * 1000)));
    rmSync(this.podDir, { recursive: true, force: true });
    if (!this.gone) {
      try {
        await this.ctx.core.deleteNamespacedPod({
          namespace: this.namespace,
          name: this.name,
          gracePeriodSeconds: 0,
          body: { gracePeriodSeconds: 0, preconditions: { uid: this.uid } },
        });
      } catch (error) {
        if (!isNotFound(error)) this.log.warn({ err: errorMessage(error) }, 'Failed to remove pod');
      }
    }
    this.gone = true;
    this.ctx.addresses.release(this.uid);
    this.podIP = undefined;
    this.log.info('Pod removed');
    this.ctx.onWorkerGone(this.uid);
  }

  private statusOf(
    containers: V1Container[],
    runners: ContainerRunner[],
    waitingReason: string,
  ): ContainerStatus[] {
    return containers.map((c) => {
      const runner = runners.find((r) => r.status.name === c.name);
      return structuredClone(
        runner?.status ?? this.pending.get(c.name) ?? waitingStatus(c.name, c.image ?? '', waitingReason),
      );
    });
  }

  private writeStatus(): void {
    if (!this.gone && !this.stopping) this.status.request();
  }

  private currentStatus(): PodStatusPatch {
    const spec = this.pod.spec;
    const waitingApp = this.initialized ? 'ContainerCreating' : 'PodInitializing';
    return podStatus(
      {
        podIP: this.podIP,
        hostIP: this.ctx.hostIP,
        startTime: this.startTime,
        restartPolicy: this.restartPolicy,
        initStatuses: this.statusOf(spec?.initContainers ?? [], this.initRunners, 'PodInitializing'),
        containerStatuses: this.statusOf(spec?.containers ?? [], this.runners, waitingApp),
        initialized: this.initialized,
        readinessGates: (spec?.readinessGates ?? []).map((gate) => gate.conditionType),
      },
      this.pod.status?.conditions ?? [],
      rfc3339(new Date()),
    );
  }
}

/** A pause that does not keep the process alive (the agent may be stopped meanwhile). */
function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
