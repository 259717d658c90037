// The published package's two builds (constructs/lib, built by `npm run build`) behave as the sources do, and an
// app that loads both still gets one operator its clusters find.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { App, Chart } from 'cdk8s';
import { repoRoot } from '../../env/binaries.js';

type Library = typeof import('../../../constructs/index.js');

const lib = join(repoRoot, 'constructs', 'lib');
const esm = (await import(pathToFileURL(join(lib, 'esm', 'index.js')).href)) as Library;
const cjs = createRequire(import.meta.url)(join(lib, 'cjs', 'index.js')) as Library;

describe('the library builds', () => {
  it('GIVEN the CommonJS build WHEN loaded with require THEN it is CommonJS and exports what the ES module build does', () => {
    assert.equal(typeof cjs.EtcdCluster, 'function');
    assert.notEqual(cjs.EtcdCluster, esm.EtcdCluster, 'two separate builds');
    assert.deepEqual(Object.keys(cjs).sort(), Object.keys(esm).sort());
  });

  it('GIVEN an operator from the ES module build and a cluster from the CommonJS build WHEN synthesized THEN the cluster lets that operator in', () => {
    const app = new App({ outdir: join(repoRoot, 'build', '.dual-build-out') });
    new esm.EtcdOperator(new Chart(app, 'ops'), 'operator', { namespace: 'etcd-ops' });
    new cjs.EtcdCluster(new Chart(app, 'db', { namespace: 'db' }), 'main', { version: '3.6.16' });
    const yaml = app.synthYaml();
    assert.match(yaml, /kubernetes\.io\/metadata\.name: etcd-ops/);
  });

  it('GIVEN two operators, one from each build WHEN synthesized THEN synth fails naming both, as with one build', () => {
    const app = new App({ outdir: join(repoRoot, 'build', '.dual-build-out') });
    new esm.EtcdOperator(new Chart(app, 'a'), 'operator');
    new cjs.EtcdOperator(new Chart(app, 'b'), 'operator', { namespace: 'other' });
    assert.throws(
      () => app.synthYaml(),
      /'b\/operator' is a second operator in this app, besides 'a\/operator'/,
    );
  });
});
