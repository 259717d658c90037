// The runner names again, before its closing line, why each failed file failed (a file's output is printed when it
// ends, so a CI log's tail would not show a file that failed early), and runs only the files it is given.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { startRunner, testFile, write } from './runner-process.js';

const temp = mkdtempSync(join(tmpdir(), 'egt-recap-'));
after(() => rmSync(temp, { recursive: true, force: true }));

/** A checkout in `dir` of an integration file failing at once, and an e2e file passing after it has ended. */
function checkout(dir: string) {
  write(
    join(dir, 'build/test/integration/fails-early.test.js'),
    testFile('breaks first', 'the early reason'),
  );
  write(
    join(dir, 'build/test/e2e/passes-late.test.js'),
    `import { setTimeout } from 'node:timers/promises';\nawait setTimeout(1500);\n${testFile('passes later')}`,
  );
  return dir;
}

describe('the runner', () => {
  it('GIVEN a file that fails before another passes WHEN the run ends THEN the failing test and its error are printed after every file, before the closing line', async () => {
    const run = startRunner(checkout(join(temp, 'recap')), []);
    assert.equal(await run.exited, 1, run.output.text);
    const tail = run.output.text.slice(run.output.text.lastIndexOf('== build/test/e2e/passes-late.test.js'));
    const recap = tail.indexOf('== what failed, again');
    assert.notEqual(recap, -1, run.output.text);
    assert.match(tail.slice(recap), /build\/test\/integration\/fails-early\.test\.js:\n✖ failing tests:/);
    assert.match(tail.slice(recap), /✖ breaks first[^\n]*\n\s+Error: the early reason/);
    assert.match(tail.slice(recap), /\n1 passed, 1 failed, 0 skipped\n$/);
  });

  it('GIVEN a compiled file named WHEN run THEN only that file runs; an unknown file or layer exits 2 naming it; none leaves a temp dir', async () => {
    const dir = checkout(join(temp, 'one-file'));
    // The runners' own TMPDIR, where each makes its run's temp dirs: empty after every run, whatever its exit.
    const runnerTmp = join(temp, 'runner-tmp');
    mkdirSync(runnerTmp);
    const one = startRunner(dir, ['build/test/e2e/passes-late.test.js'], { TMPDIR: runnerTmp });
    assert.equal(await one.exited, 0, one.output.text);
    assert.doesNotMatch(one.output.text, /fails-early/);
    assert.match(one.output.text, /^1 passed, 0 failed, 0 skipped$/m);
    const missing = startRunner(dir, ['build/test/e2e/nowhere.test.js'], { TMPDIR: runnerTmp });
    assert.equal(await missing.exited, 2);
    assert.match(missing.output.text, /build\/test\/e2e\/nowhere\.test\.js is not a compiled test file/);
    const layer = startRunner(dir, ['e2e2'], { TMPDIR: runnerTmp });
    assert.equal(await layer.exited, 2);
    assert.match(
      layer.output.text,
      /"e2e2" is neither a layer \(unit, integration, e2e\) nor a \.test\.js file/,
    );
    assert.deepEqual(readdirSync(runnerTmp), []);
  });
});
