import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseDefragArgs } from '../../../controller/defrag/cli-args.js';
import { DefragError } from '../../../controller/defrag/exit-codes.js';

const base = ['--endpoints=http://main-client.ns.svc:2379', '--namespace=ns', '--cluster=main'];

describe('defrag CLI flags', () => {
  const usage: [string, string[], RegExp][] = [
    ['a missing quota', base, /quota-backend-bytes/],
    ['a quota of 0', [...base, '--quota-backend-bytes=0'], /quota-backend-bytes/],
    ['a quota that is not a number', [...base, '--quota-backend-bytes=16Mi'], /quota-backend-bytes/],
    [
      '--cert without --key',
      [...base, '--quota-backend-bytes=1', '--cert=/c'],
      /'--cert' and '--key' go together/,
    ],
    ['an unknown flag', [...base, '--quota-backend-bytes=1', '--compact'], /compact/],
  ];
  for (const [name, argv, message] of usage) {
    it(`refuses ${name} as USAGE`, () => {
      assert.throws(
        () => parseDefragArgs(argv),
        (error: unknown) =>
          error instanceof DefragError && error.code === 'USAGE' && message.test(error.message),
      );
    });
  }
});
