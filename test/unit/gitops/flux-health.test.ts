// The Flux health checks users copy: docs/gitops/flux.yaml is the source (test/integration/recorded-kstatus.test.ts
// runs its expressions with Flux's own evaluator); the README shows the same expressions.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { repoRoot } from '../../env/binaries.js';
import { fluxHealthCheckExprs } from '../../health/kstatus.js';

describe('Flux healthCheckExprs', () => {
  it('GIVEN docs/gitops/flux.yaml THEN both kinds have inProgress, failed and current, each requiring Ready for current', () => {
    for (const kind of ['EtcdCluster', 'EtcdRestore'] as const) {
      const exprs = fluxHealthCheckExprs(kind);
      assert.equal(exprs.apiVersion, 'etcd.gitops.dev/v1alpha1');
      assert.match(exprs.current, /c\.type == 'Ready' && c\.status == 'True'/);
      assert.match(exprs.inProgress ?? '', /c\.type == 'Reconciling'/);
      assert.match(exprs.failed ?? '', /'Stalled'/);
    }
    assert.match(fluxHealthCheckExprs('EtcdCluster').failed ?? '', /'Degraded'/);
  });

  it('GIVEN docs/gitops/README.md THEN it shows exactly the expressions of flux.yaml', () => {
    const readme = readFileSync(join(repoRoot, 'docs', 'gitops', 'README.md'), 'utf8');
    for (const kind of ['EtcdCluster', 'EtcdRestore'] as const) {
      const exprs = fluxHealthCheckExprs(kind);
      const block = [
        `      kind: ${kind}`,
        `      inProgress: "${exprs.inProgress}"`,
        `      failed: "${exprs.failed}"`,
        `      current: "${exprs.current}"`,
      ].join('\n');
      assert.ok(readme.includes(block), `README's ${kind} expressions differ from flux.yaml's:\n${block}`);
    }
  });
});
