import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'node:test';
import { DEFAULT_OPERATOR_IMAGE, PACKAGE_VERSION } from '../../../constructs/conventions/images.js';
import { repoRoot } from '../../env/binaries.js';

it('GIVEN package.json WHEN the controller image is chosen THEN its tag is the package version', () => {
  const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string };
  assert.equal(PACKAGE_VERSION, pkg.version);
  assert.equal(DEFAULT_OPERATOR_IMAGE, `ghcr.io/etcd-gitops/etcd-gitops:${pkg.version}`);
});
