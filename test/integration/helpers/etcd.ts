// Standalone etcd processes for integration tests: one member each, random loopback ports, a temp data dir,
// optional TLS with client certificates, optionally seeded from a snapshot. Always stopped and removed,
// even when the test process dies (a detached reaper).
import { execFile } from 'node:child_process';
import { readFileSync as readFile } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Etcd3 } from 'etcd3';
import { etcdBinary, etcdVersions } from '../../env/binaries.js';
import { generatePki } from '../../env/certs.js';
import { fixtureTeardown, startReaper } from '../../env/cleanup.js';
import { httpGet } from '../../env/http-get.js';
import { freePorts } from '../../env/ports.js';
import { type ManagedProcess, startProcess } from '../../env/process-group.js';
import { waitFor } from '../../env/wait.js';

const run = promisify(execFile);

export interface StartEtcdOptions {
  /** `3.4`, `3.5`, `3.6` or an exact `X.Y.Z` of a built etcd. @default '3.6' */
  version?: string;
  /** Serve clients over TLS and require client certificates. @default false */
  tls?: boolean;
  /** Restore this snapshot file into the data dir before starting (etcdutl, or etcdctl for 3.4). */
  restoreFrom?: string;
  /** `--quota-backend-bytes`. @default 4 GiB */
  quotaBytes?: number;
}

export interface EtcdTlsFiles {
  caFile: string;
  certFile: string;
  keyFile: string;
}

export interface StandaloneEtcd {
  readonly version: string;
  readonly clientURL: string;
  /** Client TLS files (CA, client certificate and key) when started with `tls`. */
  readonly tls?: EtcdTlsFiles;
  /** Temp directory with `data/` and `etcd.log`. */
  readonly dir: string;
  readonly process: ManagedProcess;
  /** A new etcd3 client for this member (the caller closes it). */
  client(): Etcd3;
  /** Path of `etcdctl`/`etcdutl` of this version. */
  binary(name: 'etcdctl' | 'etcdutl'): string;
  /** Stops the process group and removes the directory; idempotent. */
  stop(): Promise<void>;
}

function resolveVersion(version: string): string {
  return (etcdVersions as Record<string, string>)[version] ?? version;
}

export async function startEtcd(options: StartEtcdOptions = {}): Promise<StandaloneEtcd> {
  const version = resolveVersion(options.version ?? '3.6');
  const dir = await mkdtemp(join(tmpdir(), 'etcd-gitops-etcd-'));
  const reaper = startReaper(dir);
  let server: ManagedProcess | undefined;
  const stop = fixtureTeardown({ dir, reaper, processes: () => (server ? [server] : []) });
  try {
    const [clientPort, peerPort] = await freePorts(2);
    const scheme = options.tls ? 'https' : 'http';
    const clientURL = `${scheme}://127.0.0.1:${clientPort}`;
    const peerURL = `http://127.0.0.1:${peerPort}`;
    const dataDir = join(dir, 'data');
    const name = 'member-0';
    const cluster = [
      `--name=${name}`,
      `--initial-cluster=${name}=${peerURL}`,
      `--initial-advertise-peer-urls=${peerURL}`,
    ];
    if (options.restoreFrom) await restore(version, options.restoreFrom, dataDir, cluster);
    let tls: EtcdTlsFiles | undefined;
    const tlsFlags: string[] = [];
    if (options.tls) {
      const pki = await generatePki(dir);
      tls = { caFile: pki.caCert, certFile: pki.adminCert, keyFile: pki.adminKey };
      tlsFlags.push(
        `--cert-file=${pki.servingCert}`,
        `--key-file=${pki.servingKey}`,
        `--trusted-ca-file=${pki.caCert}`,
        '--client-cert-auth',
      );
    }
    server = startProcess({
      name: `etcd-${version}`,
      command: etcdBinary(version, 'etcd'),
      args: [
        ...cluster,
        `--data-dir=${dataDir}`,
        `--listen-client-urls=${clientURL}`,
        `--advertise-client-urls=${clientURL}`,
        `--listen-peer-urls=${peerURL}`,
        '--initial-cluster-state=new',
        `--initial-cluster-token=test-${clientPort}`,
        `--quota-backend-bytes=${options.quotaBytes ?? 4 * 1024 ** 3}`,
        '--log-level=warn',
        ...tlsFlags,
      ],
      logPath: join(dir, 'etcd.log'),
    });
    reaper.record(server.pid);
    const started = server;
    await waitFor(
      async () =>
        (
          await httpGet(
            `${clientURL}/health`,
            tls ? { ca: tls.caFile, cert: tls.certFile, key: tls.keyFile } : {},
          )
        ).body.includes('"health":"true"'),
      {
        what: `etcd ${version} at ${clientURL} to report healthy`,
        timeoutMs: 30_000,
        abortIf: started.exitStatus,
      },
    ).catch((error: Error) => {
      throw new Error(`${error.message}\n--- etcd log:\n${started.logTail(20)}`, { cause: error });
    });
    return {
      version,
      clientURL,
      tls,
      dir,
      process: started,
      client: () => etcdClient(clientURL, tls),
      binary: (binaryName) => etcdBinary(version, binaryName),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** An etcd3 client without retries (tests want failures to show), for `clientURL`. */
export function etcdClient(clientURL: string, tls?: EtcdTlsFiles): Etcd3 {
  const credentials = tls
    ? {
        rootCertificate: readFile(tls.caFile),
        certChain: readFile(tls.certFile),
        privateKey: readFile(tls.keyFile),
      }
    : undefined;
  return new Etcd3({ hosts: [clientURL], ...(credentials ? { credentials } : {}) });
}

async function restore(version: string, snapshot: string, dataDir: string, cluster: string[]): Promise<void> {
  // etcd 3.4 restores with etcdctl; 3.5+ with etcdutl (etcdctl's restore is deprecated there).
  const tool = version.startsWith('3.4.') ? etcdBinary(version, 'etcdctl') : etcdBinary(version, 'etcdutl');
  await run(tool, ['snapshot', 'restore', snapshot, `--data-dir=${dataDir}`, ...cluster], {
    env: { ...process.env, ETCDCTL_API: '3' },
  });
}
