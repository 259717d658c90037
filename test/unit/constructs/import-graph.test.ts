import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { repoRoot } from '../../env/binaries.js';

const CONTROLLER_ONLY = [
  /[/\\]node_modules[/\\]@kubernetes[/\\]client-node[/\\]/,
  /[/\\]node_modules[/\\]etcd3[/\\]/,
  /[/\\]node_modules[/\\]@aws-sdk[/\\]/,
];

const CONSTRUCT_RUNTIME = [
  /[/\\]node_modules[/\\]cdk8s[/\\]/,
  /[/\\]node_modules[/\\]cdk8s-plus-27[/\\]/,
  /[/\\]node_modules[/\\]constructs[/\\]/,
];

/** What the controller may import from constructs/: pure modules that load no cdk8s at run time. */
const CONTROLLER_MAY_IMPORT = [
  /^constructs\/conventions\//,
  /^constructs\/imports\//,
  /^constructs\/security\.js$/,
];

const temp = mkdtempSync(join(tmpdir(), 'etcd-gitops-imports-'));
after(() => rmSync(temp, { recursive: true, force: true }));

/**
 * Imports `target` in a fresh Node process and returns every module file it loaded: ESM through a resolve hook,
 * CommonJS through require.cache (which also holds CommonJS modules that ESM imported).
 */
function loadedModules(target: string): string[] {
  const hooks = join(temp, 'hooks.mjs');
  const register = join(temp, 'register.mjs');
  const probe = join(temp, 'probe.mjs');
  const log = join(temp, `${Math.random().toString(36).slice(2)}.log`);
  writeFileSync(
    hooks,
    `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(${JSON.stringify(log)}, result.url + '\\n');
  return result;
}
`,
  );
  writeFileSync(
    register,
    `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
  );
  writeFileSync(
    probe,
    `import { createRequire } from 'node:module';
import { appendFileSync } from 'node:fs';
await import(${JSON.stringify(pathToFileURL(target).href)});
const cache = createRequire(import.meta.url).cache;
appendFileSync(${JSON.stringify(log)}, Object.keys(cache).join('\\n') + '\\n');
`,
  );
  const run = spawnSync(process.execPath, ['--import', pathToFileURL(register).href, probe], {
    cwd: repoRoot,
    encoding: 'utf8',
  });
  assert.equal(run.status, 0, run.stderr);
  return readFileSync(log, 'utf8').split('\n').filter(Boolean);
}

function controllerModules(modules: string[]): string[] {
  return modules.filter((m) => CONTROLLER_ONLY.some((re) => re.test(decodeURIComponent(m))));
}

describe('import graph of the construct library', () => {
  it('GIVEN the package entry point WHEN imported THEN no @kubernetes/client-node, etcd3 or @aws-sdk module loads', () => {
    const modules = loadedModules(join(repoRoot, 'build', 'constructs', 'index.js'));
    assert.ok(
      modules.some((m) => m.includes('/node_modules/cdk8s/')),
      'the probe saw cdk8s load',
    );
    assert.deepEqual(controllerModules(modules), []);
  });

  it('GIVEN a module that imports etcd3 and @kubernetes/client-node WHEN probed the same way THEN both are seen', () => {
    const bad = join(repoRoot, 'build', '.import-graph-probe.mjs');
    writeFileSync(bad, "import 'etcd3';\nimport '@kubernetes/client-node';\n");
    try {
      const found = controllerModules(loadedModules(bad)).join('\n');
      assert.match(found, /node_modules\/etcd3\//);
      assert.match(found, /node_modules\/@kubernetes\/client-node\//);
    } finally {
      rmSync(bad, { force: true });
    }
  });

  it('GIVEN the conventions module WHEN imported THEN no cdk8s, cdk8s-plus or constructs module loads', () => {
    const modules = loadedModules(join(repoRoot, 'build', 'constructs', 'conventions', 'index.js'));
    assert.ok(
      modules.some((m) => m.includes('/build/constructs/conventions/cli/')),
      'the probe saw the codecs load',
    );
    assert.deepEqual(
      modules.filter((m) => CONSTRUCT_RUNTIME.some((re) => re.test(decodeURIComponent(m)))),
      [],
    );
  });

  it('GIVEN the controller sources WHEN their imports from constructs/ are listed THEN each is a conventions, imports or security module', () => {
    const files = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
        entry.isDirectory()
          ? files(join(dir, entry.name))
          : entry.name.endsWith('.ts')
            ? [join(dir, entry.name)]
            : [],
      );
    const imports = files(join(repoRoot, 'controller')).flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/from '(?:\.\.\/)+(constructs\/[^']+)'/g)].map(
        (m) => m[1] as string,
      ),
    );
    assert.ok(imports.length > 0);
    assert.deepEqual(
      imports.filter((path) => !CONTROLLER_MAY_IMPORT.some((re) => re.test(path))),
      [],
    );
  });
});
