import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { buildApp } from '../../../src/app.js';
import { distDir, distObjects, yamlFiles } from './dist-files.js';

const temp = mkdtempSync(join(tmpdir(), 'etcd-gitops-synth-'));
after(() => rmSync(temp, { recursive: true, force: true }));

function synthInto(dir: string): Map<string, string> {
  buildApp(dir).synth();
  return new Map(yamlFiles(dir).map((f) => [f, readFileSync(join(dir, f), 'utf8')]));
}

describe('committed GitOps output', () => {
  it('GIVEN the app WHEN synthesized twice THEN both runs give identical bytes', () => {
    const first = synthInto(join(temp, 'a'));
    const second = synthInto(join(temp, 'b'));
    assert.deepEqual([...first.keys()], ['00-crds.k8s.yaml', '01-operator.k8s.yaml', '02-example.k8s.yaml']);
    assert.deepEqual(second, first);
  });

  it("GIVEN `npm run synth` THEN it skips cdk8s-cli's upgrade check (which prints a stack trace on every run without internet)", () => {
    const pkg = JSON.parse(readFileSync(join(distDir, '..', 'package.json'), 'utf8'));
    assert.match(pkg.scripts.synth, /^cdk8s synth .*--check-upgrade=false/);
  });

  it('GIVEN dist/ in Git WHEN compared with a fresh synth THEN they are byte-identical (run `npm run synth` and commit)', () => {
    const fresh = synthInto(join(temp, 'fresh'));
    const committed = new Map(yamlFiles(distDir).map((f) => [f, readFileSync(join(distDir, f), 'utf8')]));
    assert.deepEqual([...committed.keys()], [...fresh.keys()], 'dist/ has other files than the app writes');
    for (const [file, text] of fresh) assert.equal(committed.get(file), text, `dist/${file} is stale`);
  });

  it('GIVEN dist/ THEN Argo CD sync waves order CRDs, then the operator, then clusters', () => {
    const waves = (file: string) =>
      new Set(
        readFileSync(join(distDir, file), 'utf8')
          .split('\n')
          .filter((l) => l.includes('argocd.argoproj.io/sync-wave'))
          .map((l) => l.split(':')[1]!.trim()),
      );
    assert.deepEqual(waves('00-crds.k8s.yaml'), new Set(['"-2"']));
    assert.deepEqual(waves('01-operator.k8s.yaml'), new Set(['"-1"']));
    assert.deepEqual(waves('02-example.k8s.yaml'), new Set(['"0"']));
  });

  it('GIVEN dist/ THEN no cluster-scoped object carries a namespace (cdk8s stamps the chart namespace on everything)', () => {
    const clusterScoped = new Set([
      'Namespace',
      'CustomResourceDefinition',
      'ClusterRole',
      'ClusterRoleBinding',
    ]);
    const stamped = distObjects()
      .filter((o) => clusterScoped.has(o.kind) && o.metadata?.namespace !== undefined)
      .map((o) => `${o.kind}/${o.metadata.name} has namespace ${o.metadata.namespace}`);
    assert.ok(
      distObjects().some((o) => o.kind === 'Namespace'),
      'dist/ has no Namespace to check',
    );
    assert.deepEqual(stamped, []);
  });
});
