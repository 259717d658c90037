// A real MinIO server on 127.0.0.1 (single drive, temp data dir) for S3 tests, with fault helpers.
import { createHash, randomBytes } from 'node:crypto';
import { copyFile, mkdir, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { minioBinary } from './binaries.js';
import { fixtureTeardown, startReaper } from './cleanup.js';
import { httpGet } from './http-get.js';
import { defaultLogger, type Logger } from './log.js';
import { forwardPort } from './nodes/forward.js';
import { freePorts } from './ports.js';
import { type ManagedProcess, startProcess } from './process-group.js';
import { waitFor } from './wait.js';

export interface MinioOptions {
  /** @default pino on stderr at $ENV_LOG_LEVEL or `warn` */
  log?: Logger;
  /**
   * Run inside this network namespace (an environment with real nodes), listening on every address there, so
   * Pods reach it at `podEndpoint`; `endpoint` stays `http://127.0.0.1:<port>`, forwarded into the namespace.
   * @default none: this machine's loopback only
   */
  netns?: { path: string; address: string };
  /**
   * Accept web identities (`AssumeRoleWithWebIdentity`) from an OpenID provider: the API server's ServiceAccount
   * issuer, whose discovery document must be readable when MinIO starts. One role, whose ARN is `roleArn`.
   * @default none: static keys only
   */
  openId?: {
    /** The provider's discovery document (`/.well-known/openid-configuration`). */
    readonly configUrl: string;
    /** The CA that signs the provider's serving certificate. */
    readonly caFile: string;
    /** The audience tokens must carry (MinIO's client id). */
    readonly clientId: string;
    /** The IAM policies of the role. @default 'readwrite' */
    readonly rolePolicy?: string;
  };
}

export interface Minio {
  /** `http://127.0.0.1:<port>`; use path-style addressing (`forcePathStyle: true`). */
  readonly endpoint: string;
  readonly accessKey: string;
  readonly secretKey: string;
  /** Where Pods reach it: `http://<environment address>:<port>` with real nodes, else `endpoint`. */
  readonly podEndpoint: string;
  /** MinIO's default region. */
  readonly region: 'us-east-1';
  /** With `openId`: the role a web identity assumes (MinIO derives it from the client id). */
  readonly roleArn?: string;
  /** Directory with `data/` and `minio.log`; removed by `stop()`. */
  readonly dir: string;
  /** The current server process (changes after `resume()`/`restart()`); undefined while paused. */
  process(): ManagedProcess | undefined;
  /** Fault: stops the server, keeping port and data; requests fail with "connection refused" until `resume()`. */
  pause(): Promise<void>;
  /** Starts the server again on the same port and data dir; resolves once it is ready. */
  resume(): Promise<void>;
  /** `pause()` then `resume()`. */
  restart(): Promise<void>;
  /** Stops the server and removes every file; idempotent. */
  stop(): Promise<void>;
}

export async function startMinio(options: MinioOptions = {}): Promise<Minio> {
  const log = options.log ?? defaultLogger();
  const dir = await mkdtemp(join(tmpdir(), 'etcd-gitops-minio-'));
  const dataDir = join(dir, 'data');
  await mkdir(dataDir);
  const [port, consolePort] = await freePorts(2);
  const endpoint = `http://127.0.0.1:${port}`;
  const accessKey = 'etcd-gitops-test';
  const secretKey = randomBytes(18).toString('base64url');
  const reaper = startReaper(dir);
  let current: ManagedProcess | undefined;
  const netns = options.netns;
  const forwards: ManagedProcess[] = [];
  if (netns) {
    forwardPort(netns.path, dir, { name: 'minio', localPort: port }, (p) => {
      forwards.push(p);
      reaper.record(p.pid);
      return p;
    });
  }
  const listenHost = netns ? '0.0.0.0' : '127.0.0.1';
  const openId = options.openId;
  const certsDir = join(dir, 'certs');
  // Its own directory (never ~/.minio): MinIO trusts the CAs in `<certs-dir>/CAs` for its outgoing TLS.
  await mkdir(join(certsDir, 'CAs'), { recursive: true });
  if (openId) await copyFile(openId.caFile, join(certsDir, 'CAs', 'provider-ca.crt'));

  const resume = async () => {
    if (current) return;
    const server = startProcess({
      name: 'minio',
      command: minioBinary(),
      args: [
        'server',
        '--quiet',
        '--address',
        `${listenHost}:${port}`,
        '--console-address',
        `127.0.0.1:${consolePort}`,
        '--certs-dir',
        certsDir,
        dataDir,
      ],
      logPath: join(dir, 'minio.log'),
      netns: netns?.path,
      env: {
        MINIO_ROOT_USER: accessKey,
        MINIO_ROOT_PASSWORD: secretKey,
        // No console, no update checks, no call-home: nothing leaves loopback.
        MINIO_BROWSER: 'off',
        MINIO_UPDATE: 'off',
        MINIO_CALLHOME_ENABLE: 'off',
        MINIO_CI_CD: '1',
        ...(openId
          ? {
              MINIO_IDENTITY_OPENID_CONFIG_URL: openId.configUrl,
              MINIO_IDENTITY_OPENID_CLIENT_ID: openId.clientId,
              MINIO_IDENTITY_OPENID_ROLE_POLICY: openId.rolePolicy ?? 'readwrite',
            }
          : {}),
      },
    });
    current = server;
    reaper.record(server.pid);
    try {
      await waitFor(async () => (await httpGet(`${endpoint}/minio/health/ready`)).status === 200, {
        what: `MinIO ${endpoint}/minio/health/ready`,
        timeoutMs: 60_000,
        abortIf: server.exitStatus,
      });
    } catch (error) {
      throw new Error(`${(error as Error).message}\n--- minio log:\n${server.logTail(25)}`, { cause: error });
    }
    log.debug({ endpoint, pid: server.pid }, 'Started MinIO');
  };
  const pause = async () => {
    const server = current;
    current = undefined;
    await server?.stop();
  };
  const stop = fixtureTeardown({
    dir,
    reaper,
    processes: () => [...(current ? [current] : []), ...forwards],
  });
  try {
    await resume();
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    endpoint,
    podEndpoint: netns ? `http://${netns.address}:${port}` : endpoint,
    accessKey,
    secretKey,
    region: 'us-east-1',
    ...(openId ? { roleArn: minioRoleArn(openId.clientId) } : {}),
    dir,
    process: () => current,
    pause,
    resume,
    restart: async () => {
      await pause();
      await resume();
    },
    stop,
  };
}

/**
 * The ARN MinIO gives the role of an OpenID provider with a role policy: `arn:minio:iam:::role/` and the unpadded
 * base64url SHA-1 of the client id (its documented, stable derivation; the region part is empty as MinIO's is unset).
 */
export function minioRoleArn(clientId: string): string {
  return `arn:minio:iam:::role/${createHash('sha1').update(clientId).digest('base64url')}`;
}
