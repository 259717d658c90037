// The soak watcher's guard against etcd3's uncatchable throw (test/soak/stray-answers.ts), on the real etcd3
// library: its watch manager is handed the answers a stream would carry, no server needed.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { Etcd3 } from 'etcd3';
import { dropStrayWatchAnswers } from '../../soak/stray-answers.js';

type Manager = { handleResponse(response: unknown): void; handleCreatedResponse(response: unknown): void };
const managerOf = (client: Etcd3) => (client as unknown as { watchManager: Manager }).watchManager;
const unknownWatch = { watch_id: '7', created: false, canceled: false, events: [] };
// A creation etcd refused, with no watch waiting for one.
const unplacedRefusal = { watch_id: '3', created: true, canceled: true, cancel_reason: 'compacted' };

describe('dropStrayWatchAnswers', () => {
  const clients: Etcd3[] = [];
  const client = () => {
    const made = new Etcd3({ hosts: '127.0.0.1:1' });
    clients.push(made);
    return made;
  };
  after(() => {
    for (const made of clients) made.close();
  });

  it('etcd3 itself throws on an answer for a watch it does not know (what killed seed 3)', () => {
    const manager = managerOf(client());
    assert.throws(() => manager.handleResponse(unknownWatch), /Failed to find watcher for IWatchResponse/);
    assert.throws(() => manager.handleCreatedResponse(unplacedRefusal), /found no pending watchers/);
  });

  it('drops such answers and tells each, once per client however often it is wrapped', () => {
    const made = client();
    const told: string[] = [];
    dropStrayWatchAnswers(made, (message) => told.push(message));
    dropStrayWatchAnswers(made, (message) => told.push(`again: ${message}`));
    managerOf(made).handleResponse(unknownWatch);
    managerOf(made).handleCreatedResponse(unplacedRefusal);
    assert.equal(told.length, 2);
    assert.match(told[0] ?? '', /^etcd3 dropped a watch answer it could not place: Failed to find watcher/);
    assert.match(told[1] ?? '', /Got a watch creation error, but found no pending watchers/);
  });

  it('lets any other error through', () => {
    const made = client();
    dropStrayWatchAnswers(made, () => assert.fail('not a stray answer'));
    // A creation answer before any stream (so no attach queue) fails inside etcd3 with a TypeError.
    assert.throws(() => managerOf(made).handleCreatedResponse({ watch_id: '1', created: true }), TypeError);
  });
});
