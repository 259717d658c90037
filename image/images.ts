// Every image the product and its tests run, built here from Debian packages, the npm registry and Go-built
// binaries, never pulled: our product image (the one recipe users run too), etcd's images under the names the
// product references, the sandbox (pause) image and the test environment's busybox, Prometheus and
// kube-state-metrics.
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
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
import {
  KUBE_STATE_METRICS_BINARY,
  KUBE_STATE_METRICS_PORT,
  kubeStateMetricsImage,
  PROMETHEUS_BINARY,
  PROMETHEUS_PORT,
  prometheusImage,
} from '../test/env/prometheus/image.js';
import { blobDir, imagesDir } from './cache.js';
import { debianBaseLayer } from './debian-base.js';
import type { Layer } from './layer.js';
import { type ImageSpec, type PlatformImage, writeImageArchive } from './oci-archive.js';
import {
  busyboxLayer,
  codeLayer,
  dependenciesLayer,
  etcdLayer,
  kubeStateMetricsLayer,
  nodeLayer,
  pauseLayer,
  prometheusLayer,
  restoreToolsLayer,
} from './parts.js';

/** The platforms of our product image (an OCI image index); the other images are built for this machine's only. */
export const PRODUCT_ARCHITECTURES = ['amd64', 'arm64'] as const;

/** The sandbox image every node's containerd uses. */
export const pauseImage = 'registry.k8s.io/pause:3.10';

export interface ImageDefinition {
  /** The archive's file name in the output directory. */
  file: string;
  spec(tags?: string[]): Promise<ImageSpec>;
}

const etcdImage = (version: string): ImageDefinition => ({
  file: `etcd-${version}.tar`,
  async spec(tags = [defaultEtcdImage(version)]) {
    return {
      tags,
      layers: [await debianBaseLayer(), await etcdLayer(version)],
      config: {
        cmd: [ETCD_BINARY],
        env: ['PATH=/usr/local/bin:/usr/bin:/bin'],
        workingDir: DATA_MOUNT_PATH,
        exposedPorts: [`${CLIENT_PORT}/tcp`, `${PEER_PORT}/tcp`],
      },
    };
  },
});

/** A test server that is one static Go binary on the Debian base, run as `nobody`. */
const goServerImage = (
  name: string,
  tag: string,
  layer: () => Promise<Layer>,
  binary: string,
  port: number,
): ImageDefinition => ({
  file: `${name}.tar`,
  async spec(tags = [tag]) {
    return {
      tags,
      layers: [await debianBaseLayer(), await layer()],
      config: {
        user: '65534:65534',
        entrypoint: [binary],
        env: ['PATH=/bin:/usr/bin'],
        exposedPorts: [`${port}/tcp`],
      },
    };
  },
});

export const images: Record<string, ImageDefinition> = {
  product: {
    file: 'etcd-gitops.tar',
    async spec(tags = [DEFAULT_OPERATOR_IMAGE]) {
      // The platform-independent layers (JavaScript: no native addon, dependenciesLayer checks) are shared.
      const dependencies = await dependenciesLayer();
      const code = await codeLayer(OPERATOR_ENTRYPOINT);
      const platforms: PlatformImage[] = [];
      for (const architecture of PRODUCT_ARCHITECTURES) {
        platforms.push({
          architecture,
          layers: [
            await debianBaseLayer(architecture),
            await nodeLayer(architecture),
            await restoreToolsLayer(architecture),
            dependencies,
            code,
          ],
        });
      }
      return {
        tags,
        platforms,
        config: {
          user: '65532:65532',
          entrypoint: [OPERATOR_ENTRYPOINT],
          // The operator Deployment's own arguments, so `docker run <image>` starts the controller the same way.
          cmd: operatorControllerArgs(),
          env: ['PATH=/nodejs/bin:/usr/local/bin:/usr/bin:/bin', 'NODE_ENV=production'],
          workingDir: '/app',
          exposedPorts: [`${METRICS_PORT}/tcp`, `${HEALTH_PORT}/tcp`],
          labels: {
            'org.opencontainers.image.title': 'etcd-gitops',
            'org.opencontainers.image.version': PACKAGE_VERSION,
            'org.opencontainers.image.licenses': 'Apache-2.0',
            'org.opencontainers.image.source': 'https://github.com/etcd-gitops/etcd-gitops',
          },
        },
      };
    },
  },
  'etcd-3.4': etcdImage(etcdVersions['3.4']),
  'etcd-3.5': etcdImage(etcdVersions['3.5']),
  'etcd-3.6': etcdImage(etcdVersions['3.6']),
  pause: {
    file: 'pause.tar',
    async spec(tags = [pauseImage]) {
      return { tags, layers: [await pauseLayer()], config: { entrypoint: ['/pause'], user: '65535:65535' } };
    },
  },
  busybox: {
    file: 'busybox.tar',
    async spec(tags = [testImage]) {
      return { tags, layers: [await busyboxLayer()], config: { cmd: ['sh'], env: ['PATH=/bin'] } };
    },
  },
  prometheus: goServerImage(
    'prometheus',
    prometheusImage,
    prometheusLayer,
    PROMETHEUS_BINARY,
    PROMETHEUS_PORT,
  ),
  'kube-state-metrics': goServerImage(
    'kube-state-metrics',
    kubeStateMetricsImage,
    kubeStateMetricsLayer,
    KUBE_STATE_METRICS_BINARY,
    KUBE_STATE_METRICS_PORT,
  ),
};

export interface BuiltImage {
  name: string;
  tags: string[];
  archive: string;
  digest: string;
  bytes: number;
  ms: number;
}

/** Builds the named images (`all` for every one) into `outDir`; cached parts make an unchanged rebuild quick. */
export async function buildImages(
  which: string[],
  options: { outDir?: string; tags?: string[] } = {},
): Promise<BuiltImage[]> {
  const names = which.includes('all') ? Object.keys(images) : which;
  const outDir = options.outDir ?? imagesDir;
  const built: BuiltImage[] = [];
  for (const name of names) {
    const definition = images[name];
    if (!definition) throw new Error(`no image ${name}; images: ${Object.keys(images).join(', ')}, all`);
    const started = Date.now();
    const spec = await definition.spec(options.tags);
    const archive = join(outDir, definition.file);
    const digest = await writeImageArchive(spec, blobDir, archive);
    built.push({
      name,
      tags: spec.tags,
      archive,
      digest,
      bytes: (await stat(archive)).size,
      ms: Date.now() - started,
    });
  }
  return built;
}
