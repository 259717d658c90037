// The background process behind `npm run env:up`: holds one environment until SIGTERM (`env:down`).
import { copyFileSync, renameSync, writeFileSync } from 'node:fs';
import { kubernetesBinary, kubernetesVersion } from './binaries.js';
import { onProcessExit, removeDir } from './cleanup.js';
import { type EnvState, stateDir, statePaths } from './env-state.js';
import { startEnvironment } from './environment.js';
import { defaultLogger } from './log.js';

/** Starts the environment (`--nodes=N`, default 3; `--minio`), publishes state.json, then waits for a signal. */
/** `--nodes=N` (0 to 9), default 3. */
export function nodeCount(args: string[]): number {
  const arg = args.find((a) => a.startsWith('--nodes='));
  const count = arg === undefined ? 3 : Number(arg.slice('--nodes='.length));
  if (!Number.isInteger(count) || count < 0 || count > 9) {
    throw new Error(`--nodes must be a whole number from 0 to 9, got ${arg}`);
  }
  return count;
}

export async function runDaemon(args: string[]): Promise<void> {
  const log = defaultLogger('info');
  const nodes = nodeCount(args);
  const env = await startEnvironment({
    nodes,
    minio: args.includes('--minio'),
    dir: statePaths.cluster,
    log,
  });
  onProcessExit({
    sync: () => removeDir(stateDir),
    graceful: async () => {
      log.info('Stopping the environment');
      await env.stop();
      removeDir(stateDir);
    },
  });
  copyFileSync(env.kubeconfigPath, statePaths.kubeconfig);
  const state: EnvState = {
    pid: process.pid,
    server: env.controlPlane.server,
    kubeconfig: statePaths.kubeconfig,
    kubectl: kubernetesBinary('kubectl'),
    kubernetesVersion,
    nodes,
    minio: env.minio && {
      endpoint: env.minio.endpoint,
      accessKey: env.minio.accessKey,
      secretKey: env.minio.secretKey,
    },
    logs: statePaths.cluster,
  };
  writeFileSync(`${statePaths.ready}.part`, JSON.stringify(state, null, 2));
  renameSync(`${statePaths.ready}.part`, statePaths.ready);
  log.info({ server: state.server }, 'Environment ready; waiting for SIGTERM');
  setInterval(() => undefined, 60_000);
}
