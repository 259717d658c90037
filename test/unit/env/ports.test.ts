// The port claims shared by the test processes of one run (test/env/ports.ts): processes started side by side
// with the same claims directory never hand out the same port.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { PORT_CLAIMS_ENV } from '../../env/ports.js';

const run = promisify(execFile);
const portsModule = pathToFileURL(join(import.meta.dirname, '..', '..', 'env', 'ports.js')).href;
const PER_PROCESS = 150;

/** `count` ports handed out by a new process with `env`. */
async function portsOfAProcess(env: NodeJS.ProcessEnv, count: number): Promise<number[]> {
  const script = `const { freePorts } = await import(${JSON.stringify(portsModule)}); console.log(JSON.stringify(await freePorts(${count})));`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { env });
  return JSON.parse(stdout) as number[];
}

test('two test processes that share a claims directory never hand out the same port, and each port hand-out leaves its claim', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'port-claims-'));
  try {
    const env = { ...process.env, [PORT_CLAIMS_ENV]: dir };
    const [a, b] = await Promise.all([portsOfAProcess(env, PER_PROCESS), portsOfAProcess(env, PER_PROCESS)]);
    // Without the shared claims two random draws of 150 from the ~17,000 ports below the ephemeral range share a
    // port in about 73% of runs (1 - e^(-150*150/17000)).
    assert.equal(new Set([...a!, ...b!]).size, 2 * PER_PROCESS, 'no port handed out twice');
    const claimed = new Set((await readdir(dir)).map(Number));
    for (const port of [...a!, ...b!]) assert.ok(claimed.has(port), `port ${port} has its claim file`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
