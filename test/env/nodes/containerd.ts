// One node's containerd (2.x, built from the Go module proxy): its own root, state, sockets, runc root, CNI
// configuration, IPAM directory and registry hosts directory, so nodes on one machine share nothing. It runs inside
// the node's network namespace, whose only way out is the environment's bridge: every image pull goes to the
// environment's registry (../registry.ts), named as the mirror of every registry host (`_default` in hosts.toml, as
// users of a pull-through mirror configure it); an upstream such as ghcr.io is never reached.
import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { containerdBinary } from '../binaries.js';
import { type ManagedProcess, startProcess } from '../process-group.js';
import { waitFor } from '../wait.js';
import { criAnswers } from './cri.js';
import type { NodeLayout } from './layout.js';

const run = promisify(execFile);

/** Debian's runc and CNI plugins. */
export const runcBinary = '/usr/sbin/runc';
export const cniBinDir = '/usr/lib/cni';

export interface ContainerdPaths {
  readonly root: string;
  readonly state: string;
  readonly socket: string;
  readonly config: string;
  readonly cniConfDir: string;
  readonly cniDataDir: string;
  readonly runcRoot: string;
  /** containerd's registry hosts directory (`config_path`): `<host>/hosts.toml`. */
  readonly hostsDir: string;
}

export function containerdPaths(node: NodeLayout): ContainerdPaths {
  const dir = join(node.dir, 'containerd');
  return {
    root: join(dir, 'root'),
    state: join(dir, 'state'),
    // Beside the directory, not in it: Unix socket paths have at most 107 bytes.
    socket: join(node.dir, 'containerd.sock'),
    config: join(dir, 'config.toml'),
    cniConfDir: join(dir, 'cni', 'net.d'),
    cniDataDir: join(dir, 'cni', 'ipam'),
    runcRoot: join(dir, 'runc'),
    hostsDir: join(dir, 'certs.d'),
  };
}

/** containerd's configuration (version 3) for one node, as TOML text. */
export function containerdConfig(paths: ContainerdPaths, node: NodeLayout, sandboxImage: string): string {
  const q = (value: string) => `'${value}'`;
  return `version = 3
root = ${q(paths.root)}
state = ${q(paths.state)}
# NRI's socket path is machine-wide, and nothing here uses it.
disabled_plugins = ['io.containerd.nri.v1.nri']

[plugins.'io.containerd.server.v1.grpc']
  address = ${q(paths.socket)}
[plugins.'io.containerd.server.v1.ttrpc']
  address = ${q(`${paths.socket}.ttrpc`)}
[plugins.'io.containerd.internal.v1.opt']
  path = ${q(join(node.dir, 'containerd', 'opt'))}

[plugins.'io.containerd.cri.v1.images']
  snapshotter = 'overlayfs'
  [plugins.'io.containerd.cri.v1.images'.pinned_images]
    sandbox = ${q(sandboxImage)}
  [plugins.'io.containerd.cri.v1.images'.registry]
    config_path = ${q(paths.hostsDir)}

[plugins.'io.containerd.cri.v1.runtime']
  # Root here may lack CAP_SYS_RESOURCE: without this, runc fails every sandbox setting the pause
  # container's oom_score_adj ("can't get final child's PID from pipe: EOF").
  restrict_oom_score_adj = true
  disable_apparmor = true
  # Pod network namespaces under this node's state directory, not the machine's /run/netns.
  netns_mounts_under_state_dir = true
  cdi_spec_dirs = []
  [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc]
    runtime_type = 'io.containerd.runc.v2'
    [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc.options]
      BinaryName = ${q(runcBinary)}
      Root = ${q(paths.runcRoot)}
      SystemdCgroup = false
  [plugins.'io.containerd.cri.v1.runtime'.cni]
    bin_dirs = [${q(cniBinDir)}]
    conf_dir = ${q(paths.cniConfDir)}
    max_conf_num = 1
    use_internal_loopback = true

[plugins.'io.containerd.grpc.v1.cri']
  stream_server_address = '127.0.0.1'
  stream_server_port = '0'
`;
}

/**
 * hosts.toml of the `_default` host namespace: every registry host (ghcr.io, gcr.io, registry.k8s.io, ...) is pulled
 * through `mirror`, over plain HTTP, for pull and resolve; its own server stays the fallback, never reached here.
 */
export function mirrorHostsToml(mirror: string): string {
  return `[host.'${mirror}']
  capabilities = ['pull', 'resolve']
`;
}

/** The node's Pod network: a bridge with the node's Pod subnet, IPAM state in the node's own directory. */
export function cniConfig(paths: ContainerdPaths, node: NodeLayout): object {
  return {
    cniVersion: '1.0.0',
    name: 'etcd-gitops-pods',
    plugins: [
      {
        type: 'bridge',
        bridge: 'cni0',
        isGateway: true,
        ipMasq: false,
        hairpinMode: true,
        ipam: {
          type: 'host-local',
          dataDir: paths.cniDataDir,
          ranges: [[{ subnet: node.podCidr, gateway: node.podGateway }]],
          routes: [{ dst: '0.0.0.0/0' }],
        },
      },
      { type: 'portmap', capabilities: { portMappings: true } },
    ],
  };
}

export interface Containerd {
  readonly process: ManagedProcess;
  readonly paths: ContainerdPaths;
  /** Runs `ctr` against this containerd in namespace k8s.io. */
  ctr(args: string[]): Promise<string>;
}

export async function startContainerd(
  node: NodeLayout,
  images: { sandboxImage: string; mirror: string },
  track: (p: ManagedProcess) => ManagedProcess,
): Promise<Containerd> {
  const paths = containerdPaths(node);
  const defaultHost = join(paths.hostsDir, '_default');
  await Promise.all(
    [paths.root, paths.state, paths.cniConfDir, paths.cniDataDir, paths.runcRoot, defaultHost].map((dir) =>
      mkdir(dir, { recursive: true, mode: 0o711 }),
    ),
  );
  await writeFile(paths.config, containerdConfig(paths, node, images.sandboxImage));
  await writeFile(join(defaultHost, 'hosts.toml'), mirrorHostsToml(images.mirror));
  await writeFile(
    join(paths.cniConfDir, '10-pods.conflist'),
    `${JSON.stringify(cniConfig(paths, node), null, 2)}\n`,
  );
  const bin = containerdBinary('containerd');
  const process = track(
    startProcess({
      name: `containerd-${node.name}`,
      command: bin,
      args: ['--config', paths.config, '--log-level', 'warn'],
      logPath: join(node.dir, 'containerd.log'),
      netns: node.netnsPath,
      // The runc shim is found on PATH, next to containerd.
      env: { PATH: `${join(bin, '..')}:/usr/sbin:/usr/bin:/sbin:/bin` },
    }),
  );
  const ctr = async (args: string[]) => {
    const { stdout } = await run(
      containerdBinary('ctr'),
      ['--address', paths.socket, '-n', 'k8s.io', ...args],
      {
        maxBuffer: 64 * 1024 * 1024,
      },
    );
    return stdout;
  };
  await waitFor(async () => (await ctr(['version'])).includes('Server:'), {
    what: `containerd of ${node.name} at ${paths.socket}`,
    timeoutMs: 30_000,
    abortIf: process.exitStatus,
  });
  // Its CRI too (cri.ts): after a restart the plugin restores its state after containerd already answers.
  await waitFor(() => criAnswers(paths.socket), {
    what: `the CRI of containerd of ${node.name} at ${paths.socket}`,
    timeoutMs: 60_000,
    abortIf: process.exitStatus,
  });
  return { process, paths, ctr };
}
