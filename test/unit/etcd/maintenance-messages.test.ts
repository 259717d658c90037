// Our decoder against protobufjs as the oracle: protobufjs encodes etcd's messages from the rpc.proto that etcd3
// ships, our decoder reads them back.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import protobuf from 'protobufjs';
import {
  decodeSnapshotResponse,
  decodeStatusResponse,
} from '../../../controller/etcd/maintenance-messages.js';

const rpcProto = join(dirname(createRequire(import.meta.url).resolve('etcd3')), '..', 'proto', 'rpc.proto');
// protobufjs names the fields in camelCase (cluster_id is clusterId) unless told to keep their case.
const root = protobuf.loadSync(rpcProto);
const StatusResponse = root.lookupType('etcdserverpb.StatusResponse');
const SnapshotResponse = root.lookupType('etcdserverpb.SnapshotResponse');

const encode = (type: protobuf.Type, fields: Record<string, unknown>): Buffer =>
  Buffer.from(type.encode(type.fromObject(fields)).finish());

/** A field etcd added after the rpc.proto etcd3 ships (3.6's `SnapshotResponse.version`, field 4; 3.6's
 *  `StatusResponse.storageVersion`, field 11; `dbSizeQuota`, field 12), encoded by protobufjs's writer. */
const newerFields = (): Buffer =>
  Buffer.from(
    protobuf.Writer.create()
      .uint32((4 << 3) | 2)
      .string('3.6.0')
      .uint32((11 << 3) | 2)
      .string('3.6.0')
      .uint32((12 << 3) | 0)
      .uint64(2147483648)
      .finish(),
  );

const MAX_UINT64 = '18446744073709551615';

const learnerAtLimits = {
  header: { clusterId: MAX_UINT64, memberId: MAX_UINT64, revision: '9223372036854775807', raftTerm: '1' },
  version: '3.5.35',
  raftAppliedIndex: MAX_UINT64,
  isLearner: true,
};

describe('decodeStatusResponse', () => {
  const rows: [string, Record<string, unknown>, ReturnType<typeof decodeStatusResponse>][] = [
    [
      'a voting member, every field set',
      {
        header: {
          clusterId: '14841639068965178418',
          memberId: '10276657743932975437',
          revision: '9001',
          raftTerm: '7',
        },
        version: '3.6.16',
        dbSize: '335544320',
        leader: '10276657743932975437',
        raftIndex: '123456',
        raftTerm: '7',
        raftAppliedIndex: '123455',
        errors: ['NOSPACE'],
        dbSizeInUse: '268435456',
        isLearner: false,
      },
      {
        header: {
          clusterId: '14841639068965178418',
          memberId: '10276657743932975437',
          revision: '9001',
          raftTerm: '7',
        },
        version: '3.6.16',
        raftAppliedIndex: '123455',
        isLearner: false,
      },
    ],
    // protobufjs's camelCase names are ours here, so the fields given are the fields expected.
    ['a learner with 64-bit ids at their largest', learnerAtLimits, learnerAtLimits],
    [
      'an empty message (every field its default)',
      {},
      {
        header: { clusterId: '0', memberId: '0', revision: '0', raftTerm: '0' },
        version: '',
        raftAppliedIndex: '0',
        isLearner: false,
      },
    ],
  ];
  for (const [name, fields, expected] of rows) {
    it(`reads ${name}`, () =>
      assert.deepEqual(decodeStatusResponse(encode(StatusResponse, fields)), expected));
  }

  it('skips the fields etcd added later', () => {
    const message = Buffer.concat([
      encode(StatusResponse, { version: '3.6.16', isLearner: true }),
      newerFields(),
    ]);
    const status = decodeStatusResponse(message);
    assert.equal(status.version, '3.6.16');
    assert.equal(status.isLearner, true);
  });
});

describe('decodeSnapshotResponse', () => {
  it('reads remaining_bytes and the blob, the blob as a view of the message', () => {
    const blob = Buffer.alloc(32 * 1024, 0xab);
    const message = encode(SnapshotResponse, {
      header: { clusterId: '1', memberId: '2', revision: '3', raftTerm: '4' },
      remainingBytes: '336592928',
      blob,
    });
    const response = decodeSnapshotResponse(message);
    assert.equal(response.remainingBytes, 336592928n);
    assert.ok(response.blob.equals(blob));
    assert.equal(response.blob.buffer, message.buffer);
  });

  it('reads the last message: remaining_bytes 0 is left out on the wire and reads as 0', () => {
    const message = encode(SnapshotResponse, { remainingBytes: '0', blob: Buffer.from('tail') });
    const response = decodeSnapshotResponse(message);
    assert.equal(response.remainingBytes, 0n);
    assert.equal(response.blob.toString(), 'tail');
  });

  it("skips etcd 3.6's version field", () => {
    const message = Buffer.concat([
      encode(SnapshotResponse, { remainingBytes: '5', blob: Buffer.from('x') }),
      newerFields(),
    ]);
    const response = decodeSnapshotResponse(message);
    assert.equal(response.remainingBytes, 5n);
    assert.equal(response.blob.toString(), 'x');
  });

  it('reads remaining_bytes beyond 2^53 exactly', () => {
    const message = encode(SnapshotResponse, { remainingBytes: '9007199254740993' });
    assert.equal(decodeSnapshotResponse(message).remainingBytes, 9007199254740993n);
  });
});
