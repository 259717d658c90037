import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'node:test';
import { DEFAULT_OPERATOR_IMAGE, PACKAGE_VERSION } from '../../../constructs/conventions/images.js';
import { repoRoot } from '../../env/binaries.js';

const versionOf = (manifest: string) =>
  (JSON.parse(readFileSync(join(repoRoot, manifest), 'utf8')) as { version: string }).version;

it('GIVEN the package manifests WHEN the controller image is chosen THEN its tag is the version of all three', () => {
  // The library users install names the image built from the controller of the same version.
  for (const manifest of ['package.json', 'constructs/package.json', 'controller/package.json']) {
    assert.equal(versionOf(manifest), PACKAGE_VERSION, manifest);
  }
  assert.equal(DEFAULT_OPERATOR_IMAGE, `ghcr.io/etcd-gitops/etcd-gitops:${PACKAGE_VERSION}`);
});
