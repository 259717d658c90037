// The test runner starts a file only once the binaries it uses exist (scripts/run-tests.mjs): which lookups of
// binaries.ts a compiled file reaches, and which of them are still missing.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import * as binaries from '../../env/binaries.js';
import { lookupsNeededBy } from '../../env/pending-builds.js';

const temp = mkdtempSync(join(tmpdir(), 'egt-pending-'));
after(() => rmSync(temp, { recursive: true, force: true }));

/** Writes compiled-looking modules under `temp/<tree>`, as build/ holds them. */
function tree(name: string, files: Record<string, string>): string {
  for (const [path, text] of Object.entries(files)) {
    const file = join(temp, name, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
  return join(temp, name);
}

describe('which binaries a test file needs', () => {
  it('GIVEN a file importing two lookups and another export of binaries.js THEN it needs those two lookups', () => {
    const root = tree('direct', {
      'test/env/binaries.js': '',
      'test/e2e/a.test.js':
        "import { argocdBinary, repoRoot, kubernetesBinary as kube } from '../env/binaries.js';\n",
    });
    assert.deepEqual(lookupsNeededBy(join(root, 'test/e2e/a.test.js')), ['argocdBinary', 'kubernetesBinary']);
  });

  it('GIVEN lookups reached through a helper, a re-export, a dynamic import and an import cycle THEN it needs them all', () => {
    const root = tree('indirect', {
      'test/env/binaries.js': '',
      'test/env/helper.js':
        "import {\n  minioBinary,\n} from './binaries.js';\nimport './cycle.js';\nexport { fluxBinary } from './binaries.js';\n",
      'test/env/cycle.js': "import './helper.js';\nconst m = await import('./late.js');\n",
      'test/env/late.js': "import { promtoolBinary } from './binaries.js';\n",
      'test/e2e/b.test.js': "import { x } from '../env/helper.js';\nimport { describe } from 'node:test';\n",
    });
    assert.deepEqual(lookupsNeededBy(join(root, 'test/e2e/b.test.js')), [
      'fluxBinary',
      'minioBinary',
      'promtoolBinary',
    ]);
  });

  it('GIVEN a script the file starts, named by a URL relative to it THEN it needs what the script imports', () => {
    const root = tree('script', {
      'test/env/binaries.js': '',
      'test/env/cli.js': "import { containerdBinary } from './binaries.js';\n",
      'test/e2e/d.test.js':
        "const cli = fileURLToPath(new URL('../env/cli.js', import.meta.url));\nspawn(process.execPath, [cli]);\n",
    });
    assert.deepEqual(lookupsNeededBy(join(root, 'test/e2e/d.test.js')), ['containerdBinary']);
  });

  it('GIVEN the integration and e2e sources THEN none names a compiled script by a path the reading cannot follow', () => {
    // A script started as a process is named by `new URL('<relative>.js', import.meta.url)`: `join(repoRoot,
    // 'build', ...)` hid cluster-soak's soak (and its binaries) from the reading, and it started before them.
    for (const layer of ['integration', 'e2e']) {
      const dir = join(binaries.repoRoot, 'test', layer);
      for (const file of readdirSync(dir, { recursive: true }) as string[]) {
        if (!file.endsWith('.ts')) continue;
        assert.doesNotMatch(
          readFileSync(join(dir, file), 'utf8'),
          /['"]build['"]\s*,\s*['"]test['"]/,
          `${layer}/${file}`,
        );
      }
    }
  });

  it('GIVEN a namespace import of binaries.js THEN it needs every lookup', () => {
    const root = tree('namespace', {
      'test/env/binaries.js': '',
      'test/unit/c.test.js': "import * as binaries from '../env/binaries.js';\n",
    });
    assert.deepEqual(
      lookupsNeededBy(join(root, 'test/unit/c.test.js')),
      Object.keys(binaries.lookups).sort(),
    );
  });

  it('GIVEN this repository’s compiled tests THEN the Argo CD e2e needs Argo CD and the nodes’ binaries, and a construct unit test none', () => {
    const build = join(binaries.repoRoot, 'build', 'test');
    const argocd = lookupsNeededBy(join(build, 'e2e', 'gitops-argocd.test.js'));
    for (const name of [
      'argocdBinary',
      'kubernetesBinary',
      'containerdBinary',
      'corednsBinary',
      'kubeRouterBinary',
    ])
      assert.ok(argocd.includes(name), `gitops-argocd needs ${name}: ${argocd.join(', ')}`);
    // The soak's world, which the file starts as a process, runs cert-manager and the nodes.
    const soak = lookupsNeededBy(join(build, 'e2e', 'cluster-soak.test.js'));
    for (const name of ['certManagerBinary', 'kubernetesBinary', 'containerdBinary', 'corednsBinary'])
      assert.ok(soak.includes(name), `cluster-soak needs ${name}: ${soak.join(', ')}`);
    assert.deepEqual(lookupsNeededBy(join(build, 'unit', 'constructs', 'etcd-cluster.test.js')), []);
  });
});

describe('binaries.ts’s lookups', () => {
  it('GIVEN every function binaries.ts exports THEN each is a lookup, an etcd lookup (built before any test) or finds no built file', () => {
    const etcd = ['etcdBinary', 'etcdToolFor'];
    const noBuiltFile = ['testToolsKey', 'kubeStateMetricsVersion', 'prometheusRelease'];
    const functions = Object.entries(binaries)
      .filter(([, value]) => typeof value === 'function')
      .map(([name]) => name)
      .sort();
    assert.deepEqual(functions, [...Object.keys(binaries.lookups), ...etcd, ...noBuiltFile].sort());
  });

  it('GIVEN a cache holding MinIO alone THEN every lookup but MinIO’s is missing', () => {
    const cache = join(temp, 'cache');
    const minio = join(cache, `minio-${binaries.versions.MINIO_VERSION}`, 'minio');
    mkdirSync(dirname(minio), { recursive: true });
    writeFileSync(minio, '');
    // The cache directory is read when binaries.js loads: ask a process of its own.
    const script = `const { missingLookups } = await import(${JSON.stringify(pathToFileURL(join(binaries.repoRoot, 'build/test/env/pending-builds.js')).href)});
const { lookups } = await import(${JSON.stringify(pathToFileURL(join(binaries.repoRoot, 'build/test/env/binaries.js')).href)});
console.log(JSON.stringify(missingLookups(Object.keys(lookups))));`;
    const printed = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
      env: { ...process.env, ETCD_GITOPS_CACHE: cache },
    });
    assert.deepEqual(
      JSON.parse(printed),
      Object.keys(binaries.lookups).filter((name) => name !== 'minioBinary'),
    );
  });
});
