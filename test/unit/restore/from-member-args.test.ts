// `restore from-member` flags (docs/design/restore.md, "Recovery from a surviving member"): the same seed identity
// and tool defaults as `restore fetch`, the member to copy named by URL and id, TLS files as a pair.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { restoreFromMember } from '../../../constructs/conventions/cli/restore-from-member.js';
import { parseFromMemberArgs } from '../../../controller/restore/cli-args.js';
import { RestoreError } from '../../../controller/restore/exit-codes.js';

const base = {
  memberUrl: 'https://main-2.main-peer.ns.svc:2379',
  memberId: '1234567890123',
  etcdVersion: '3.6.16',
  name: 'main-3',
  initialAdvertisePeerUrls: 'https://main-3.main-peer.ns.svc:2380',
  initialClusterToken: 'main-abc-123',
};

describe('restore from-member flags', () => {
  it('round-trips through the args the controller writes, with the image defaults', () => {
    const args = restoreFromMember.args({
      ...base,
      cacert: '/tls/ca.crt',
      cert: '/tls/tls.crt',
      key: '/tls/tls.key',
    });
    assert.deepEqual(args.slice(0, 2), ['restore', 'from-member']);
    const options = parseFromMemberArgs(args.slice(2), {});
    assert.deepEqual(options, {
      memberUrl: base.memberUrl,
      memberId: base.memberId,
      tls: { caFile: '/tls/ca.crt', certFile: '/tls/tls.crt', keyFile: '/tls/tls.key' },
      dataDir: '/var/lib/etcd/data',
      clusterVersion: '3.6.16',
      seed: { name: 'main-3', peerURL: base.initialAdvertisePeerUrls, token: 'main-abc-123' },
      restoreTool: '/app/etcd/v3.6/etcdutl',
    });
  });

  it('refuses a member id that is not a decimal id, and a certificate without its key, naming the flag', () => {
    const refused = (argv: string[]) =>
      assert.throws(
        () => parseFromMemberArgs(argv, {}),
        (error: unknown) => error instanceof RestoreError && error.reason === 'InvalidArguments',
      );
    const good = restoreFromMember.encode(base);
    refused(good.map((arg) => (arg.startsWith('--member-id=') ? '--member-id=0x12ab' : arg)));
    refused([...good, '--cert=/tls/tls.crt']);
    assert.throws(() => parseFromMemberArgs([...good, '--cert=/c'], {}), /'--cert' and '--key' go together/);
    assert.throws(
      () =>
        parseFromMemberArgs(
          good.map((a) => (a.startsWith('--member-id=') ? '--member-id=abc' : a)),
          {},
        ),
      /'--member-id' is a decimal etcd member id, got 'abc'/,
    );
  });
});
