// Reads the protobuf wire format (https://protobuf.dev/programming-guides/encoding/), as much of it as etcd's
// Maintenance responses use: varints and length-delimited fields, with 32- and 64-bit fixed fields skipped.
// Length-delimited values are views of the message, never copies. Why a reader of our own and not protobufjs:
// docs/adr/0009-own-maintenance-client.md.

/** Wire types (the low 3 bits of a field's tag). Groups (3, 4) are deprecated and never used by etcd. */
const WireType = { VARINT: 0, FIXED64: 1, LEN: 2, FIXED32: 5 } as const;

/** A message the reader cannot read: truncated, or with a wire type it does not know. */
export class WireFormatError extends Error {
  constructor(message: string) {
    super(`malformed protobuf message: ${message}`);
    this.name = 'WireFormatError';
  }
}

/**
 * Calls `onVarint` or `onBytes` for each varint or length-delimited field of `message`, in order, with its field
 * number. Fixed-width fields are skipped. Throws `WireFormatError` on a truncated message or an unknown wire type.
 */
export function readFields(
  message: Buffer,
  onVarint: (field: number, value: bigint) => void,
  onBytes: (field: number, value: Buffer) => void,
): void {
  let pos = 0;
  const end = message.length;
  const varint = (): bigint => {
    let value = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      if (pos >= end) throw new WireFormatError(`a varint runs past the end (${end} bytes)`);
      const byte = message[pos++] as number;
      value |= BigInt(byte & 0x7f) << shift;
      if (byte < 0x80) return value;
    }
    throw new WireFormatError(`a varint is longer than 10 bytes at byte ${pos}`);
  };
  const skip = (bytes: number): void => {
    if (pos + bytes > end)
      throw new WireFormatError(`a field of ${bytes} bytes runs past the end (${end} bytes)`);
    pos += bytes;
  };
  while (pos < end) {
    const tag = varint();
    const field = Number(tag >> 3n);
    const wireType = Number(tag & 7n);
    if (field === 0) throw new WireFormatError(`field number 0 at byte ${pos}`);
    switch (wireType) {
      case WireType.VARINT:
        onVarint(field, varint());
        break;
      case WireType.LEN: {
        const length = varint();
        if (length > BigInt(end - pos))
          throw new WireFormatError(`field ${field} of ${length} bytes runs past the end (${end} bytes)`);
        const start = pos;
        pos += Number(length);
        onBytes(field, message.subarray(start, pos));
        break;
      }
      case WireType.FIXED64:
        skip(8);
        break;
      case WireType.FIXED32:
        skip(4);
        break;
      default:
        throw new WireFormatError(`field ${field} has wire type ${wireType} (allowed: 0, 1, 2, 5)`);
    }
  }
}

/** A uint64 as the decimal string etcd3 (and our callers) use for ids and indexes. */
export const uint64 = (value: bigint): string => BigInt.asUintN(64, value).toString();

/** An int64 (two's complement in a varint) as a decimal string. */
export const int64 = (value: bigint): string => BigInt.asIntN(64, value).toString();

/** A `string` field's bytes as text. */
export const text = (value: Buffer): string => value.toString('utf8');
