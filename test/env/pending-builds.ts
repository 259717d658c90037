// What a compiled test file needs from the background build, so that the test runner (scripts/run-tests.mjs) starts
// it only once its binaries exist while `npm test` builds the rest beside the tests (scripts/test.mjs).
// A file needs the lookups of binaries.ts it imports itself or through the modules of ours it imports, statically or
// with import('...'), or runs: a script a test starts as a process is named by a URL relative to the module,
// `new URL('../env/cli.js', import.meta.url)`, and what that script imports counts too. A lookup a file imports but
// never calls only makes it wait longer.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { lookups } from './binaries.js';

// `import {a, b as c} from './x.js'`, `export {a} from './x.js'`, `import * as x from './x.js'`, `import './x.js'`,
// `import('./x.js')` and `new URL('./x.js', import.meta.url)`, as tsc emits them.
const importPattern =
  /\b(?:import|export)\s*([^'";()]*?)\s*from\s*['"]([^'"]+)['"]|\bimport\s*\(?\s*['"]([^'"]+)['"]|\bnew URL\(\s*['"]([^'"]+\.js)['"]\s*,\s*import\.meta\.url\s*\)/g;

/** The names of binaries.ts's `lookups` that the compiled module `file` reaches, sorted. */
export function lookupsNeededBy(file: string): string[] {
  const needed = new Set<string>();
  const seen = new Set<string>();
  const visit = (path: string) => {
    if (seen.has(path) || !existsSync(path)) return;
    seen.add(path);
    for (const match of readFileSync(path, 'utf8').matchAll(importPattern)) {
      const specifier = match[2] ?? match[3] ?? match[4];
      if (!specifier.startsWith('.')) continue;
      const target = resolve(dirname(path), specifier);
      if (target.endsWith('/test/env/binaries.js')) {
        for (const name of importedNames(match[1] ?? '')) needed.add(name);
      } else {
        visit(target);
      }
    }
  };
  visit(resolve(file));
  return [...needed].sort();
}

/** The lookups an import clause names: all of them for `* as x`, none for a side-effect import. */
function importedNames(clause: string): string[] {
  if (clause.includes('*')) return Object.keys(lookups);
  const braces = /\{([^}]*)\}/.exec(clause);
  if (!braces) return [];
  return braces[1]
    .split(',')
    .map((part) => part.trim().split(/\s+as\s+/)[0])
    .filter((name) => Object.hasOwn(lookups, name));
}

/** Those of `names` (from lookupsNeededBy) whose files do not exist yet. */
export function missingLookups(names: readonly string[]): string[] {
  return names.filter((name) => {
    try {
      lookups[name]();
      return false;
    } catch {
      return true;
    }
  });
}
