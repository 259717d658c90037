// A real Kubernetes control plane on loopback: etcd, kube-apiserver, kube-controller-manager and
// kube-scheduler of the pinned version, each in its own process group, all state in one directory.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, type KubeConfig, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { kubernetesBinary } from './binaries.js';
import { generatePki, type Pki } from './certs.js';
import { onProcessExit, reapDirSync, removeDir, startReaper } from './cleanup.js';
import {
  apiServerFlags,
  auditPolicy,
  controllerManagerFlags,
  issuerEndpoints,
  schedulerFlags,
} from './component-flags.js';
import { startEtcdServer } from './etcd-server.js';
import { httpGet } from './http-get.js';
import { writeKubeconfig } from './kubeconfig.js';
import { defaultLogger, type Logger } from './log.js';
import { forwardPort } from './nodes/forward.js';
import { freePorts } from './ports.js';
import { type ManagedProcess, startProcess } from './process-group.js';
import { waitFor } from './wait.js';

export interface ControlPlaneOptions {
  /** Directory for all state; created if missing and removed by `stop()`. @default a new directory under os.tmpdir() */
  dir?: string;
  /** @default pino on stderr at $ENV_LOG_LEVEL or `warn` */
  log?: Logger;
  /**
   * Wait until the controller-manager has created the `default` ServiceAccount and the
   * `kube-root-ca.crt` ConfigMap in namespace `default`, so Pods can be created right away.
   * @default true
   */
  waitForControllers?: boolean;
  /**
   * Run every component inside this network namespace (an environment with real nodes), reachable from nodes and
   * Pods at `address`; each port this process uses (API server, etcd, controller health) is forwarded from the
   * same port on 127.0.0.1, so every URL below is the same as without it.
   * @default none: every component on this machine's loopback
   */
  netns?: { path: string; address: string };
  /** Keep an audit log of these users' requests (`auditLogPath`). @default none */
  auditUsers?: readonly string[];
}

export interface ControlPlane {
  /** The directory holding certificates, data and one `<component>.log` per process. */
  readonly dir: string;
  /** Admin kubeconfig (user `kubernetes-admin`, group `system:masters`). */
  readonly kubeconfigPath: string;
  readonly kubeConfig: KubeConfig;
  /** `https://127.0.0.1:<port>` */
  readonly server: string;
  /**
   * The ServiceAccount issuer's OpenID discovery document, at the address the environment's MinIO reaches (the
   * node-facing address, else loopback); readable without credentials, as on a cloud cluster (a
   * ClusterRoleBinding of `system:service-account-issuer-discovery` to `system:unauthenticated`). Signed by `pki.caCert`.
   */
  readonly issuerDiscoveryUrl: string;
  /** The API server's audit log (JSON lines, one per completed request of `auditUsers`), when asked for. */
  readonly auditLogPath?: string;
  readonly pki: Pki;
  /** etcd, kube-apiserver, kube-controller-manager, kube-scheduler (each pid is also its process group id). */
  readonly processes: readonly ManagedProcess[];
  /** Fault: stops kube-apiserver (SIGTERM) and starts it again with the same flags; resolves once it is ready. */
  restartApiServer(): Promise<void>;
  /** Records a process started for this environment (nodes, CoreDNS): stopped last, reaped after a crash. */
  adopt(process: ManagedProcess): ManagedProcess;
  /** Stops every process group and removes `dir`; idempotent. */
  stop(): Promise<void>;
}

const phaseTimeoutMs = 60_000;

