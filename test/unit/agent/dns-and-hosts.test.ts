import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dnsRecords, type PodEndpoint } from '../../env/agent/dns-records.js';
import { namesTakenElsewhere, removeDeadBlocks, replaceBlock } from '../../env/agent/hosts-file.js';

const member = (name: string, ip: string, ready: boolean, extra: Partial<PodEndpoint> = {}): PodEndpoint => ({
  namespace: 'ns',
  name,
  labels: { 'app.kubernetes.io/instance': 'c' },
  hostname: name,
  subdomain: 'c-peer',
  ip,
  ready,
  terminating: false,
  ...extra,
});

describe('DNS records', () => {
  it('names Pods with hostname and subdomain <host>.<subdomain>.<ns>.svc and its cluster.local form', () => {
    const records = dnsRecords([member('c-0', '127.1.1.1', false)], []);
    assert.deepEqual(records, [
      { ip: '127.1.1.1', names: ['c-0.c-peer.ns.svc', 'c-0.c-peer.ns.svc.cluster.local'] },
    ]);
  });

  it('points a Service at its first ready endpoint only', () => {
    // GIVEN c-0 not ready and c-1 ready
    const pods = [member('c-0', '127.1.1.1', false), member('c-1', '127.1.1.2', true)];
    const client = { namespace: 'ns', name: 'c-client', selector: { 'app.kubernetes.io/instance': 'c' } };
    // THEN c-client names c-1
    const records = dnsRecords(pods, [client]);
    assert.ok(records.find((r) => r.ip === '127.1.1.2')?.names.includes('c-client.ns.svc'));
    assert.ok(!records.find((r) => r.ip === '127.1.1.1')?.names.includes('c-client.ns.svc'));
  });

  it('uses not-ready endpoints when the Service publishes them, but never terminating ones', () => {
    const pods = [
      member('c-0', '127.1.1.1', false, { terminating: true }),
      member('c-1', '127.1.1.2', false),
    ];
    const peer = {
      namespace: 'ns',
      name: 'c-peer',
      selector: { 'app.kubernetes.io/instance': 'c' },
      publishNotReadyAddresses: true,
    };
    const records = dnsRecords(pods, [peer]);
    assert.ok(records.find((r) => r.ip === '127.1.1.2')?.names.includes('c-peer.ns.svc'));
    assert.ok(!records.find((r) => r.ip === '127.1.1.1')?.names.includes('c-peer.ns.svc'));
  });

  it('publishes nothing for a Service without endpoints, another namespace, or no selector', () => {
    const pods = [member('c-0', '127.1.1.1', true, { hostname: undefined })];
    const services = [
      { namespace: 'other', name: 'x', selector: { 'app.kubernetes.io/instance': 'c' } },
      { namespace: 'ns', name: 'y' },
    ];
    assert.deepEqual(dnsRecords(pods, services), []);
  });
});

describe('hosts file block', () => {
  const original = '127.0.0.1 localhost\n';

  it('appends a marked block and replaces it on the next write', () => {
    const first = replaceBlock(original, 'node-1', 42, [{ ip: '127.1.1.1', names: ['a.ns.svc'] }]);
    assert.equal(
      first,
      `${original}# BEGIN etcd-gitops-agent node-1 42\n127.1.1.1 a.ns.svc\n# END etcd-gitops-agent node-1 42\n`,
    );
    const second = replaceBlock(first, 'node-1', 42, [{ ip: '127.1.1.2', names: ['b.ns.svc'] }]);
    assert.equal(
      second,
      `${original}# BEGIN etcd-gitops-agent node-1 42\n127.1.1.2 b.ns.svc\n# END etcd-gitops-agent node-1 42\n`,
    );
  });

  it('removes only its own block and leaves the file as it was', () => {
    const withTwo = replaceBlock(replaceBlock(original, 'node-1', 42, []), 'node-2', 42, []);
    const without = replaceBlock(withTwo, 'node-1', 42);
    assert.equal(replaceBlock(without, 'node-2', 42), original);
    assert.match(without, /node-2 42/);
    assert.doesNotMatch(without, /node-1 42/);
  });

  it('removes blocks of agents whose process is dead', () => {
    const content = replaceBlock(replaceBlock(original, 'node-1', 111, []), 'node-1', 222, []);
    const cleaned = removeDeadBlocks(content, (pid) => pid === 222);
    assert.doesNotMatch(cleaned, / 111\n/);
    assert.match(cleaned, /# BEGIN etcd-gitops-agent node-1 222\n# END etcd-gitops-agent node-1 222\n/);
  });

  it('names what another agent already publishes, and nothing of its own block', () => {
    const entries = [
      { ip: '127.1.1.9', names: ['m-0.m.ns.svc', 'm-0.m.ns.svc.cluster.local', 'free.ns.svc'] },
    ];
    let content = replaceBlock(original, 'node-1', 111, [{ ip: '127.1.1.1', names: ['m-0.m.ns.svc'] }]);
    content = replaceBlock(content, 'node-1', 222, entries);
    const taken = namesTakenElsewhere(content, 'node-1', 222, entries);
    assert.deepEqual([...taken], [['m-0.m.ns.svc', 'node-1 111']]);
    assert.deepEqual([...namesTakenElsewhere(content, 'node-1', 111, [])], []);
    assert.deepEqual([...namesTakenElsewhere(original, 'node-1', 222, entries)], []);
  });
});
