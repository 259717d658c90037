#!/usr/bin/env node
// The local Kubernetes as a background service for humans:
//   node build/test/env/cli.js up [--nodes=N] [--minio]    start it with N real nodes, default 3 (returns once ready)
//   node build/test/env/cli.js status                      is it running, where
//   node build/test/env/cli.js down                        stop it, remove every file
// State lives in ${XDG_RUNTIME_DIR:-/tmp}/etcd-gitops-env (see env-state.ts).
import { spawn } from 'node:child_process';
import { mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { killGroup } from './cleanup.js';
import { type EnvState, isDaemon, liveDaemonPid, readState, stateDir, statePaths } from './env-state.js';
import { kubectl } from './kubectl.js';
import { waitFor } from './wait.js';

const usage = 'usage: cli.js up [--nodes=N] [--minio] | status | down';

function tail(path: string, lines: number): string {
  try {
    return readFileSync(path, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

function printUp(state: EnvState): void {
  console.log(`Local Kubernetes ${state.kubernetesVersion} is running (API server ${state.server}).`);
  console.log(
    `  nodes: ${state.nodes > 0 ? `${state.nodes} (kubelet + containerd each; kubectl logs/exec work)` : 'none'}`,
  );
  if (state.minio)
    console.log(`  MinIO: ${state.minio.endpoint} (${state.minio.accessKey} / ${state.minio.secretKey})`);
  console.log(`  logs: ${state.logs}`);
  console.log(`  kubectl: ${state.kubectl}`);
  console.log('Use it with:');
  console.log(`export KUBECONFIG=${state.kubeconfig}`);
  console.log(`alias kubectl=${state.kubectl}`);
  console.log('Stop it with: npm run env:down');
}

async function up(args: string[]): Promise<number> {
  const running = liveDaemonPid();
  const current = readState();
  if (running && current) {
    printUp(current);
    return 0;
  }
  if (running) {
    console.error(
      `an environment is still starting (daemon pid ${running}); wait, or run 'npm run env:down'`,
    );
    return 1;
  }
  rmSync(stateDir, { recursive: true, force: true });
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const log = openSync(statePaths.log, 'a');
  const daemon = spawn(process.execPath, [fileURLToPath(import.meta.url), 'daemon', ...args], {
    detached: true,
    stdio: ['ignore', log, log],
  });
  daemon.unref();
  writeFileSync(statePaths.pid, `${daemon.pid}\n`);
  console.log(
    `Starting the local Kubernetes in the background (pid ${daemon.pid}, log ${statePaths.log})...`,
  );
  let exitStatus: string | undefined;
  daemon.once('exit', (code, signal) => {
    exitStatus = `daemon exited (${signal ?? code}); see ${statePaths.log}`;
  });
  try {
    printUp(
      await waitFor(readState, { what: 'the environment', timeoutMs: 180_000, abortIf: () => exitStatus }),
    );
    return 0;
  } catch (error) {
    console.error(
      `${(error as Error).message}\n--- last lines of ${statePaths.log}:\n${tail(statePaths.log, 30)}`,
    );
    console.error("Run 'npm run env:down' to remove what is left.");
    return 1;
  }
}

async function status(): Promise<number> {
  const pid = liveDaemonPid();
  const state = readState();
  if (!pid || !state) {
    console.log(pid ? `starting (daemon pid ${pid})` : `not running (state dir ${stateDir})`);
    return pid ? 0 : 3;
  }
  const readyz = await kubectl(state.kubeconfig, ['get', '--raw', '/readyz'], { allowFailure: true });
  printUp(state);
  console.log(`  /readyz: ${readyz.stdout.trim() || readyz.stderr.trim()}`);
  return 0;
}

async function down(): Promise<number> {
  const pid = liveDaemonPid();
  if (pid) {
    process.kill(pid, 'SIGTERM');
    // Until the process is gone, not its pid file: the daemon removes the state directory before it exits.
    const gone = await waitFor(() => !isDaemon(pid), {
      what: `daemon ${pid} to stop`,
      timeoutMs: 60_000,
    }).catch(() => false);
    if (!gone) {
      console.error(`daemon ${pid} did not stop within 60 s; killing it (its reapers remove the rest)`);
      killGroup(pid, 'SIGKILL');
      await sleep(2_000);
    }
  }
  rmSync(stateDir, { recursive: true, force: true });
  console.log(pid ? 'Stopped the local Kubernetes.' : 'The local Kubernetes was not running.');
  return 0;
}

const [command, ...args] = process.argv.slice(2);
switch (command) {
  case 'up':
    process.exitCode = await up(args);
    break;
  case 'daemon':
    // Loaded only here, so `down` and `status` work even while the environment code does not load.
    await (await import('./env-daemon.js')).runDaemon(args);
    break;
  case 'status':
    process.exitCode = await status();
    break;
  case 'down':
    process.exitCode = await down();
    break;
  default:
    console.error(usage);
    process.exitCode = 2;
}
