// The import boundaries of one writer per cluster (docs/design/restore.md, invariant 7) are enforced by the
// project's own lint config (biome.json, noRestrictedImports): each direction is shown to fail the lint, and an
// allowed import to pass, on a scratch tree linted with that config.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { repoRoot } from '../../env/binaries.js';

const run = promisify(execFile);

interface Diagnostic {
  readonly category: string;
  readonly message: string;
  readonly location: { readonly path: string };
}

describe('import boundaries between the reconcilers (biome.json)', () => {
  let dir = '';
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'egt-imports-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  /** Lints one file `path` importing `from`, with the repo's config; the noRestrictedImports diagnostics. */
  async function restrictedImports(path: string, from: string): Promise<Diagnostic[]> {
    const files: Record<string, string> = {
      [path]: `import { fact } from '${from}';\n\nexport const probe = fact;\n`,
      'controller/etcdcluster/plan.ts': 'export const fact = 1;\n',
      'controller/etcdrestore/reconciler.ts': 'export const fact = 2;\n',
      'controller/restore/stage.ts': 'export const fact = 3;\n',
      'constructs/conventions/index.ts': 'export const fact = 4;\n',
    };
    const tree = await mkdtemp(join(dir, 'tree-'));
    await copyFile(join(repoRoot, 'biome.json'), join(tree, 'biome.json'));
    for (const [file, text] of Object.entries(files)) {
      await mkdir(dirname(join(tree, file)), { recursive: true });
      await writeFile(join(tree, file), text);
    }
    const biome = join(repoRoot, 'node_modules', '.bin', 'biome');
    const output = await run(biome, ['lint', '--reporter=json', path], { cwd: tree }).then(
      ({ stdout }) => stdout,
      (error: { stdout?: string }) => error.stdout ?? '',
    );
    const report = JSON.parse(output.slice(output.indexOf('{'))) as { diagnostics: Diagnostic[] };
    return report.diagnostics.filter((d) => d.category === 'lint/style/noRestrictedImports');
  }

  const refused: ReadonlyArray<readonly [string, string, RegExp]> = [
    [
      'controller/etcdrestore/probe.ts',
      '../etcdcluster/plan.js',
      /etcdrestore must not import controller\/etcdcluster/,
    ],
    [
      'controller/etcdcluster/probe.ts',
      '../etcdrestore/reconciler.js',
      /etcdcluster must not import controller\/etcdrestore/,
    ],
    ['controller/restore/probe.ts', '../etcdcluster/plan.js', /controller\/restore .* imports neither/],
    ['controller/restore/probe.ts', '../etcdrestore/reconciler.js', /controller\/restore .* imports neither/],
  ];
  for (const [path, from, message] of refused) {
    test(`GIVEN ${path} importing ${from} WHEN linted THEN the lint fails naming the rule`, async () => {
      const diagnostics = await restrictedImports(path, from);
      assert.equal(diagnostics.length, 1, JSON.stringify(diagnostics));
      assert.equal(diagnostics[0]?.location.path, path);
      assert.match(diagnostics[0]?.message ?? '', message);
    });
  }

  test('GIVEN controller/etcdrestore importing the shared conventions WHEN linted THEN no boundary is crossed', async () => {
    assert.deepEqual(
      await restrictedImports('controller/etcdrestore/probe.ts', '../../constructs/conventions/index.js'),
      [],
    );
  });
});
