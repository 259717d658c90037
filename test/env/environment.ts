// The whole local Kubernetes for one test file (or one `npm run env:up`): control plane, optionally real nodes
// (nodes/), optionally MinIO.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { imagesDir } from '../../image/cache.js';
import { pauseImage } from '../../image/images.js';
import { type ApplyDistOptions, applyDist } from './apply-dist.js';
import { reapDirSync } from './cleanup.js';
import { type ControlPlane, startControlPlane } from './control-plane.js';
import {
  CONTROLLER_USERNAME,
  type ControllerIdentity,
  type ControllerIdentityOptions,
  createControllerIdentity,
} from './controller-identity.js';
import type { Manifest } from './dist-manifests.js';
import { type KubectlOptions, type KubectlResult, kubectl } from './kubectl.js';
import { defaultLogger, type Logger } from './log.js';
import { type Minio, startMinio } from './minio.js';
import { createNamespace } from './namespaces.js';
import { type NodeFaults, nodeFaults } from './nodes/faults.js';
import { forwardPort, forwardSocketPath } from './nodes/forward.js';
import { type RealNodes, startRealNodes } from './nodes/index.js';
import { checkSocketRoom, environmentNetnsPath, nodeNetwork } from './nodes/layout.js';
import { type Registry, startRegistry } from './registry.js';

export { outsideClusterCidr } from './nodes/layout.js';

import { createEnvironmentNetwork } from './nodes/network.js';
import { freePorts } from './ports.js';
import { waitFor } from './wait.js';

const needsNodes = (what: string) => () =>
  Promise.reject(new Error(`faults.${what} needs an environment with nodes`));
const withoutNodes: NodeFaults = {
  stopNode: needsNodes('stopNode'),
  restartNode: needsNodes('restartNode'),
  setNodeNetwork: needsNodes('setNodeNetwork'),
  killContainer: needsNodes('killContainer'),
  wipeVolume: needsNodes('wipeVolume'),
};

export interface EnvironmentOptions {
  /**
   * Real nodes (kubelet + containerd + kube-proxy each, see nodes/): the control plane, CoreDNS and MinIO then run
   * in the environment's own network namespace, reached through loopback ports forwarded into it.
   * @default 0: no nodes
   */
  nodes?: number;
  /** The image archives whose every name and digest the registry store must serve. @default the image builder's output, `<cache>/images` */
  imagesDir?: string;
  /**
   * Start MinIO; with `webIdentityAudience` it also accepts ServiceAccount tokens of that audience as web identities
   * (`minio.roleArn`), and then starts after the API server, whose issuer documents it reads at start.
   * @default false
   */
  minio?: boolean | { readonly webIdentityAudience: string };
  /** State directory, removed by `stop()`. @default a new directory under os.tmpdir() */
  dir?: string;
  /** @default pino on stderr at $ENV_LOG_LEVEL or `warn` */
  log?: Logger;
  /**
   * The controller's identity (controller-identity.ts): dist/'s RBAC by default, or the namespace-scoped RBAC of
   * `watchNamespaces` (which the environment then creates).
   * @default - dist/'s
   */
  controller?: ControllerIdentityOptions;
  /**
   * Keep an audit log of the controller identity's requests (`controlPlane.auditLogPath`): what the scale bench
   * counts at rest. @default false
   */
  auditController?: boolean;
}

export interface Environment {
  readonly controlPlane: ControlPlane;
  readonly kubeconfigPath: string;
  readonly kubeConfig: KubeConfig;
  readonly minio?: Minio;
  /** The registry the nodes pull every image from (registry.ts), when `nodes` was given. */
  readonly registry?: Registry;
  /**
   * The controller's ServiceAccount token, under the shipped RBAC: what every controller a test runs presents
   * (never the admin kubeconfig).
   */
  readonly controller: ControllerIdentity;
  /** The real nodes, CoreDNS and volume provisioner, when `nodes` was given. */
  readonly nodes?: RealNodes;
  /** Faults on the real nodes (throws without nodes); MinIO's are `minio.pause()/resume()/restart()`. */
  readonly faults: NodeFaults & { restartApiServer(): Promise<void> };
  /**
   * A loopback port on this machine forwarded to `host:port` inside the environment (a Pod IP or a Service's
   * cluster IP: the environment namespace runs a kube-proxy too). Closed by `stop()`. Throws without nodes.
   */
  forward(host: string, port: number): Promise<number>;
  /**
   * How to start a process inside the environment namespace (as if on a control-plane host): `startProcess`'s
   * `netns` and the environment variables that point its gRPC clients at the CONNECT proxy there. It reaches the
   * API server at the kubeconfig's address, MinIO at `minio.podEndpoint`, Pods and Services by IP, and etcd
   * members by cluster DNS name. Throws without nodes.
   */
  inside(): { netns: string; env: Record<string, string> };
  /** Runs the pinned kubectl against this environment; throws on a non-zero exit unless `allowFailure`. */
  kubectl(args: string[], options?: KubectlOptions): Promise<KubectlResult>;
  /** Applies dist/ wave by wave, server-side (see apply-dist.ts); returns the applied manifests. */
  applyDist(options?: ApplyDistOptions): Promise<Manifest[]>;
  /** Creates a labelled namespace and waits until Pods can be created in it. */
  createNamespace(name: string, labels?: Record<string, string>): Promise<void>;
  /** Stops nodes, MinIO and control plane, removes every directory; idempotent. */
  stop(): Promise<void>;
}

