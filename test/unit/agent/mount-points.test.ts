// Mount points the node agent creates on the host are shared by the agents of environments running side by side:
// only the last live agent removes them (removing one under another agent's running container detaches its mount).
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { MountPoints } from '../../../test/env/agent/mounts.js';

describe('MountPoints with a machine-wide registry', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mount-points-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const mount = (name: string) => ({
    source: join(dir, 'src', name),
    target: join(dir, 'host', name, 'app'),
    readOnly: true,
  });

  it('GIVEN two live agents WHEN the one that created a mount point stops first THEN it stays until the other stops', () => {
    const registry = join(dir, 'registry-1');
    const first = new MountPoints(registry, () => true);
    const second = new MountPoints(registry, () => true);
    first.ensure(mount('a'));
    second.ensure(mount('a')); // already there: the second agent binds on it
    // WHEN
    assert.deepEqual(first.removeCreated(), []);
    // THEN
    assert.ok(existsSync(join(dir, 'host', 'a', 'app')), 'still a mount point of the second agent');
    assert.deepEqual(second.removeCreated(), []);
    assert.equal(existsSync(join(dir, 'host', 'a')), false, 'the last agent removed it');
    assert.equal(existsSync(registry), false, 'and the registry');
  });

  it('GIVEN another live agent that uses other mount points WHEN an agent stops THEN its own are removed at once', () => {
    const registry = join(dir, 'registry-4');
    const first = new MountPoints(registry, () => true);
    const second = new MountPoints(registry, () => true);
    first.ensure({ source: join(dir, 'src', 'x'), target: join(dir, 'mine', 'x'), readOnly: false });
    second.ensure({ source: join(dir, 'src', 'y'), target: join(dir, 'theirs', 'y'), readOnly: false });
    // WHEN
    assert.deepEqual(first.removeCreated(), []);
    // THEN
    assert.equal(existsSync(join(dir, 'mine')), false);
    assert.ok(existsSync(join(dir, 'theirs', 'y')));
    assert.deepEqual(second.removeCreated(), []);
    assert.equal(existsSync(join(dir, 'theirs')), false);
    assert.equal(existsSync(registry), false);
  });

  it('GIVEN an agent that died without stopping WHEN the last live agent stops THEN it removes everything and forgets the dead one', () => {
    const registry = join(dir, 'registry-2');
    const dead = new MountPoints(registry, () => true);
    dead.ensure(mount('b'));
    // Every other registered agent counts as gone for this one (both live in this process here).
    const last = new MountPoints(registry, () => false);
    assert.deepEqual(last.removeCreated(), []);
    assert.equal(existsSync(join(dir, 'host', 'b')), false);
    assert.equal(existsSync(registry), false);
  });

  it('GIVEN a mount point that is no longer empty WHEN the last agent stops THEN it is left in place and named', () => {
    const registry = join(dir, 'registry-3');
    const agent = new MountPoints(registry, () => true);
    agent.ensure(mount('c'));
    writeFileSync(join(dir, 'host', 'c', 'app', 'data'), 'kept');
    assert.deepEqual(agent.removeCreated(), [join(dir, 'host')]); // the topmost directory it created
    assert.ok(existsSync(join(dir, 'host', 'c', 'app', 'data')));
  });
});
