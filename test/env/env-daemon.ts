// The background process behind `npm run env:up`: holds one environment until SIGTERM (`env:down`).
import { copyFileSync, renameSync, writeFileSync } from 'node:fs';
import { kubernetesBinary, kubernetesVersion } from './binaries.js';
import { onProcessExit, removeDir } from './cleanup.js';
import { type EnvState, stateDir, statePaths } from './env-state.js';
import { startEnvironment } from './environment.js';
import { defaultLogger } from './log.js';

/** Starts the environment (`--no-agent`, `--minio`), publishes state.json, then waits for a signal. */
export async function runDaemon(args: string[]): Promise<void> {
  const log = defaultLogger('info');
  const agent = !args.includes('--no-agent');
  const env = await startEnvironment({
    agent,
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
    agent,
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
