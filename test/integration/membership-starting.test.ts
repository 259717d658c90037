// A member that has not joined its cluster yet, on real etcd 3.6: one initial member of three started alone accepts
// connections on its client port and answers nothing until a second one lets it form the cluster, so a pass asking a
// starting member waits out its whole `DEFAULT_CALL_TIMEOUT_MS` (docs/design/membership.md, "The etcd view": why
// no shorter deadline is given to such a member).
import assert from 'node:assert/strict';
import { connect as tcpConnect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { DEFAULT_CALL_TIMEOUT_MS } from '../../controller/etcd/client.js';
import { memberStatus } from '../../controller/etcd/members.js';
import { waitFor } from '../env/wait.js';
import { createTestCluster, type TestCluster } from './helpers/membership-etcd.js';

const initial = ['s-0', 's-1', 's-2'];

/** How long `call` took to settle, and whether it answered. */
async function timed(call: () => Promise<unknown>): Promise<{ ms: number; answered: boolean }> {
  const start = performance.now();
  const answered = await call().then(
    () => true,
    () => false,
  );
  return { ms: performance.now() - start, answered };
}

function accepts(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = tcpConnect({ host: hostname, port: Number(port) });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('a member that has not joined its cluster yet (real etcd 3.6)', () => {
  let etcd: TestCluster;
  let url: string;

  before(async () => {
    etcd = await createTestCluster('3.6');
    for (const name of initial) await etcd.reserve(name);
    url = etcd.start('s-0', 'new', initial, 'starting-test').clientURL;
    await waitFor(() => accepts(url), { what: 's-0 accepting on its client port', timeoutMs: 30_000 });
  });
  after(async () => {
    await etcd?.stop();
  });

  test('GIVEN one of three initial members started alone WHEN asked for its Status THEN it accepts the connection and answers nothing until the deadline', async () => {
    const whole = await timed(() => memberStatus(url));
    assert.equal(whole.answered, false, 'a member without its cluster does not answer');
    assert.ok(
      whole.ms >= DEFAULT_CALL_TIMEOUT_MS - 100,
      `the default call waited ${whole.ms.toFixed(0)} ms, its whole deadline`,
    );
  });

  test('WHEN a second initial member starts THEN the first answers', async () => {
    etcd.start('s-1', 'new', initial, 'starting-test');
    await etcd.waitForLeader(['s-0', 's-1']);
    const status = await memberStatus(url);
    assert.notEqual(status.leaderId, '0');
  });
});
