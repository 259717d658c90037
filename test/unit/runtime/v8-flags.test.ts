// The controller's V8 flags take effect when set at run time (they cannot go in NODE_OPTIONS): a function V8 is
// told to optimize is compiled by TurboFan in a process with V8's defaults, and is not once the flags are set.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';

const run = promisify(execFile);
const flagsModule = new URL('../../../controller/runtime/v8-flags.js', import.meta.url).href;

/** V8's `%GetOptimizationStatus` bit for code compiled by TurboFan. */
const TURBOFANNED = 1 << 6;

/** The optimization status of a hot function in a new process, after `useControllerV8Flags()` or not. */
async function optimizationStatus(useFlags: boolean): Promise<number> {
  const script = [
    useFlags ? `(await import(${JSON.stringify(flagsModule)})).useControllerV8Flags();` : '',
    'function hot(x) { return x * 2 + 1; }',
    '%PrepareFunctionForOptimization(hot);',
    'hot(1); hot(2);',
    '%OptimizeFunctionOnNextCall(hot);',
    'hot(3);',
    'process.stdout.write(String(%GetOptimizationStatus(hot)));',
  ].join('\n');
  const { stdout } = await run(process.execPath, [
    '--allow-natives-syntax',
    '--input-type=module',
    '--eval',
    script,
  ]);
  return Number(stdout);
}

describe('useControllerV8Flags', () => {
  it('GIVEN V8 defaults THEN a function marked for optimization is compiled by TurboFan', async () => {
    assert.notEqual((await optimizationStatus(false)) & TURBOFANNED, 0);
  });

  it('GIVEN useControllerV8Flags() before the code loads THEN the same function is not: TurboFan is off', async () => {
    assert.equal((await optimizationStatus(true)) & TURBOFANNED, 0);
  });
});
