// The controller as its own process (`node build/app/controller/cli.js controller`: the code the image ships,
// image/shipped-code.ts), as the Deployment runs it, for
// the e2e membership tests: as the shipped ServiceAccount under the shipped RBAC (env.controller), loopback metrics
// and probes, watching the test's namespaces, optionally the test-only crash switch.
// Every process started here is stopped by stop(), on process exit, and (through a detached reaper) even if the
// test process is SIGKILLed.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_CONTROLLER_NODE_OPTIONS } from '../../../constructs/conventions/limits.js';
import { shippedCli } from '../../../image/shipped-code.js';
import { fixtureTeardown, startReaper } from '../../env/cleanup.js';
import type { Environment } from '../../env/environment.js';
import { httpGet } from '../../env/http-get.js';
import { freePorts } from '../../env/ports.js';
import { type ManagedProcess, startProcess } from '../../env/process-group.js';
import { waitFor } from '../../env/wait.js';

export interface ControllerRun {
  readonly process: ManagedProcess;
  /** `http://127.0.0.1:<port>/metrics`. */
  readonly metricsURL: string;
}

export interface ControllerProcesses {
  /** Starts one controller process and waits until it is ready (leading, informers synced); with `crashAfter`, until
   *  it is ready or has exited, at most 30 s (crashAfter() then waits for the exit). */
  start(options?: { crashAfter?: string }): Promise<ControllerRun>;
  /** Runs a controller with the test-only crash switch until it SIGKILLs itself right after `step`; throws
   *  (with its log tail) when it exits otherwise or not within `timeoutMs`. */
  crashAfter(step: string, timeoutMs?: number): Promise<void>;
  /** The value of one sample of the current run's /metrics, e.g. `etcd_gitops_quorum_lost{...}`. */
  metric(run: ControllerRun, name: string, labels: Record<string, string>): Promise<number | undefined>;
  /** Stops every process started here and removes the directory. */
  stop(): Promise<void>;
}

export async function controllerProcesses(
  env: Environment,
  options: {
    /** The namespaces it watches (`--watch-namespaces`). */
    namespaces: readonly string[];
    /**
     * Run inside the environment's network namespace (`env.inside()`), where a Pod's addresses are, e.g. MinIO's
     * `podEndpoint` that an EtcdRestore names: the controller then reaches them as one in a Pod does; its probes
     * and metrics are forwarded to this machine's loopback. @default false: on this machine, etcd members through
     * the connect proxy
     */
    inside?: boolean;
    /**
     * The Node.js binary it runs on; the scale bench passes the image's (image/node-runtime.ts), so its memory is
     * the shipped controller's. @default this process's (`process.execPath`)
     */
    node?: string;
  },
): Promise<ControllerProcesses> {
  const dir = await mkdtemp(join(tmpdir(), 'etcd-gitops-controller-'));
  const reaper = startReaper(dir);
  const runs: ManagedProcess[] = [];
  let count = 0;
  const stop = fixtureTeardown({ dir, reaper, processes: () => runs, graceMs: 5_000 });
  const controllers: ControllerProcesses = {
    async crashAfter(step, timeoutMs = 180_000) {
      const run = await controllers.start({ crashAfter: step });
      const exit = await waitFor(() => run.process.exitStatus() !== undefined && run.process.exited, {
        what: `the controller to kill itself after ${step}`,
        timeoutMs,
        intervalMs: 200,
      }).catch((error: unknown) => {
        throw new Error(`${(error as Error).message}\n${run.process.logTail(30)}`);
      });
      const status = await exit;
      if (status.signal !== 'SIGKILL')
        throw new Error(`${step}: exited with ${JSON.stringify(status)}\n${run.process.logTail(10)}`);
    },
    async start(startOptions = {}) {
      const [metricsPort, healthPort] = (await freePorts(2)) as [number, number];
      const place = options.inside ? env.inside() : undefined;
      count += 1;
      const process = startProcess({
        ...(place ? { netns: place.netns } : {}),
        name: `controller-${count}`,
        command: options.node ?? globalThis.process.execPath,
        args: [
          shippedCli,
          'controller',
          `--watch-namespaces=${options.namespaces.join(',')}`,
          `--metrics-bind-address=127.0.0.1:${metricsPort}`,
          `--health-probe-bind-address=127.0.0.1:${healthPort}`,
          `--log-level=${globalThis.process.env.TEST_LOG_LEVEL ?? 'info'}`,
        ],
        logPath: join(dir, `controller-${count}.log`),
        env: {
          ...(place?.env ?? {}),
          KUBECONFIG: env.controller.kubeconfigPath,
          // The heap cap the shipped Deployment gives the controller (its default memory limit).
          NODE_OPTIONS: DEFAULT_CONTROLLER_NODE_OPTIONS,
          ...(startOptions.crashAfter ? { ETCD_GITOPS_TEST_CRASH_AFTER: startOptions.crashAfter } : {}),
        },
      });
      runs.push(process);
      reaper.record(process.pid);
      // Inside the namespace, its loopback is the namespace's: reached through a forward.
      const [health, metrics] = place
        ? [await env.forward('127.0.0.1', healthPort), await env.forward('127.0.0.1', metricsPort)]
        : [healthPort, metricsPort];
      const ready = async () => {
        const answer = await httpGet(`http://127.0.0.1:${health}/readyz`);
        // Thrown, so that a timeout names the last answer (e.g. `503 not ready: informers not synced: pods`).
        if (answer.status !== 200) throw new Error(`${answer.status} ${answer.body.trim()}`);
        return true;
      };
      await waitFor(ready, {
        what: `controller-${count} ready`,
        timeoutMs: 30_000,
        intervalMs: 200,
        abortIf: () => process.exitStatus(),
      }).catch((error: unknown) => {
        // With the crash switch, the step may follow the first sync at once, so no probe need ever see the process
        // ready; on a loaded machine (CI of 71cb740) no probe did within 30 s and no exit was seen by then either
        // (a late exit, or a slow sync: its log did not tell). crashAfter waits for the exit itself, within its own
        // bound, and fails with the log tail if it never comes.
        if (startOptions.crashAfter) return;
        throw new Error(`${(error as Error).message}\n${process.logTail(30)}`);
      });
      return { process, metricsURL: `http://127.0.0.1:${metrics}/metrics` };
    },
    async metric(run, name, labels) {
      const text = (await httpGet(run.metricsURL)).body;
      const wanted = Object.entries(labels);
      for (const line of text.split('\n')) {
        const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
        if (!match || match[1] !== name) continue;
        const found = new Map(
          [...(match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((pair) => [pair[1], pair[2]]),
        );
        if (wanted.every(([key, value]) => found.get(key) === value)) return Number(match[3]);
      }
      return undefined;
    },
    stop,
  };
  return controllers;
}
