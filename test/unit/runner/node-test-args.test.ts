// The runner's own honesty: every test of a file is reported even though files are force-exited.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { repoRoot } from '../../env/binaries.js';

const temp = mkdtempSync(join(tmpdir(), 'egt-runner-'));
after(() => rmSync(temp, { recursive: true, force: true }));

it('GIVEN three files of 150 quick tests WHEN run with the runner flags THEN all 450 are reported, on every one of 8 runs', async () => {
  const { nodeTestArgs } = (await import(
    pathToFileURL(join(repoRoot, 'scripts', 'node-test-args.mjs')).href
  )) as { nodeTestArgs: (concurrency: number) => string[] };
  // Quick synchronous tests in suites: the shape whose last results a forced exit used to drop (37 of 47 tests of
  // test/unit/restore/plan.test.ts; these three files without the preload: 434 to 444 of 450 on Node 20.20).
  const body = Array.from(
    { length: 15 },
    (_, s) =>
      `describe('suite ${s}', () => {\n${Array.from({ length: 10 }, (_, t) => `  it('test ${s}.${t} ${'x'.repeat(200)}', () => {});`).join('\n')}\n});`,
  ).join('\n');
  const files = [1, 2, 3].map((n) => {
    const file = join(temp, `f${n}.test.mjs`);
    writeFileSync(file, `import { describe, it } from 'node:test';\n${body}\n`);
    return file;
  });
  // Run as a top-level runner, not as a child reporting to this file's runner.
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  for (let run = 0; run < 8; run++) {
    const result = spawnSync(process.execPath, [...nodeTestArgs(2), ...files], {
      encoding: 'utf8',
      cwd: temp,
      env,
    });
    assert.equal(result.status, 0, result.stderr);
    assert.match(
      result.stdout,
      /^ℹ tests 450$/m,
      `run ${run + 1} reported ${/^ℹ tests (\d+)$/m.exec(result.stdout)?.[1]}`,
    );
  }
});
