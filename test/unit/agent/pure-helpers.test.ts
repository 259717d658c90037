import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { AddressPool, fileClaims, nodeNetworkOctet } from '../../env/agent/addresses.js';
import { backoffDelay, kubeletBackoff, shouldRestart } from '../../env/agent/backoff.js';
import { expandVariables } from '../../env/agent/expand.js';
import { launchScript, shellQuote } from '../../env/agent/mounts.js';
import { podListenArgs } from '../../env/agent/pod-network-preload.js';
import { ProbeCounter } from '../../env/agent/probe-loop.js';
import { keyFiles } from '../../env/agent/volume-files.js';

describe('$(VAR) expansion', () => {
  const env: Record<string, string> = { POD_IP: '127.1.1.1', NAME: 'm-0' };
  const expand = (input: string) => expandVariables(input, (name) => env[name]);

  it('replaces defined variables in place', () => {
    assert.equal(
      expand('--listen-client-urls=http://$(POD_IP):2379'),
      '--listen-client-urls=http://127.1.1.1:2379',
    );
    assert.equal(expand('$(NAME)=$(POD_IP)'), 'm-0=127.1.1.1');
  });

  it('keeps undefined references and unterminated ones as written', () => {
    assert.equal(expand('$(MISSING)/x'), '$(MISSING)/x');
    assert.equal(expand('a $(POD_IP'), 'a $(POD_IP');
  });

  it('treats $$ as an escaped dollar and a lone $ literally', () => {
    assert.equal(expand('$$(POD_IP) costs $5'), '$(POD_IP) costs $5');
  });
});

describe('pod address pool', () => {
  it('gives each owner a distinct 127.<octet>.x.y and the same one on repeat', () => {
    const pool = new AddressPool(3);
    const a = pool.allocate('a');
    const b = pool.allocate('b');
    assert.equal(a, '127.3.1.1');
    assert.equal(b, '127.3.1.2');
    assert.equal(pool.allocate('a'), a);
  });

  it('does not hand a released address out again while fresh ones remain', () => {
    // GIVEN an address released by a Pod that is gone
    const pool = new AddressPool(1);
    const first = pool.allocate('gone');
    pool.release('gone');
    // WHEN another Pod asks, THEN it gets a different one
    assert.notEqual(pool.allocate('new'), first);
  });

  it('fails when the octet is outside 1..254', () => {
    assert.throws(() => new AddressPool(0), /1\.\.254, got 0/);
  });

  it('derives the octet from node-<n> names and hashes others into 1..254', () => {
    assert.equal(nodeNetworkOctet('node-2'), 2);
    const hashed = nodeNetworkOctet('worker');
    assert.ok(hashed >= 1 && hashed <= 254);
    assert.equal(nodeNetworkOctet('worker'), hashed);
  });
});

describe('crash-loop backoff', () => {
  it('doubles from the base and stops at the cap, as the kubelet (10s, 20s, 40s ... 5m)', () => {
    const delays = [1, 2, 3, 4, 5, 6, 7].map((n) => backoffDelay(kubeletBackoff, n) / 1000);
    assert.deepEqual(delays, [10, 20, 40, 80, 160, 300, 300]);
  });

  it('restarts per restartPolicy', () => {
    assert.equal(shouldRestart('Always', 0), true);
    assert.equal(shouldRestart('OnFailure', 0), false);
    assert.equal(shouldRestart('OnFailure', 1), true);
    assert.equal(shouldRestart('Never', 1), false);
  });
});

describe('probe thresholds', () => {
  it('turns ready after successThreshold successes and unready after failureThreshold failures', () => {
    const counter = new ProbeCounter({ successThreshold: 2, failureThreshold: 2 }, false);
    assert.equal(counter.record(true), undefined);
    assert.equal(counter.record(true), true);
    assert.equal(counter.record(false), undefined);
    assert.equal(counter.record(true), undefined, 'a success resets the failure count');
    assert.equal(counter.record(false), undefined);
    assert.equal(counter.record(false), false);
  });

  it('reports a startup probe failure although it was never healthy', () => {
    const counter = new ProbeCounter({ failureThreshold: 2 }, false, true);
    assert.equal(counter.record(false), undefined);
    assert.equal(counter.record(false), false);
  });
});

describe('secret and configMap volume files', () => {
  const data = { 'a.conf': 'A', b: 'B' };

  it('writes every key with the default mode 0644', () => {
    assert.deepEqual(keyFiles(data, undefined, undefined, 'secret s', false), [
      { path: 'a.conf', content: 'A', mode: 0o644 },
      { path: 'b', content: 'B', mode: 0o644 },
    ]);
  });

  it('renames selected items and applies item modes over defaultMode', () => {
    const files = keyFiles(data, [{ key: 'b', path: 'dir/b.txt', mode: 0o600 }], 0o440, 'secret s', false);
    assert.deepEqual(files, [{ path: 'dir/b.txt', content: 'B', mode: 0o600 }]);
  });

  it('fails when an item names a missing key, unless optional', () => {
    assert.throws(
      () => keyFiles(data, [{ key: 'zz', path: 'zz' }], undefined, 'secret ns/s', false),
      /couldn't find key zz in secret ns\/s/,
    );
    assert.deepEqual(keyFiles(data, [{ key: 'zz', path: 'zz' }], undefined, 'secret ns/s', true), []);
  });
});

