import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const hostsModule = fileURLToPath(new URL('../../env/agent/hosts-file.js', import.meta.url));

// One "agent" in its own process: many block rewrites as fast as it can, ending with `final-<node>`.
const writer = `
const { HostsBlock } = await import(process.argv[1]);
const [path, node] = process.argv.slice(2);
const block = new HostsBlock(path, node);
for (let i = 0; i < 300; i++) block.write([{ ip: '127.9.0.1', names: [node + '-' + i] }]);
block.write([{ ip: '127.9.0.1', names: ['final-' + node] }]);
`;

function runWriter(path: string, node: string): Promise<number | null> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', writer, hostsModule, path, node], {
      stdio: 'inherit',
    });
    child.once('exit', resolve);
  });
}

describe('hosts file shared by agents in several processes', () => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-hosts-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps every agent block when they rewrite the file at the same time', async () => {
    // GIVEN a hosts file and three agents in three processes
    const path = join(dir, 'hosts');
    writeFileSync(path, '127.0.0.1 localhost\n');
    // WHEN they all rewrite their blocks concurrently
    const codes = await Promise.all(['a', 'b', 'c'].map((node) => runWriter(path, node)));
    assert.deepEqual(codes, [0, 0, 0]);
    // THEN each final block is there, the original line too, and the lock is released
    const content = readFileSync(path, 'utf8');
    for (const node of ['a', 'b', 'c'])
      assert.match(content, new RegExp(`^127\\.9\\.0\\.1 final-${node}$`, 'm'));
    assert.match(content, /^127\.0\.0\.1 localhost$/m);
    assert.throws(() => readFileSync(`${path}.lock/owner`), /ENOENT/);
  });
});
