// One node's kubelet of the pinned Kubernetes, inside the node's network namespace: its own root, certificates,
// Pod log directory, cgroup root and containerd. Identity `system:node:<name>` (Node authorizer); the API server
// reaches its port 10250 with its kubelet client certificate, so `kubectl logs/exec/port-forward` work.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { kubernetesBinary } from '../binaries.js';
import { issueCertificate, type Pki } from '../certs.js';
import { writeKubeconfig } from '../kubeconfig.js';
import { type ManagedProcess, startProcess } from '../process-group.js';
import { waitFor } from '../wait.js';
import {
  acquireFileLock,
  deviceRegistrationSocket,
  kubeletStartLockPath,
  socketReplaced,
  statOrUndefined,
} from './kubelet-start-lock.js';
import { clusterDNS, clusterDomain, type NodeLayout } from './layout.js';

export interface KubeletPaths {
  readonly root: string;
  /** Configuration, kubeconfig and certificates. */
  readonly files: string;
  readonly config: string;
  readonly kubeconfig: string;
  readonly podLogs: string;
  readonly servingCert: string;
  readonly servingKey: string;
}

export function kubeletPaths(node: NodeLayout): KubeletPaths {
  // The root holds the kubelet's pod-resources socket: kept short, its own files beside it.
  const dir = join(node.dir, 'kubelet-files');
  return {
    root: join(node.dir, 'kubelet'),
    files: dir,
    config: join(dir, 'config.json'),
    kubeconfig: join(dir, 'kubeconfig'),
    podLogs: join(dir, 'pod-logs'),
    servingCert: join(dir, 'serving.crt'),
    servingKey: join(dir, 'serving.key'),
  };
}

/** The KubeletConfiguration of one node (JSON is valid YAML). */
export function kubeletConfig(
  node: NodeLayout,
  paths: KubeletPaths,
  input: { caCert: string; containerdSocket: string },
): object {
  return {
    apiVersion: 'kubelet.config.k8s.io/v1beta1',
    kind: 'KubeletConfiguration',
    address: node.ip,
    port: 10250,
    readOnlyPort: 0,
    healthzBindAddress: '127.0.0.1',
    healthzPort: 10248,
    tlsCertFile: paths.servingCert,
    tlsPrivateKeyFile: paths.servingKey,
    authentication: {
      anonymous: { enabled: false },
      webhook: { enabled: false },
      x509: { clientCAFile: input.caCert },
    },
    // Only the API server holds a client certificate of this CA besides the admin.
    authorization: { mode: 'AlwaysAllow' },
    containerRuntimeEndpoint: `unix://${input.containerdSocket}`,
    cgroupDriver: 'cgroupfs',
    cgroupRoot: node.cgroupRoot,
    cgroupsPerQOS: true,
    enforceNodeAllocatable: ['pods'],
    failCgroupV1: false,
    failSwapOn: false,
    clusterDNS: [clusterDNS],
    clusterDomain,
    // No host resolver: a name CoreDNS does not know fails instead of leaving the machine.
    resolvConf: '',
    podLogsDir: paths.podLogs,
    // Nothing can be pulled again, so never collect an image.
    imageGCHighThresholdPercent: 100,
    imageGCLowThresholdPercent: 99,
    serializeImagePulls: false,
    evictionHard: { 'memory.available': '100Mi', 'nodefs.available': '1%', 'imagefs.available': '1%' },
    // kernel.panic & co. are machine-wide; the environment restores them (see sysctls.ts).
    protectKernelDefaults: false,
    // A dead node should be noticed within seconds in tests (the node-lifecycle controller's grace period
    // is the control plane's --node-monitor-grace-period).
    nodeStatusUpdateFrequency: '4s',
    nodeLeaseDurationSeconds: 16,
    nodeStatusReportFrequency: '10s',
    syncFrequency: '10s',
    fileCheckFrequency: '20s',
    maxPods: 110,
    // Tests kill containers on purpose: restart them within 4 s, not after the default 10 s doubling to 5 min.
    featureGates: { KubeletCrashLoopBackOffMax: true },
    crashLoopBackOff: { maxContainerRestartPeriod: '4s' },
    registerNode: true,
    shutdownGracePeriod: '0s',
  };
}

export async function startKubelet(
  node: NodeLayout,
  input: { pki: Pki; server: string; containerdSocket: string },
  track: (p: ManagedProcess) => ManagedProcess,
): Promise<ManagedProcess> {
  const paths = kubeletPaths(node);
  await Promise.all([paths.root, paths.podLogs].map((dir) => mkdir(dir, { recursive: true, mode: 0o750 })));
  const clientCert = join(paths.files, 'client.crt');
  const clientKey = join(paths.files, 'client.key');
  await Promise.all([
    issueCertificate(input.pki, {
      subject: `/O=system:nodes/CN=system:node:${node.name}`,
      usage: 'client',
      cert: clientCert,
      key: clientKey,
    }),
    issueCertificate(input.pki, {
      subject: `/CN=${node.name}`,
      usage: 'serving',
      altNames: [`IP:${node.ip}`, `DNS:${node.name}`],
      cert: paths.servingCert,
      key: paths.servingKey,
    }),
  ]);
  await writeKubeconfig({
    path: paths.kubeconfig,
    server: input.server,
    caCert: input.pki.caCert,
    clientCert,
    clientKey,
    name: node.name,
  });
  await writeFile(
    paths.config,
    JSON.stringify(
      kubeletConfig(node, paths, { caCert: input.pki.caCert, containerdSocket: input.containerdSocket }),
      null,
      2,
    ),
  );
  // One kubelet of this machine starts at a time, until it has bound the device-plugin socket (kubelet-start-lock.ts).
  const lock = await acquireFileLock(kubeletStartLockPath);
  try {
    const before = statOrUndefined(deviceRegistrationSocket);
    const kubelet = track(startKubeletProcess(node, paths));
    await waitFor(
      () =>
        kubelet.exitStatus() !== undefined ||
        socketReplaced(before, statOrUndefined(deviceRegistrationSocket)),
      { what: `kubelet-${node.name} to bind ${deviceRegistrationSocket}`, timeoutMs: 120_000 },
    );
    return kubelet;
  } finally {
    await lock.release();
  }
}

function startKubeletProcess(node: NodeLayout, paths: KubeletPaths): ManagedProcess {
  return startProcess({
    name: `kubelet-${node.name}`,
    command: kubernetesBinary('kubelet'),
    args: [
      `--config=${paths.config}`,
      `--kubeconfig=${paths.kubeconfig}`,
      `--root-dir=${paths.root}`,
      `--cert-dir=${join(paths.files, 'pki')}`,
      `--hostname-override=${node.name}`,
      `--node-ip=${node.ip}`,
      '--v=1',
    ],
    logPath: join(node.dir, 'kubelet.log'),
    netns: node.netnsPath,
  });
}
