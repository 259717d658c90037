// For restore tests: runs the compiled `etcd-gitops restore ...` as the seed's init container runs it, and starts
// etcd on a data dir that `restore fetch` produced (the member Pod's etcd container, as a local process).
import { join } from 'node:path';
import { Etcd3 } from 'etcd3';
import { etcdBinary } from '../../env/binaries.js';
import { onProcessExit, startReaper } from '../../env/cleanup.js';
import { httpGet } from '../../env/http-get.js';
import { freePorts } from '../../env/ports.js';
import { type ManagedProcess, startProcess } from '../../env/process-group.js';
import { waitFor } from '../../env/wait.js';
import { type CliResult, runCli } from './backup-cli.js';

/** `etcd-gitops restore <args>` (see {@link runCli}). */
export function runRestoreCli(args: string[], env: Record<string, string>): Promise<CliResult> {
  return runCli('restore', args, env);
}

export interface RestoredEtcd {
  readonly clientURL: string;
  readonly process: ManagedProcess;
  client(): Etcd3;
  stop(): Promise<void>;
}

export interface StartOnDataDirOptions {
  /** More flags, e.g. a `--quota-backend-bytes` above a large database. @default none */
  readonly extraArgs?: readonly string[];
  /** How long etcd may take to report healthy (a large database rebuilds its index first). @default 60 s */
  readonly timeoutMs?: number;
}

/** Starts etcd `version` on `dataDir` (which already holds `member/`); `dir` receives the log. */
export async function startEtcdOnDataDir(
  version: string,
  dataDir: string,
  name: string,
  peerPort: number,
  dir: string,
  options: StartOnDataDirOptions = {},
): Promise<RestoredEtcd> {
  const [clientPort] = await freePorts(1);
  const clientURL = `http://127.0.0.1:${clientPort}`;
  const reaper = startReaper(dir);
  const server = startProcess({
    name: `etcd-${version}-restored`,
    command: etcdBinary(version, 'etcd'),
    args: [
      `--name=${name}`,
      `--data-dir=${dataDir}`,
      `--listen-client-urls=${clientURL}`,
      `--advertise-client-urls=${clientURL}`,
      `--listen-peer-urls=http://127.0.0.1:${peerPort}`,
      '--log-level=warn',
      ...(options.extraArgs ?? []),
    ],
    logPath: join(dir, `etcd-${name}.log`),
  });
  reaper.record(server.pid);
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      await server.stop();
      reaper.stop();
      unregister();
    })();
    return stopping;
  };
  const unregister = onProcessExit({ sync: () => server.killNow(), graceful: stop });
  try {
    await waitFor(async () => (await httpGet(`${clientURL}/health`, {})).body.includes('"health":"true"'), {
      what: `restored etcd ${version} at ${clientURL} to report healthy`,
      timeoutMs: options.timeoutMs ?? 60_000,
      abortIf: server.exitStatus,
    });
  } catch (error) {
    const tail = server.logTail(20);
    await stop();
    throw new Error(`${(error as Error).message}\n--- etcd log:\n${tail}`, { cause: error });
  }
  return { clientURL, process: server, client: () => new Etcd3({ hosts: [clientURL] }), stop };
}