export async function startEnvironment(options: EnvironmentOptions = {}): Promise<Environment> {
  const log = options.log ?? defaultLogger();
  const nodeCount = options.nodes ?? 0;
  let netns: { path: string; address: string } | undefined;
  let dir = options.dir;
  if (nodeCount > 0) {
    dir ??= await mkdtemp(join(tmpdir(), 'etcd-gitops-env-'));
    checkSocketRoom(dir);
    await mkdir(dir, { recursive: true, mode: 0o755 });
    netns = { path: environmentNetnsPath(dir), address: nodeNetwork.gateway };
    try {
      await createEnvironmentNetwork(netns.path);
    } catch (error) {
      // Nothing else runs yet: unmount the namespace file and remove what was made.
      reapDirSync(dir);
      throw error;
    }
  }
  const startingControlPlane = startControlPlane({
    dir,
    log,
    netns,
    ...(options.auditController ? { auditUsers: [CONTROLLER_USERNAME] } : {}),
  });
  const audience = typeof options.minio === 'object' ? options.minio.webIdentityAudience : undefined;
  const [controlPlaneResult, minioResult] = await Promise.allSettled([
    startingControlPlane,
    !options.minio
      ? Promise.resolve(undefined)
      : audience === undefined
        ? startMinio({ log, netns })
        : startingControlPlane.then((cp) =>
            startMinio({
              log,
              netns,
              openId: { configUrl: cp.issuerDiscoveryUrl, caFile: cp.pki.caCert, clientId: audience },
            }),
          ),
  ]);
  if (controlPlaneResult.status === 'rejected' || minioResult.status === 'rejected') {
    if (controlPlaneResult.status === 'fulfilled') await controlPlaneResult.value.stop();
    if (minioResult.status === 'fulfilled') await minioResult.value?.stop();
    throw controlPlaneResult.status === 'rejected'
      ? controlPlaneResult.reason
      : (minioResult as PromiseRejectedResult).reason;
  }
  const controlPlane = controlPlaneResult.value;
  const minio = minioResult.value;
  let nodes: RealNodes | undefined;
  let registry: Registry | undefined;
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      if (nodes && process.env.grpc_proxy === nodes.connectProxy) {
        delete process.env.grpc_proxy;
        delete process.env.no_grpc_proxy;
      }
      await nodes?.stop();
      await Promise.all([minio?.stop(), registry?.stop(), controlPlane.stop()]);
    })();
    return stopping;
  };
  let controller: ControllerIdentity;
  try {
    controller = await createControllerIdentity(controlPlane, controlPlane.dir, options.controller);
    if (netns) {
      registry = await startRegistry({ netns, imagesDir: options.imagesDir ?? imagesDir, log });
      nodes = await startRealNodes({
        controlPlane,
        envNetns: netns.path,
        count: nodeCount,
        mirror: registry.mirror,
        sandboxImage: pauseImage,
        log,
      });
    }
    if (nodes) {
      // gRPC clients of this process (etcd3: a reconciler driven in-process, a test's writer) reach members by
      // their cluster DNS names and Pod IPs, as Pods do. One environment per test process.
      process.env.grpc_proxy = nodes.connectProxy;
      // This machine's loopback (forwards, MinIO's endpoint) is not the environment's.
      process.env.no_grpc_proxy = '127.0.0.1,localhost';
    }
  } catch (error) {
    await stop();
    throw error;
  }
  const { kubeconfigPath, kubeConfig } = controlPlane;
  return {
    controlPlane,
    kubeconfigPath,
    kubeConfig,
    minio,
    registry,
    controller,
    nodes,
    faults: {
      ...(nodes ? nodeFaults(kubeConfig, nodes, controlPlane, log) : withoutNodes),
      restartApiServer: () => controlPlane.restartApiServer(),
    },
    inside: () => {
      if (!netns || !nodes) throw new Error('inside() needs an environment with nodes');
      return { netns: netns.path, env: { grpc_proxy: nodes.connectProxyInside, no_grpc_proxy: '' } };
    },
    forward: async (host, port) => {
      if (!netns) throw new Error('forward() needs an environment with nodes');
      const [localPort] = await freePorts(1);
      const dir = join(controlPlane.dir, 'forward');
      await mkdir(dir, { recursive: true });
      const name = `to-${host}-${port}`;
      forwardPort(netns.path, dir, { name, localPort: localPort!, targetHost: host, targetPort: port }, (p) =>
        controlPlane.adopt(p),
      );
      // Each socat listens a moment after it starts: wait until the inner half's socket exists (before it, the
      // outer half accepts and drops a connection: "socket hang up") and the port accepts a connection.
      const socket = forwardSocketPath(dir, name);
      await waitFor(async () => existsSync(socket) && (await canConnect(localPort!)), {
        what: `the forward to ${host}:${port}`,
        timeoutMs: 10_000,
        intervalMs: 50,
      });
      return localPort!;
    },
    kubectl: (args, kubectlOptions) => kubectl(kubeconfigPath, args, kubectlOptions),
    applyDist: (applyOptions) => applyDist(kubeconfigPath, applyOptions),
    createNamespace: (name, labels) => createNamespace(kubeConfig, name, labels),
    stop,
  };
}

/**
 * Where a process a test starts runs: inside the environment namespace when it has nodes (`inside()`), else on this
 * machine (no Pod ever runs, and the API server is on loopback).
 */
export function processPlace(env: Environment): { netns?: string; env: Record<string, string> } {
  return env.nodes ? env.inside() : { env: {} };
}

/** Whether something accepts TCP connections on 127.0.0.1:`port` (the connection is closed at once). */
function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
