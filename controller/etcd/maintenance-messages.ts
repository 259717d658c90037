// The two Maintenance responses the backup and restore commands read, decoded from the wire. Field numbers are
// etcd's api/etcdserverpb/rpc.proto (the same in 3.4, 3.5 and 3.6; fields etcd added later are skipped). 64-bit
// numbers are decimal strings, as etcd3 gives them.
import { int64, readFields, text, uint64 } from './proto-wire.js';

/** `etcdserverpb.ResponseHeader`. */
export interface ResponseHeader {
  readonly clusterId: string;
  readonly memberId: string;
  readonly revision: string;
  readonly raftTerm: string;
}

/** What we read of `etcdserverpb.StatusResponse`. */
export interface StatusResponse {
  readonly header: ResponseHeader;
  /** The member's etcd version, e.g. `3.6.16`. */
  readonly version: string;
  readonly raftAppliedIndex: string;
  readonly isLearner: boolean;
}

/** `etcdserverpb.SnapshotResponse`, without 3.6's `version`. */
export interface SnapshotResponse {
  /** Bytes of the snapshot still to come after this message. */
  readonly remainingBytes: bigint;
  /** The next bytes of the snapshot: a view of the received message. */
  readonly blob: Buffer;
}

const EMPTY: Buffer = Buffer.alloc(0);

export function decodeResponseHeader(message: Buffer): ResponseHeader {
  const header = { clusterId: '0', memberId: '0', revision: '0', raftTerm: '0' };
  readFields(
    message,
    (field, value) => {
      if (field === 1) header.clusterId = uint64(value);
      else if (field === 2) header.memberId = uint64(value);
      else if (field === 3) header.revision = int64(value);
      else if (field === 4) header.raftTerm = uint64(value);
    },
    () => {},
  );
  return header;
}

export function decodeStatusResponse(message: Buffer): StatusResponse {
  let header: Buffer = EMPTY;
  let version = '';
  let raftAppliedIndex = '0';
  let isLearner = false;
  readFields(
    message,
    (field, value) => {
      if (field === 7) raftAppliedIndex = uint64(value);
      else if (field === 10) isLearner = value !== 0n;
    },
    (field, value) => {
      if (field === 1) header = value;
      else if (field === 2) version = text(value);
    },
  );
  return { header: decodeResponseHeader(header), version, raftAppliedIndex, isLearner };
}

export function decodeSnapshotResponse(message: Buffer): SnapshotResponse {
  let remainingBytes = 0n;
  let blob: Buffer = EMPTY;
  readFields(
    message,
    (field, value) => {
      if (field === 2) remainingBytes = BigInt.asUintN(64, value);
    },
    (field, value) => {
      if (field === 3) blob = value;
    },
  );
  return { remainingBytes, blob };
}