export async function startControlPlane(options: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const log = options.log ?? defaultLogger();
  const dir = options.dir ?? (await mkdtemp(join(tmpdir(), 'etcd-gitops-cp-')));
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const processes: ManagedProcess[] = [];
  const reaper = startReaper(dir);
  const track = (started: ManagedProcess) => {
    processes.push(started);
    reaper.record(started.pid);
    return started;
  };
  let restartApiServer = async (): Promise<void> => {
    throw new Error('the control plane has not started');
  };
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      // Controllers, then the API server, then etcd, then the forwards into the namespace.
      const order = ['kube-controller-manager', 'kube-scheduler', 'kube-apiserver', 'etcd'];
      const stage = (names: string[]) =>
        Promise.all(processes.filter((p) => names.includes(p.name)).map((p) => p.stop()));
      await stage(order.slice(0, 2));
      await stage(['kube-apiserver']);
      await stage(['etcd']);
      await Promise.all(processes.filter((p) => !order.includes(p.name)).map((p) => p.stop()));
      reaper.stop();
      // Mounts and cgroups too, when real nodes lived here (nodes/).
      reapDirSync(dir);
      await rm(dir, { recursive: true, force: true, maxRetries: 3 });
      unregister();
      log.info({ dir }, 'Stopped control plane');
    })();
    return stopping;
  };
  const unregister = onProcessExit({
    sync: () => {
      for (const p of processes) p.killNow();
      reaper.stop();
      reapDirSync(dir);
      removeDir(dir);
    },
    graceful: stop,
  });

  try {
    const started = Date.now();
    const pki = await generatePki(dir);
    const netns = options.netns?.path;
    const [apiPort, controllerManagerPort, schedulerPort, etcdClientPort, etcdPeerPort] = await freePorts(5);
    if (options.netns) {
      const forwards = join(dir, 'forward');
      await mkdir(forwards, { recursive: true });
      for (const [name, port] of Object.entries({
        'kube-apiserver': apiPort,
        'kube-controller-manager': controllerManagerPort,
        'kube-scheduler': schedulerPort,
        etcd: etcdClientPort,
      })) {
        forwardPort(options.netns.path, forwards, { name, localPort: port }, track);
      }
    }
    const etcd = await startEtcdServer(dir, log, track, {
      clientPort: etcdClientPort,
      peerPort: etcdPeerPort,
      netns,
    });
    const server = `https://127.0.0.1:${apiPort}`;
    const audit = options.auditUsers
      ? { policyFile: join(dir, 'audit-policy.json'), logPath: join(dir, 'audit.log') }
      : undefined;
    if (audit && options.auditUsers) await writeFile(audit.policyFile, auditPolicy(options.auditUsers));
    const adminTls = { ca: pki.caCert, cert: pki.adminCert, key: pki.adminKey };
    const startApiServer = async () => {
      const started = track(
        startProcess({
          name: 'kube-apiserver',
          command: kubernetesBinary('kube-apiserver'),
          args: apiServerFlags({
            dir,
            pki,
            etcdURL: etcd.clientURL,
            port: apiPort,
            nodeFacingAddress: options.netns?.address,
            ...(audit ? { audit } : {}),
          }),
          logPath: join(dir, 'kube-apiserver.log'),
          netns,
        }),
      );
      await waitFor(async () => (await httpGet(`${server}/readyz`, adminTls)).status === 200, {
        what: `kube-apiserver ${server}/readyz`,
        timeoutMs: phaseTimeoutMs,
        abortIf: started.exitStatus,
      });
      return started;
    };
    await startApiServer();
    restartApiServer = async () => {
      const current = processes.filter((p) => p.name === 'kube-apiserver');
      await Promise.all(current.map((p) => p.stop()));
      processes.splice(0, processes.length, ...processes.filter((p) => !current.includes(p)));
      await startApiServer();
      log.info({ server }, 'Restarted kube-apiserver');
    };
    const kubeconfigPath = join(dir, 'kubeconfig');
    const kubeConfig = await writeKubeconfig({
      path: kubeconfigPath,
      server,
      caCert: pki.caCert,
      clientCert: pki.adminCert,
      clientKey: pki.adminKey,
    });
    const controllers = [
      track(
        startProcess({
          name: 'kube-controller-manager',
          command: kubernetesBinary('kube-controller-manager'),
          args: controllerManagerFlags({
            dir,
            pki,
            kubeconfig: kubeconfigPath,
            port: controllerManagerPort,
            nodes: netns !== undefined,
          }),
          logPath: join(dir, 'kube-controller-manager.log'),
          netns,
        }),
      ),
      track(
        startProcess({
          name: 'kube-scheduler',
          command: kubernetesBinary('kube-scheduler'),
          args: schedulerFlags({ dir, kubeconfig: kubeconfigPath, port: schedulerPort }),
          logPath: join(dir, 'kube-scheduler.log'),
          netns,
        }),
      ),
    ];
    await Promise.all(
      controllers.map((component, i) =>
        waitFor(
          async () =>
            (await httpGet(`https://127.0.0.1:${[controllerManagerPort, schedulerPort][i]}/healthz`))
              .status === 200,
          {
            what: `${component.name} /healthz`,
            timeoutMs: phaseTimeoutMs,
            abortIf: component.exitStatus,
          },
        ),
      ),
    );
    if (options.waitForControllers ?? true) await waitForDefaultNamespaceReady(kubeConfig, controllers[0]!);
    await allowIssuerDiscovery(kubeConfig);
    log.info({ server, kubeconfigPath, dir, ms: Date.now() - started }, 'Started control plane');
    return {
      dir,
      kubeconfigPath,
      kubeConfig,
      server,
      issuerDiscoveryUrl: issuerEndpoints(apiPort, options.netns?.address).discoveryUrl,
      ...(audit ? { auditLogPath: audit.logPath } : {}),
      pki,
      processes,
      adopt: track,
      restartApiServer: () => restartApiServer(),
      stop,
    };
  } catch (error) {
    const tails = processes
      .map(
        (p) =>
          `--- ${p.name} (${p.exitStatus() ?? 'running'}), last lines of ${p.logPath}:\n${p.logTail(25)}`,
      )
      .join('\n');
    await stop();
    throw new Error(`control plane failed to start: ${(error as Error).message}\n${tails}`, { cause: error });
  }
}

/** Namespace `default` can take Pods once it has its ServiceAccount and root CA ConfigMap. */
async function waitForDefaultNamespaceReady(
  kubeConfig: KubeConfig,
  controllerManager: ManagedProcess,
): Promise<void> {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  await waitFor(
    async () => {
      await core.readNamespacedServiceAccount({ name: 'default', namespace: 'default' });
      await core.readNamespacedConfigMap({ name: 'kube-root-ca.crt', namespace: 'default' });
      return true;
    },
    {
      what: 'ServiceAccount default and ConfigMap kube-root-ca.crt in namespace default',
      timeoutMs: phaseTimeoutMs,
      abortIf: controllerManager.exitStatus,
    },
  );
}

/**
 * The issuer's discovery document and keys readable anonymously, as cloud providers publish them: what lets an
 * OpenID relying party (MinIO's STS) check ServiceAccount tokens (docs/design/workload-identity.md).
 */
async function allowIssuerDiscovery(kubeConfig: KubeConfig): Promise<void> {
  await kubeConfig.makeApiClient(RbacAuthorizationV1Api).createClusterRoleBinding({
    body: {
      metadata: { name: 'service-account-issuer-discovery-public' },
      roleRef: {
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'ClusterRole',
        name: 'system:service-account-issuer-discovery',
      },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:unauthenticated' }],
    },
  });
}
