// Starts scripts/run-tests.mjs on a checkout of made-up compiled test files, as the unit tests of the runner need.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { repoRoot } from '../../env/binaries.js';

/** Writes `text` to `path`, making its directory. */
export function write(path: string, text: string) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/** A compiled test file's text: one test named `name`, failing with `failure` if given. */
export function testFile(name: string, failure?: string) {
  const body = failure === undefined ? '' : `throw new Error(${JSON.stringify(failure)});`;
  return `import { it } from 'node:test';\nit(${JSON.stringify(name)}, () => {${body}});\n`;
}

/** The runner started in `dir` with `args` and `env` added, as a top-level runner; its output and exit code. */
export function startRunner(dir: string, args: string[], env: Record<string, string> = {}) {
  // As a top-level runner, not as a child reporting to the runner of the test that starts it.
  const { NODE_TEST_CONTEXT: _, ...inherited } = process.env;
  const runner = spawn(process.execPath, [join(repoRoot, 'scripts/run-tests.mjs'), ...args], {
    cwd: dir,
    env: { ...inherited, ...env },
  });
  const output = { text: '' };
  for (const stream of [runner.stdout, runner.stderr]) {
    stream?.setEncoding('utf8').on('data', (chunk: string) => {
      output.text += chunk;
    });
  }
  const exited = new Promise<number | null>((resolve) => runner.on('close', (code) => resolve(code)));
  return { runner, output, exited };
}
