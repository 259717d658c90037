// The machine-wide lock kubelet starts take (the device-plugin socket's path is fixed) and the test that a kubelet
// has bound that socket. The lock is a real `flock` on a scratch file.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { acquireFileLock, socketReplaced, statOrUndefined } from '../../env/nodes/kubelet-start-lock.js';

const dir = mkdtempSync(join(tmpdir(), 'egt-lock-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function listen(path: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(path, () => resolve(server));
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

describe('acquireFileLock', () => {
  test('GIVEN a held lock WHEN a second holder asks THEN it waits until the first releases', async () => {
    const path = join(dir, 'exclusive.lock');
    const first = await acquireFileLock(path);
    let secondHeld = false;
    const second = acquireFileLock(path).then((lock) => {
      secondHeld = true;
      return lock;
    });
    await sleep(500);
    assert.equal(secondHeld, false, 'the second holder got the lock while the first held it');
    await first.release();
    const lock = await second;
    assert.equal(secondHeld, true);
    await lock.release();
  });

  test('GIVEN a released lock WHEN asked again THEN it is had at once', async () => {
    const path = join(dir, 'again.lock');
    await (await acquireFileLock(path)).release();
    const started = Date.now();
    await (await acquireFileLock(path)).release();
    assert.ok(Date.now() - started < 5_000);
  });
});

describe('socketReplaced', () => {
  test('GIVEN no file before WHEN a socket is bound THEN it counts; a plain file never does', async () => {
    const path = join(dir, 'new.sock');
    assert.equal(socketReplaced(undefined, statOrUndefined(path)), false, 'nothing there yet');
    const server = await listen(path);
    assert.equal(socketReplaced(undefined, statOrUndefined(path)), true);
    await close(server);
    const file = join(dir, 'plain');
    writeFileSync(file, '');
    assert.equal(socketReplaced(undefined, statOrUndefined(file)), false);
  });

  test('GIVEN an earlier socket WHEN it still stands THEN not replaced; WHEN unlinked and bound anew THEN replaced', async () => {
    const path = join(dir, 'again.sock');
    const earlier = await listen(path);
    const before = statOrUndefined(path);
    assert.equal(socketReplaced(before, statOrUndefined(path)), false);
    await close(earlier);
    assert.equal(socketReplaced(before, statOrUndefined(path)), false, 'removed, not yet bound');
    await sleep(20);
    const later = await listen(path);
    assert.equal(socketReplaced(before, statOrUndefined(path)), true);
    await close(later);
  });
});
