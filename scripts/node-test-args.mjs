// The `node --test` flags scripts/run-tests.mjs runs a layer with (and a unit test checks).
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const preload = pathToFileURL(join(dirname(fileURLToPath(import.meta.url)), 'test-stdio-blocking.mjs')).href;

/**
 * --test-force-exit: a file's process exits once its tests and hooks are done, even if Node would hang in its own
 * exit (Node 20 spun at 100% CPU after the tests of a file had finished, waiting for a TCP handle whose reset had
 * failed; see test/e2e/runtime-tcp-proxy.ts). Every test still has to clean up after itself: the runner's temp dir
 * check and the environment's reapers do not depend on how the process exits. The preload makes the children's
 * stdout blocking, without which a forced exit dropped the last results of a file unreported
 * (test-stdio-blocking.mjs).
 */
export function nodeTestArgs(concurrency) {
  return [
    '--test',
    '--test-force-exit',
    '--import',
    preload,
    `--test-concurrency=${concurrency}`,
    '--test-reporter=spec',
  ];
}
