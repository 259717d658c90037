// Pure parts of `restore fetch`: version rules, tool lookup, flags.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseFetchArgs } from '../../../controller/restore/cli-args.js';
import {
  RESTORE_REVISION_BUMP,
  restoreToolOf,
  restoreToolPath,
  snapshotVersionProblem,
} from '../../../controller/restore/etcd-version.js';
import { RestoreError } from '../../../controller/restore/exit-codes.js';
import { restoreArgs } from '../../../controller/restore/snapshot-restore.js';

describe('snapshotVersionProblem', () => {
  for (const [snapshot, cluster] of [
    ['3.5.17', '3.5.17'],
    ['3.5.21', '3.5.2'],
    ['3.5.17', '3.6.16'],
    ['3.4.23', '3.6.0'],
  ] as const) {
    it(`GIVEN a ${snapshot} snapshot WHEN the cluster runs ${cluster} THEN it may be restored`, () =>
      assert.equal(snapshotVersionProblem(snapshot, cluster), undefined));
  }
  for (const [snapshot, cluster, message] of [
    ['3.6.16', '3.5.17', /newer than the cluster's 3\.5\.17/],
    ['4.0.0', '3.6.16', /newer/],
    ['', '3.6.16', /records no usable etcd version/],
    ['v3.6.1', '3.6.16', /records no usable etcd version \('v3\.6\.1'\)/],
    ['3.6.16', 'latest', /'latest' is not X\.Y\.Z/],
  ] as const) {
    it(`fails when a '${snapshot}' snapshot goes into a '${cluster}' cluster`, () =>
      assert.match(snapshotVersionProblem(snapshot, cluster) ?? '', message));
  }
});

describe('restoreToolPath', () => {
  for (const [version, path] of [
    ['3.4.23', '/app/etcd/v3.4/etcdctl'],
    ['3.5.17', '/app/etcd/v3.5/etcdutl'],
    ['3.6.16', '/app/etcd/v3.6/etcdutl'],
  ] as const) {
    it(`finds ${path} for ${version}`, () => assert.equal(restoreToolPath('/app/etcd/', version), path));
  }
});

describe('restoreToolOf', () => {
  for (const [version, name, revisionBump] of [
    ['3.4.23', 'etcdctl', 0],
    ['3.5.17', 'etcdutl', RESTORE_REVISION_BUMP],
    ['3.6.16', 'etcdutl', RESTORE_REVISION_BUMP],
  ] as const) {
    it(`restores ${version} with ${name}, raising the revision by ${revisionBump}`, () =>
      assert.deepEqual(
        { ...restoreToolOf(version) },
        { name, revisionBump, minorDir: `v${version.slice(0, 3)}` },
      ));
  }
  it('refuses a version that is not X.Y.Z', () =>
    assert.throws(() => restoreToolOf('3.6'), /'3.6' is not X.Y.Z/));
});

describe('parseFetchArgs', () => {
  const base = [
    '--bucket=b',
    '--etcd-version=3.5.17',
    '--name=main-3',
    '--initial-advertise-peer-urls=http://main-3.main-peer.ns.svc:2380',
    '--initial-cluster-token=tok',
  ];

  it('GIVEN a key and no tool flag THEN the tool comes from ETCD_GITOPS_ETCD_TOOLS by minor', () => {
    const options = parseFetchArgs([...base, '--key=k.db'], { ETCD_GITOPS_ETCD_TOOLS: '/opt/tools' });
    assert.deepEqual(options.source, { bucket: 'b', key: 'k.db' });
    assert.equal(options.restoreTool, '/opt/tools/v3.5/etcdutl');
    assert.equal(options.dataDir, '/var/lib/etcd/data');
    assert.equal(options.s3.checksumMode, 'when-required');
  });

  it('GIVEN --etcdutl THEN it wins over the lookup', () => {
    const options = parseFetchArgs([...base, '--latest-under-prefix=p/', '--etcdutl=/x/etcdutl'], {});
    assert.deepEqual(options.source, { bucket: 'b', latestUnderPrefix: 'p/' });
    assert.equal(options.restoreTool, '/x/etcdutl');
  });

  for (const [name, args, message] of [
    [
      'neither key nor prefix',
      base,
      /exactly one of '--key' .* and '--latest-under-prefix' .* is required, got neither/,
    ],
    ['both key and prefix', [...base, '--key=k', '--latest-under-prefix=p/'], /exactly one of/],
    [
      'the token is missing',
      base.filter((a) => !a.includes('token')).concat('--key=k'),
      /--initial-cluster-token/,
    ],
    [
      'the peer URL is not a URL',
      [...base.slice(0, 3), '--initial-advertise-peer-urls=main-3', '--initial-cluster-token=t', '--key=k'],
      /must be an http\(s\) URL/,
    ],
    ['an unknown flag is given', [...base, '--key=k', '--prefix=p'], /unknown flag '--prefix'/],
  ] as const) {
    it(`fails when ${name}`, () =>
      assert.throws(
        () => parseFetchArgs([...args], {}),
        (error: unknown) =>
          error instanceof RestoreError && error.reason === 'InvalidArguments' && message.test(error.message),
      ));
  }
});

describe('restoreArgs', () => {
  const seed = { name: 'm-3', peerURL: 'http://m-3:2380', token: 't' };
  const identity = [
    'snapshot',
    'restore',
    '/v/restore/snapshot.db',
    '--data-dir=/v/restore/data',
    '--name=m-3',
    '--initial-advertise-peer-urls=http://m-3:2380',
    '--initial-cluster=m-3=http://m-3:2380',
    '--initial-cluster-token=t',
  ];
  it('names the seed, its peer URL, a one-member initial cluster and the fresh token; no bump when 0', () =>
    assert.deepEqual(restoreArgs('/v/restore/snapshot.db', '/v/restore/data', seed, 0), identity));
  it('raises the revision by the bump and marks it compacted, as etcd requires with a bump', () =>
    assert.deepEqual(restoreArgs('/v/restore/snapshot.db', '/v/restore/data', seed, 1_000_000_000), [
      ...identity,
      '--bump-revision=1000000000',
      '--mark-compacted',
    ]));
});
