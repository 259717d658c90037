// The two workspace packages declare exactly what their sources import: the library only its cdk8s peers (so a
// user's app gets one copy of each and nothing of the controller), the controller every package it loads (so the
// image, which installs only the controller's dependencies, is complete).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { repoRoot } from '../../env/binaries.js';

interface Manifest {
  name: string;
  private?: boolean;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

const manifest = (dir: string) =>
  JSON.parse(readFileSync(join(repoRoot, dir, 'package.json'), 'utf8')) as Manifest;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.isDirectory()) return entry.name === 'lib' ? [] : sources(join(dir, entry.name));
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [join(dir, entry.name)] : [];
  });
}

/** The npm packages a source text imports at run time (type-only imports are erased and not counted). */
function packagesImportedBy(text: string): string[] {
  const specifiers = [
    ...text.matchAll(/^(?:import|export)(?!\s+type\b)[^;]*?from '([^'.][^']*)'|^import '([^'.][^']*)'/gms),
  ].map((m) => (m[1] ?? m[2]) as string);
  return specifiers
    .filter((specifier) => !specifier.startsWith('node:') && !builtinModules.includes(specifier))
    .map((specifier) =>
      specifier
        .split('/')
        .slice(0, specifier.startsWith('@') ? 2 : 1)
        .join('/'),
    );
}

/** The npm packages the sources under `dir` load. */
function runtimeImports(dir: string): Set<string> {
  return new Set(
    sources(join(repoRoot, dir)).flatMap((file) => packagesImportedBy(readFileSync(file, 'utf8'))),
  );
}

describe('workspace package manifests', () => {
  it('GIVEN the library WHEN its manifest is read THEN cdk8s, constructs and cdk8s-plus-27 are peers and nothing is a dependency', () => {
    const lib = manifest('constructs');
    assert.equal(lib.name, 'etcd-gitops');
    assert.deepEqual(lib.dependencies ?? {}, {});
    assert.deepEqual(Object.keys(lib.peerDependencies ?? {}).sort(), [
      'cdk8s',
      'cdk8s-plus-27',
      'constructs',
    ]);
    assert.deepEqual([...runtimeImports('constructs')].sort(), ['cdk8s', 'cdk8s-plus-27', 'constructs']);
  });

  it('GIVEN the controller WHEN its sources are scanned THEN every package they load is one of its dependencies', () => {
    const controller = manifest('controller');
    assert.equal(controller.private, true, 'the controller package is never published');
    const declared = Object.keys(controller.dependencies ?? {});
    const used = [...runtimeImports('controller')].sort();
    assert.ok(used.includes('@kubernetes/client-node') && used.includes('etcd3'), used.join(', '));
    assert.deepEqual(
      used.filter((name) => !declared.includes(name)),
      [],
      'imported by controller/ but missing from controller/package.json',
    );
    assert.ok(!declared.some((name) => ['cdk8s', 'cdk8s-plus-27', 'constructs'].includes(name)));
  });

  it('GIVEN a source with a value import and a type-only import WHEN scanned THEN only the value import counts', () => {
    // The scan itself must be able to fail: a type import of client-node in the library would not load it.
    const text =
      "import { a } from 'left-pad/sub.js';\nimport type { B } from 'typeonly';\nimport 'side-effect';\n" +
      "import { x } from './local.js';\nimport { y } from 'node:fs';\nexport * from '@scope/pkg/deep';\n";
    assert.deepEqual(packagesImportedBy(text), ['left-pad', 'side-effect', '@scope/pkg']);
  });
});
