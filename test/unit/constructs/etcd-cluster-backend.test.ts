// Compaction, quota and extra flags as construct props: emitted into the spec, refused at synth time by name.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Duration, Size } from 'cdk8s';
import { EtcdCluster, type EtcdClusterProps } from '../../../constructs/index.js';
import { clusterChart, only, synth } from './helpers.js';

function spec(props: Partial<EtcdClusterProps>) {
  const chart = clusterChart('etcd-test');
  new EtcdCluster(chart, 'main', { version: '3.6.16', ...props });
  return only(synth(chart), 'EtcdCluster', 'main').spec;
}

describe('EtcdCluster backend props', () => {
  it('GIVEN no backend props THEN the spec leaves compaction, quota and flags to their documented defaults', () => {
    const written = spec({});
    assert.equal(written.autoCompaction, undefined);
    assert.equal(written.quotaBackendBytes, undefined);
    assert.equal(written.extraFlags, undefined);
  });

  it('GIVEN a Duration retention, a Size quota and extra flags THEN the spec carries them in its grammar', () => {
    const written = spec({
      storage: { size: '10Gi' },
      autoCompaction: { retention: Duration.hours(36) },
      quotaBackendBytes: Size.gibibytes(4),
      extraFlags: { 'snapshot-count': '50000' },
    });
    assert.deepEqual(written.autoCompaction, { mode: 'periodic', retention: '1d12h' });
    assert.equal(written.quotaBackendBytes, '4Gi');
    assert.deepEqual(written.extraFlags, { 'snapshot-count': '50000' });
  });

  it('GIVEN revision mode with a count THEN the retention is that count', () => {
    assert.deepEqual(spec({ autoCompaction: { mode: 'revision', retention: 10000 } }).autoCompaction, {
      mode: 'revision',
      retention: '10000',
    });
  });

  const refusals: [string, Partial<EtcdClusterProps>, RegExp][] = [
    [
      'a flag the controller owns',
      { extraFlags: { 'data-dir': '/tmp' } },
      /^Error: extraFlags: 'data-dir' is not allowed; allowed: a flag the product does not set \(the controller \(the member volume\) sets it\)$/,
    ],
    [
      'a flag a spec field owns',
      { extraFlags: { 'quota-backend-bytes': '1' } },
      /^Error: extraFlags: 'quota-backend-bytes' is not allowed; allowed: .*spec\.quotaBackendBytes sets it/,
    ],
    [
      'a flag written with its dashes',
      { extraFlags: { '--snapshot-count': '1' } },
      /^Error: extraFlags: '--snapshot-count' is not allowed; allowed: an etcd flag name without its leading --/,
    ],
    [
      'a quota above the volume',
      { storage: { size: '1Gi' }, quotaBackendBytes: '2Gi' },
      /^Error: quotaBackendBytes: '2Gi' is not allowed; allowed: .* to the volume size \(1Gi\)$/,
    ],
    [
      'a quota below 1Mi',
      { quotaBackendBytes: 1000 },
      /^Error: quotaBackendBytes: '1000' is not allowed; allowed: bytes such as .* from 1Mi/,
    ],
    [
      'a periodic retention that is not a duration',
      { autoCompaction: { retention: 'hourly' } },
      /^Error: 'autoCompaction.retention' must be a positive duration such as .*, got 'hourly'$/,
    ],
    [
      'a periodic retention under a second',
      { autoCompaction: { retention: '500ms' } },
      /^Error: autoCompaction\.retention: '500ms' is not allowed; allowed: in periodic mode, a duration of at least 1s/,
    ],
    [
      'a revision retention that is not a count',
      { autoCompaction: { mode: 'revision', retention: '1h' } },
      /^Error: autoCompaction\.retention: '1h' is not allowed; allowed: in revision mode, a whole number of revisions/,
    ],
  ];
  for (const [what, props, message] of refusals) {
    it(`GIVEN ${what} THEN synth fails naming the prop, the value and what is allowed`, () => {
      assert.throws(() => spec(props), message);
    });
  }
});
