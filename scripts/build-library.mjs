#!/usr/bin/env node
// Builds the published construct library (constructs/, npm package "etcd-gitops") into constructs/lib:
//   lib/esm  ES modules and their types, for `import` (the package is "type": "module")
//   lib/cjs  CommonJS and its types, for `require`, marked by lib/cjs/package.json {"type": "commonjs"}
// Both come from the same sources; package.json "exports" picks one per condition, and "main"/"types" name the
// CommonJS build for resolvers that ignore "exports" (TypeScript's node10, older jest).
// With --pack (npm's prepack) it also copies the repository's LICENSE next to package.json, where npm pack looks;
// --clean (postpack) removes that copy again.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const library = join(root, 'constructs');
const license = join(library, 'LICENSE');

if (process.argv.includes('--clean')) {
  rmSync(license, { force: true });
  process.exit(0);
}

const tsc = join(root, 'node_modules', '.bin', 'tsc');
rmSync(join(library, 'lib'), { recursive: true, force: true });
for (const project of ['tsconfig.json', 'tsconfig.cjs.json']) {
  const run = spawnSync(tsc, ['-p', join(library, project)], { stdio: 'inherit' });
  if (run.status !== 0) process.exit(run.status ?? 1);
}
mkdirSync(join(library, 'lib', 'cjs'), { recursive: true });
writeFileSync(join(library, 'lib', 'cjs', 'package.json'), '{ "type": "commonjs" }\n');
if (process.argv.includes('--pack')) copyFileSync(join(root, 'LICENSE'), license);
