// A single-member etcd on loopback, the API server's storage.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { etcdBinary, etcdVersions } from './binaries.js';
import { httpGet } from './http-get.js';
import { freePorts } from './ports.js';
import { type ManagedProcess, startProcess } from './process-group.js';
import { waitFor } from './wait.js';

export interface EtcdServer {
  process: ManagedProcess;
  clientURL: string;
}

export interface EtcdServerPorts {
  clientPort: number;
  peerPort: number;
  /** Run inside this network namespace (its loopback), see ProcessSpec.netns. @default this machine's */
  netns?: string;
}

/** Starts etcd (the pinned 3.6 build) with its data under `dir/etcd`; resolves once /health is true. */
export async function startEtcdServer(
  dir: string,
  log: Logger,
  onStart: (p: ManagedProcess) => void,
  ports?: EtcdServerPorts,
): Promise<EtcdServer> {
  const [clientPort, peerPort] = ports ? [ports.clientPort, ports.peerPort] : await freePorts(2);
  const clientURL = `http://127.0.0.1:${clientPort}`;
  const peerURL = `http://127.0.0.1:${peerPort}`;
  const dataDir = join(dir, 'etcd');
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const server = startProcess({
    name: 'etcd',
    command: etcdBinary(etcdVersions['3.6'], 'etcd'),
    args: [
      '--name=control-plane',
      `--data-dir=${dataDir}`,
      `--listen-client-urls=${clientURL}`,
      `--advertise-client-urls=${clientURL}`,
      `--listen-peer-urls=${peerURL}`,
      `--initial-advertise-peer-urls=${peerURL}`,
      `--initial-cluster=control-plane=${peerURL}`,
      '--initial-cluster-state=new',
      // Test data only: skipping fsync makes the API server several times faster on slow disks.
      '--unsafe-no-fsync',
      '--log-level=warn',
    ],
    logPath: join(dir, 'etcd.log'),
    netns: ports?.netns,
  });
  onStart(server);
  log.debug({ pid: server.pid, clientURL }, 'Started etcd');
  await waitFor(async () => (await httpGet(`${clientURL}/health`)).body.includes('"health":"true"'), {
    what: `etcd at ${clientURL} to report healthy`,
    timeoutMs: 30_000,
    abortIf: server.exitStatus,
  });
  return { process: server, clientURL };
}
