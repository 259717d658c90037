import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, it } from 'node:test';
import { repoRoot } from '../../env/binaries.js';

const temp = mkdtempSync(join(tmpdir(), 'etcd-gitops-readme-'));
const script = join(repoRoot, 'build', '.readme-example.mjs');
after(() => {
  rmSync(temp, { recursive: true, force: true });
  rmSync(script, { force: true });
});

it('GIVEN the example in the package README of another cdk8s app WHEN run against the package entry point THEN it synthesizes the cluster and its backup', () => {
  const readme = readFileSync(join(repoRoot, 'constructs', 'README.md'), 'utf8');
  const section = readme.split('## Use\n')[1] ?? '';
  const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(code, 'constructs/README.md has no ts example under "## Use"');
  assert.ok(code.split('\n').filter(Boolean).length <= 15, 'the example is at most 15 lines');
  assert.match(code, /from 'etcd-gitops'/);
  // Inside the repository, 'etcd-gitops' is the workspace link node_modules/etcd-gitops -> constructs/, whose
  // "exports" name lib/esm/index.js (built by npm run build).
  writeFileSync(script, code);
  const run = spawnSync(process.execPath, [script], { cwd: temp, encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  const yaml = readdirSync(join(temp, 'dist'))
    .map((f) => readFileSync(join(temp, 'dist', f), 'utf8'))
    .join('\n---\n');
  assert.match(yaml, /kind: EtcdCluster\nmetadata:[\s\S]*?name: payments-etcd\n {2}namespace: payments/);
  assert.match(yaml, /name: payments-etcd-backup\n/);
  assert.match(yaml, /--keep-last=14/);
  assert.match(yaml, /kind: CustomResourceDefinition/);
});
