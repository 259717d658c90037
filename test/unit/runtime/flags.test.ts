import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseBindAddress } from '../../../controller/runtime/bind-address.js';
import { parseControllerFlags } from '../../../controller/runtime/flags.js';

describe('parseControllerFlags', () => {
  it('takes the Deployment flags of the operator', () => {
    // GIVEN the arguments the operator Deployment passes, and the downward-API namespace
    const argv = ['--leader-elect', '--metrics-bind-address=:8080', '--health-probe-bind-address=:8081'];
    // WHEN parsed
    const flags = parseControllerFlags(argv, { POD_NAMESPACE: 'ops' });
    // THEN leader election is on, in the Pod's namespace, with controller-runtime's default timings
    assert.equal(flags.leaderElect, true);
    assert.equal(flags.leaderElectionNamespace, 'ops');
    assert.equal(flags.leaderElectionId, 'etcd-gitops-controller');
    assert.deepEqual(
      [flags.leaseDurationMs, flags.renewDeadlineMs, flags.retryPeriodMs],
      [15_000, 10_000, 2_000],
    );
    assert.deepEqual(flags.metricsBindAddress, { host: undefined, port: 8080 });
    assert.deepEqual(flags.healthProbeBindAddress, { host: undefined, port: 8081 });
    assert.equal(flags.concurrency, 4);
    assert.equal(flags.resyncPeriodMs, 300_000);
    assert.equal(flags.watchNamespaces, undefined);
  });

  it('defaults the lease namespace to etcd-gitops-system and leader election to off', () => {
    const flags = parseControllerFlags([], {});
    assert.equal(flags.leaderElectionNamespace, 'etcd-gitops-system');
    assert.equal(flags.leaderElect, false);
  });

  it('takes values after a space or an equals sign', () => {
    const flags = parseControllerFlags(
      [
        '--concurrency',
        '2',
        '--resync-period=1m30s',
        '--watch-namespaces',
        'team-a,team-b',
        '--leader-elect=false',
        '--log-level=debug',
      ],
      {},
    );
    assert.deepEqual(
      [flags.concurrency, flags.resyncPeriodMs, flags.watchNamespaces, flags.leaderElect, flags.logLevel],
      [2, 90_000, ['team-a', 'team-b'], false, 'debug'],
    );
  });

  const failures: Array<[string, string[], RegExp]> = [
    [
      'fails when a flag is unknown',
      ['--metrics-addr=:8080'],
      /unknown flag '--metrics-addr'; flags: --leader-elect, /,
    ],
    [
      'fails when concurrency is zero',
      ['--concurrency=0'],
      /'--concurrency' must be a whole number of at least 1, got '0'/,
    ],
    ['fails when a duration has no unit', ['--resync-period=300'], /'--resync-period' must be a duration/],
    ['fails when a value is missing', ['--watch-namespaces'], /'--watch-namespaces' needs a value/],
    [
      'fails when the log level is unknown',
      ['--log-level=loud'],
      /'--log-level' must be one of .*got 'loud'/,
    ],
    [
      'fails when leader-elect is not a boolean',
      ['--leader-elect=yes'],
      /'--leader-elect' must be true or false/,
    ],
    [
      'fails when the renew deadline is not shorter than the lease',
      ['--lease-duration=5s', '--renew-deadline=5s'],
      /--lease-duration > --renew-deadline > --retry-period/,
    ],
  ];
  for (const [name, argv, message] of failures) {
    it(name, () => assert.throws(() => parseControllerFlags(argv, {}), message));
  }
});

describe('parseBindAddress', () => {
  const table: Array<[string, ReturnType<typeof parseBindAddress>]> = [
    [':8080', { host: undefined, port: 8080 }],
    ['127.0.0.1:0', { host: '127.0.0.1', port: 0 }],
    ['[::1]:9090', { host: '::1', port: 9090 }],
    ['0', undefined],
  ];
  for (const [value, expected] of table) {
    it(`reads '${value}'`, () => assert.deepEqual(parseBindAddress('--x', value), expected));
  }
  it('fails when the port is missing or out of range', () => {
    assert.throws(
      () => parseBindAddress('--metrics-bind-address', '8080'),
      /'--metrics-bind-address' must be/,
    );
    assert.throws(() => parseBindAddress('--metrics-bind-address', ':70000'), /got ':70000'/);
  });
});
