// The drill verbs' flags → options: the defaults the drill Pod relies on (docs/design/restore-drill.md).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_KEY_TEMPLATE } from '../../../constructs/conventions/backup.js';
import {
  DRILL_CLIENT_URL,
  DRILL_DATA_DIR,
  DRILL_RESTORED_FILE,
} from '../../../constructs/conventions/drill.js';
import { parseDrillCheckArgs, parseDrillFetchArgs } from '../../../controller/drill/cli-args.js';
import { DrillError } from '../../../controller/drill/exit-codes.js';

describe('drill flags', () => {
  it('GIVEN only the required fetch flags WHEN parsed THEN the Pod defaults apply', () => {
    const options = parseDrillFetchArgs(
      ['--namespace=team-a', '--cluster=main', '--bucket=backups', '--etcd-version=3.6.16'],
      { ETCD_GITOPS_ETCD_TOOLS: '/tools' },
    );
    assert.deepEqual(options, {
      namespace: 'team-a',
      cluster: 'main',
      bucket: 'backups',
      keyTemplate: DEFAULT_KEY_TEMPLATE,
      s3: { endpoint: undefined, region: 'us-east-1', forcePathStyle: false, checksumMode: 'when-required' },
      etcdVersion: '3.6.16',
      dataDir: DRILL_DATA_DIR,
      restoredFile: DRILL_RESTORED_FILE,
      restoreTool: '/tools/v3.6/etcdutl',
      terminationLogPath: undefined,
    });
  });

  it('GIVEN no check flags WHEN parsed THEN it checks the loopback etcd for 2 minutes', () => {
    assert.deepEqual(parseDrillCheckArgs([]), {
      restoredFile: DRILL_RESTORED_FILE,
      endpoint: DRILL_CLIENT_URL,
      waitMs: 120_000,
      terminationLogPath: undefined,
    });
  });

  for (const [what, argv, pattern] of [
    ['a fetch without --cluster', ['--namespace=a', '--bucket=b', '--etcd-version=3.6.16'], /--cluster/],
    ['a wait that is no duration', ['--wait=soon'], /--wait.*soon/],
  ] as const) {
    it(`GIVEN ${what} WHEN parsed THEN USAGE names the flag`, () => {
      const parse = argv[0]?.startsWith('--wait')
        ? () => parseDrillCheckArgs(argv)
        : () => parseDrillFetchArgs(argv);
      assert.throws(parse, (error: unknown) => {
        assert.ok(error instanceof DrillError);
        assert.equal(error.code, 'USAGE');
        assert.match(error.message, pattern);
        return true;
      });
    });
  }
});
