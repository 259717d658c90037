// Every image the product and its tests run, built here, never pulled: our product image (the one recipe users
// run too), etcd's images under the names the product references, the sandbox (pause) image and the test
// environment's busybox. Names, paths, ports and the default command come from constructs/conventions, stated
// once there.
import { dirname } from 'node:path';
import { operatorControllerArgs } from '../constructs/conventions/cli/controller.js';
import {
  DATA_MOUNT_PATH,
  DEFAULT_OPERATOR_IMAGE,
  defaultEtcdImage,
  ETCD_BINARY,
  OPERATOR_ENTRYPOINT,
  PACKAGE_VERSION,
} from '../constructs/conventions/images.js';
import { CLIENT_PORT, HEALTH_PORT, METRICS_PORT, PEER_PORT } from '../constructs/conventions/ports.js';
import { etcdVersions } from '../test/env/binaries.js';
import { testImage } from '../test/env/nodes/test-image.js';
import { APP_DIR, codeLayer, dependenciesLayer } from './app-layers.js';
import { busyboxLayer } from './busybox-layer.js';
import { debianBaseLayer, NONROOT } from './debian-base.js';
import { etcdLayer, restoreToolsLayer } from './etcd-layers.js';
import type { Layer } from './layer.js';
import { NODE_BINARY, nodeLayer } from './node-layer.js';
import type { ImageConfig } from './oci-documents.js';
import { PAUSE_BINARY, pauseLayer } from './pause-layer.js';

/** The sandbox image every node's containerd uses (its `sandbox_image`). */
export const pauseImage = 'registry.k8s.io/pause:3.10';

/** The user of the pause image, as upstream's. */
const PAUSE_USER = '65535:65535';

export interface ImageDefinition {
  /** The archive's file name in the output directory. */
  file: string;
  /** The references the archive carries unless `--tag` names others. */
  tags: string[];
  config: ImageConfig;
  /** Builds (or takes from the cache) the layers, bottom first. */
  layers(): Promise<Layer[]>;
}

/** Our image: the controller, `backup` and `restore` commands, as the operator Deployment runs it. */
export function productConfig(): ImageConfig {
  return {
    user: `${NONROOT.uid}:${NONROOT.gid}`,
    entrypoint: [OPERATOR_ENTRYPOINT],
    // The operator Deployment's own arguments, so `docker run <image>` starts the controller the same way.
    cmd: operatorControllerArgs(),
    env: [`PATH=${dirname(NODE_BINARY)}:/usr/local/bin:/usr/bin:/bin`, 'NODE_ENV=production'],
    workingDir: APP_DIR,
    exposedPorts: [`${METRICS_PORT}/tcp`, `${HEALTH_PORT}/tcp`],
    labels: {
      'org.opencontainers.image.title': 'etcd-gitops',
      'org.opencontainers.image.version': PACKAGE_VERSION,
      'org.opencontainers.image.licenses': 'Apache-2.0',
      'org.opencontainers.image.source': 'https://github.com/etcd-gitops/etcd-gitops',
    },
  };
}

/** etcd's released images' config: no entrypoint, `etcd` as the command, `/var/lib/etcd` to work in. */
export function etcdConfig(): ImageConfig {
  return {
    cmd: [ETCD_BINARY],
    env: ['PATH=/usr/local/bin:/usr/bin:/bin'],
    workingDir: DATA_MOUNT_PATH,
    exposedPorts: [`${CLIENT_PORT}/tcp`, `${PEER_PORT}/tcp`],
  };
}

const etcdImage = (version: string): ImageDefinition => ({
  file: `etcd-${version}.tar`,
  tags: [defaultEtcdImage(version)],
  config: etcdConfig(),
  layers: async () => [await debianBaseLayer(), await etcdLayer(version)],
});

export const images = {
  product: {
    file: 'etcd-gitops.tar',
    tags: [DEFAULT_OPERATOR_IMAGE],
    config: productConfig(),
    layers: async () => [
      await debianBaseLayer(),
      await nodeLayer(),
      await restoreToolsLayer(),
      await dependenciesLayer(),
      await codeLayer(OPERATOR_ENTRYPOINT),
    ],
  },
  'etcd-3.4': etcdImage(etcdVersions['3.4']),
  'etcd-3.5': etcdImage(etcdVersions['3.5']),
  'etcd-3.6': etcdImage(etcdVersions['3.6']),
  pause: {
    file: 'pause.tar',
    tags: [pauseImage],
    config: { entrypoint: [PAUSE_BINARY], user: PAUSE_USER },
    layers: async () => [await pauseLayer()],
  },
  busybox: {
    file: 'busybox.tar',
    tags: [testImage],
    config: { cmd: ['sh'], env: ['PATH=/bin'] },
    layers: async () => [await busyboxLayer()],
  },
} satisfies Record<string, ImageDefinition>;

export type ImageName = keyof typeof images;

/** Names that stand for several images. */
export const imageGroups: Record<string, ImageName[]> = {
  etcd: ['etcd-3.4', 'etcd-3.5', 'etcd-3.6'],
  all: Object.keys(images) as ImageName[],
};

/** The images `which` names (image or group names), each once, in the order given. */
export function resolveImageNames(which: string[]): ImageName[] {
  if (which.length === 0) throw new Error(`name an image to build: ${imageChoices()}`);
  const names = which.flatMap((name) => {
    if (name in images) return [name as ImageName];
    const group = imageGroups[name];
    if (!group) throw new Error(`no image '${name}': choose from ${imageChoices()}`);
    return group;
  });
  return [...new Set(names)];
}

export function imageChoices(): string {
  return [...Object.keys(images), ...Object.keys(imageGroups)].join(', ');
}
