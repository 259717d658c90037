import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseSaveArgs, parseStatusArgs } from '../../../controller/backup/cli-args.js';

const base = ['--endpoints=http://main-client.ns.svc:2379', '--namespace=ns', '--cluster=main', '--bucket=b'];

describe('backup CLI flags', () => {
  it('maps the CronJob flags to save options with documented defaults', () => {
    const options = parseSaveArgs(base);
    assert.deepEqual(options.endpoints, ['http://main-client.ns.svc:2379']);
    assert.equal(options.keyTemplate, '{namespace}/{cluster}/{timestamp}-rev{revision}.db');
    assert.equal(options.compression, 'none');
    assert.deepEqual(options.s3, {
      endpoint: undefined,
      region: 'us-east-1',
      forcePathStyle: false,
      checksumMode: 'when-required',
    });
    assert.equal(options.encryption, undefined);
  });

  it('reads every optional flag', () => {
    const options = parseSaveArgs([
      ...base,
      '--endpoints=https://a:2379, https://b:2379',
      '--s3-endpoint=http://127.0.0.1:9000',
      '--force-path-style',
      '--region=eu-west-1',
      '--checksum-mode=when-supported',
      '--sse=aws:kms',
      '--sse-kms-key-id=k1',
      '--compression=gzip',
      '--keep-last=14',
      '--max-age=1d12h',
      '--cacert=/ca',
      '--cert=/crt',
      '--key=/key',
      '--part-size-mib=16',
      '--queue-size=4',
    ]);
    assert.deepEqual(options.endpoints, ['https://a:2379', 'https://b:2379']);
    assert.deepEqual(options.s3, {
      endpoint: 'http://127.0.0.1:9000',
      region: 'eu-west-1',
      forcePathStyle: true,
      checksumMode: 'when-supported',
    });
    assert.deepEqual(options.encryption, { algorithm: 'aws:kms', kmsKeyId: 'k1' });
    assert.deepEqual(options.retention, { keepLast: 14, maxAgeMs: 36 * 3_600_000 });
    assert.deepEqual(options.etcdTls, { caFile: '/ca', certFile: '/crt', keyFile: '/key' });
    assert.equal(options.partSizeBytes, 16 * 1024 * 1024);
    assert.equal(options.queueSize, 4);
  });

  const failures: [string, string[], RegExp][] = [
    ['--bucket is missing', base.slice(0, 3), /'--bucket' is required/],
    [
      '--checksum-mode is unknown',
      [...base, '--checksum-mode=crc64'],
      /'--checksum-mode' must be one of when-required, when-supported, got 'crc64'/,
    ],
    [
      '--keep-last is not a number',
      [...base, '--keep-last=seven'],
      /'--keep-last' must be a whole number of at least 1, got 'seven'/,
    ],
    [
      '--max-age has no unit',
      [...base, '--max-age=30'],
      /'--max-age' must be a positive duration .*, got '30'/,
    ],
    ['--max-age is zero', [...base, '--max-age=0h'], /'--max-age' must be a positive duration .*, got '0h'/],
    ['--cert comes without --key', [...base, '--cert=/crt'], /'--cert' and '--key' go together/],
    [
      'an endpoint is not a URL',
      ['--endpoints=main-client:2379', ...base.slice(1)],
      /'--endpoints' must be an http\(s\) URL, got 'main-client:2379'/,
    ],
    [
      '--sse-kms-key-id comes without aws:kms',
      [...base, '--sse=AES256', '--sse-kms-key-id=k'],
      /'--sse-kms-key-id' needs --sse=aws:kms, got --sse=AES256/,
    ],
    ['a flag is unknown', [...base, '--bucket-name=x'], /unknown flag '--bucket-name'/],
  ];
  for (const [name, args, message] of failures) {
    it(`fails when ${name}`, () => {
      assert.throws(
        () => parseSaveArgs(args),
        (error: Error & { code?: string }) => {
          assert.equal(error.code, 'USAGE');
          assert.match(error.message, message);
          return true;
        },
      );
    });
  }

  it('reads status flags', () => {
    const options = parseStatusArgs(['--bucket=b', '--prefix=ns/main/', '--verify', '--output=json']);
    assert.equal(options.prefix, 'ns/main/');
    assert.equal(options.verify, true);
    assert.equal(options.output, 'json');
  });

  it('fails when --output is unknown', () => {
    assert.throws(
      () => parseStatusArgs(['--bucket=b', '--output=yaml']),
      /'--output' must be one of table, json, got 'yaml'/,
    );
  });
});
