// The environment's last-resort cleanup on signals (test/env/cleanup.ts): by default the first SIGINT tears down and
// exits 130; a caller that leaves SIGINT to itself (the soak) stops at its own pace, and the cleanups still run when
// it exits. Each case is a small Node process, signalled as a user's Ctrl-C or the soak e2e's bound would.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const cleanupModule = fileURLToPath(new URL('../../env/cleanup.js', import.meta.url));

// The caller's own SIGINT handler takes 300 ms to stop, as the soak finishes its step before it exits.
const script = `
import { writeFileSync } from 'node:fs';
const { leaveSignalToCaller, onProcessExit } = await import(process.env.CLEANUP_MODULE);
onProcessExit({ sync: () => writeFileSync(process.env.MARK, 'cleaned') });
if (process.env.LEAVE === '1') leaveSignalToCaller('SIGINT');
process.once('SIGINT', () => {
  console.log('caller: stopping');
  setTimeout(() => { console.log('caller: stopped'); process.exit(0); }, 300);
});
setInterval(() => undefined, 1000);
console.log('ready');
`;

async function interrupted(leave: boolean) {
  const dir = mkdtempSync(join(tmpdir(), 'cleanup-signals-'));
  const mark = join(dir, 'mark');
  try {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      env: { ...process.env, CLEANUP_MODULE: cleanupModule, MARK: mark, LEAVE: leave ? '1' : '0' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    let signalled = false;
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (signalled || !output.includes('ready\n')) return;
      signalled = true;
      child.kill('SIGINT');
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    let cleaned: string | undefined;
    try {
      cleaned = readFileSync(mark, 'utf8');
    } catch {
      cleaned = undefined;
    }
    return { code, output, cleaned };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('GIVEN no caller claims SIGINT WHEN it arrives THEN the cleanups run and the process exits 130 without waiting for the caller', async () => {
  const { code, output, cleaned } = await interrupted(false);
  assert.equal(code, 130);
  assert.equal(cleaned, 'cleaned');
  assert.doesNotMatch(output, /caller: stopped/);
});

test('GIVEN a caller that leaves SIGINT to itself WHEN it arrives THEN the caller stops at its own pace, exits with its own code, and the cleanups still run', async () => {
  const { code, output, cleaned } = await interrupted(true);
  assert.equal(code, 0);
  assert.match(output, /caller: stopping\ncaller: stopped\n/);
  assert.equal(cleaned, 'cleaned');
});
