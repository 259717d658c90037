// The runner starts an integration or e2e file only once the binaries it uses exist while `npm test` builds them
// beside the tests (scripts/run-tests.mjs with ETCD_GITOPS_BUILD_STATE), and never runs it if the build ends
// without them.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { versions } from '../../env/binaries.js';
import { startRunner, testFile, write } from './runner-process.js';

const temp = mkdtempSync(join(tmpdir(), 'egt-waiting-'));
after(() => rmSync(temp, { recursive: true, force: true }));

/**
 * A checkout of two integration files in `dir`: `needs-minio` imports MinIO's lookup, `needs-nothing` none. Returns
 * the runner started there, with an empty binary cache and a build state file saying "running", and its output.
 */
function start(dir: string) {
  write(join(dir, 'build/test/env/binaries.js'), "export const minioBinary = () => '';\n");
  write(
    join(dir, 'build/test/integration/needs-minio.test.js'),
    `import { minioBinary } from '../env/binaries.js';\n${testFile('needs minio')}`,
  );
  write(join(dir, 'build/test/integration/needs-nothing.test.js'), testFile('needs nothing'));
  const state = join(dir, 'state');
  write(state, 'running\n');
  const cache = join(dir, 'cache');
  mkdirSync(cache);
  const run = startRunner(dir, ['integration'], { ETCD_GITOPS_CACHE: cache, ETCD_GITOPS_BUILD_STATE: state });
  return { ...run, state, minio: join(cache, `minio-${versions.MINIO_VERSION}`, 'minio') };
}

/** Waits up to 20 s for `text` in the output. */
async function waitForOutput(output: { text: string }, text: string, runner: ChildProcess) {
  for (let i = 0; i < 200 && !output.text.includes(text); i++) await sleep(100);
  if (!output.text.includes(text)) {
    runner.kill();
    assert.fail(`no "${text}" in the runner's output:\n${output.text}`);
  }
}

describe('files waiting for the background build', () => {
  it('GIVEN MinIO not built yet THEN the file needing it starts only once MinIO exists, and both pass', async () => {
    const run = start(join(temp, 'built'));
    await waitForOutput(run.output, 'needs-nothing.test.js', run.runner);
    // Two polls of the runner (every 2 s) with MinIO still missing: the other file has not started.
    await sleep(4500);
    assert.doesNotMatch(run.output.text, /needs-minio/);
    write(run.minio, '');
    await waitForOutput(run.output, 'needs-minio.test.js', run.runner);
    write(run.state, '0\n');
    assert.equal(await run.exited, 0, run.output.text);
    assert.match(run.output.text, /^2 passed, 0 failed, 0 skipped$/m);
  });

  it('GIVEN the build ends without MinIO THEN the file needing it is not run and counts as failed, naming MinIO', async () => {
    const run = start(join(temp, 'failed'));
    await waitForOutput(run.output, 'needs-nothing.test.js', run.runner);
    write(run.state, '2\n');
    assert.equal(await run.exited, 1, run.output.text);
    assert.match(
      run.output.text,
      /needs-minio\.test\.js was not run: the background build \(exit 2\) did not make minioBinary/,
    );
    assert.match(run.output.text, /^1 passed, 1 failed, 0 skipped$/m);
  });
});