describe('container launch script', () => {
  it('binds each mount, remounts read-only ones, then changes directory and execs', () => {
    const script = launchScript(
      [
        { source: '/state/pvc/ns/m-0-data', target: '/var/lib/etcd', readOnly: false },
        { source: "/state/it's", target: '/etc/conf', readOnly: true },
      ],
      '/var/lib/etcd',
    );
    assert.equal(
      script,
      [
        'set -e',
        "/usr/bin/mount --bind '/state/pvc/ns/m-0-data' '/var/lib/etcd'",
        `/usr/bin/mount --bind ${shellQuote("/state/it's")} '/etc/conf'`,
        "/usr/bin/mount -o remount,bind,ro '/etc/conf'",
        "cd '/var/lib/etcd' 2>/dev/null || cd /",
        'exec "$@"',
      ].join('\n'),
    );
    assert.equal(shellQuote("it's"), `'it'\\''s'`);
  });

  it('names sources under the state directory relative to it, so an earlier mount cannot hide them', () => {
    // GIVEN an emptyDir at /tmp and a token volume whose host directory is also under /tmp
    const script = launchScript(
      [
        { source: '/tmp/state/pods/u/volumes/tmp', target: '/tmp', readOnly: false },
        { source: '/tmp/state/pods/u/volumes/token', target: '/var/run/secrets/x', readOnly: true },
        { source: '/srv/host', target: '/host', readOnly: false },
      ],
      '/',
      '/tmp/state/',
    );
    // THEN the script works from the state directory and binds relative, uncanonicalized sources
    assert.equal(
      script,
      [
        'set -e',
        "cd '/tmp/state'",
        "/usr/bin/mount --no-canonicalize --bind './pods/u/volumes/tmp' '/tmp'",
        "/usr/bin/mount --no-canonicalize --bind './pods/u/volumes/token' '/var/run/secrets/x'",
        "/usr/bin/mount -o remount,bind,ro '/var/run/secrets/x'",
        "/usr/bin/mount --bind '/srv/host' '/host'",
        "cd '/' 2>/dev/null || cd /",
        'exec "$@"',
      ].join('\n'),
    );
  });
});

describe('pod network preload', () => {
  const ip = '127.1.1.4';
  const callback = () => undefined;

  it('binds listens on every interface to the Pod IP', () => {
    assert.deepEqual(podListenArgs([{ port: 8081 }], ip), [{ port: 8081, host: ip }]);
    assert.deepEqual(podListenArgs([{ host: '::', port: 8081 }, callback], ip), [
      { host: ip, port: 8081 },
      callback,
    ]);
    assert.deepEqual(podListenArgs([8080], ip), [8080, ip]);
    assert.deepEqual(podListenArgs([8080, callback], ip), [8080, ip, callback]);
    assert.deepEqual(podListenArgs([8080, '0.0.0.0', 511], ip), [8080, ip, 511]);
    assert.deepEqual(podListenArgs([callback], ip), [0, ip, callback]);
  });

  it('leaves explicit hosts, Unix sockets and handles alone', () => {
    const explicit = [{ host: '127.0.0.1', port: 8081 }];
    assert.equal(podListenArgs(explicit, ip), explicit);
    const socket = ['/tmp/x.sock'];
    assert.equal(podListenArgs(socket, ip), socket);
    const path = [{ path: '/tmp/x.sock' }];
    assert.equal(podListenArgs(path, ip), path);
    const host = [8080, 'localhost'];
    assert.equal(podListenArgs(host, ip), host);
  });
});

describe('machine-wide address claims', () => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-claims-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('skips addresses another pool holds and reclaims those of dead processes', () => {
    // GIVEN a claim left by a process that no longer runs, and a pool that holds 127.1.1.1
    writeFileSync(join(dir, '127.1.1.3'), '999999');
    const first = new AddressPool(
      1,
      fileClaims(dir, (pid) => pid !== 999999),
    );
    assert.equal(first.allocate('a'), '127.1.1.1');
    // WHEN a second pool on the same octet allocates
    const second = new AddressPool(
      1,
      fileClaims(dir, (pid) => pid !== 999999),
    );
    // THEN it skips 127.1.1.1 and takes .2, then the dead process's .3
    assert.equal(second.allocate('b'), '127.1.1.2');
    assert.equal(second.allocate('c'), '127.1.1.3');
    assert.equal(readFileSync(join(dir, '127.1.1.3'), 'utf8'), String(process.pid));
    // AND released addresses lose their claim file
    first.releaseAll();
    assert.equal(existsSync(join(dir, '127.1.1.1')), false);
  });

  it('claims again after another process removed the claims directory', () => {
    // GIVEN claims whose directory is removed after they were set up (a parallel run's cleanup)
    const gone = join(dir, 'removed');
    const claims = fileClaims(gone, () => true);
    rmSync(gone, { recursive: true, force: true });
    // WHEN an address is claimed THEN the directory is made again and the claim holds
    assert.equal(claims.claim('127.9.0.1'), true);
    assert.equal(readFileSync(join(gone, '127.9.0.1'), 'utf8'), String(process.pid));
  });
});
