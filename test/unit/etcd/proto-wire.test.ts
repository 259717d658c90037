import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { int64, readFields, uint64, WireFormatError } from '../../../controller/etcd/proto-wire.js';

/** Every field `readFields` reports, in order, as [field, value]: varints as bigint, bytes as hex. */
function fieldsOf(message: Buffer): [number, bigint | string][] {
  const seen: [number, bigint | string][] = [];
  readFields(
    message,
    (field, value) => seen.push([field, value]),
    (field, value) => seen.push([field, value.toString('hex')]),
  );
  return seen;
}

const hex = (text: string): Buffer => Buffer.from(text.replace(/ /g, ''), 'hex');

describe('readFields', () => {
  // The encodings are the examples of https://protobuf.dev/programming-guides/encoding/ and their neighbours.
  const rows: [string, string, [number, bigint | string][]][] = [
    ['an empty message', '', []],
    ['field 1 = 150', '08 96 01', [[1, 150n]]],
    [
      'field 1 = 0 and field 2 = 1',
      '08 00 10 01',
      [
        [1, 0n],
        [2, 1n],
      ],
    ],
    ['the largest one-byte varint, 127', '08 7f', [[1, 127n]]],
    ['the smallest two-byte varint, 128', '08 80 01', [[1, 128n]]],
    ['2^64 - 1 in ten bytes', '08 ff ff ff ff ff ff ff ff ff 01', [[1, 18446744073709551615n]]],
    ['a string field, "testing"', '12 07 74 65 73 74 69 6e 67', [[2, '74657374696e67']]],
    ['an empty bytes field', '1a 00', [[3, '']]],
    ['field 16 (a two-byte tag)', '80 01 05', [[16, 5n]]],
    [
      'a repeated field, both values in order',
      '42 01 61 42 01 62',
      [
        [8, '61'],
        [8, '62'],
      ],
    ],
    ['fixed64 and fixed32 fields skipped', '09 0102030405060708 15 01020304 08 01', [[1, 1n]]],
  ];
  for (const [name, encoded, expected] of rows) {
    it(`reads ${name}`, () => assert.deepEqual(fieldsOf(hex(encoded)), expected));
  }

  it('hands length-delimited values on as views of the message, not copies', () => {
    const message = hex('1a 03 616263');
    let view: Buffer | undefined;
    readFields(
      message,
      () => {},
      (_field, value) => {
        view = value;
      },
    );
    assert.equal(view?.buffer, message.buffer);
    assert.equal(view?.byteOffset, message.byteOffset + 2);
    message[2] = 0x7a;
    assert.equal(view?.toString(), 'zbc');
  });

  const malformed: [string, string, RegExp][] = [
    ['a varint cut short', '08 96', /a varint runs past the end \(2 bytes\)/],
    ['a varint of eleven bytes', '08 ff ff ff ff ff ff ff ff ff ff 01', /a varint is longer than 10 bytes/],
    ['a length past the end', '12 07 74 65', /field 2 of 7 bytes runs past the end \(4 bytes\)/],
    ['a fixed64 cut short', '09 0102', /a field of 8 bytes runs past the end \(3 bytes\)/],
    ['a group (wire type 3)', '0b 0c', /field 1 has wire type 3 \(allowed: 0, 1, 2, 5\)/],
    ['field number 0', '00 01', /field number 0/],
  ];
  for (const [name, encoded, message] of malformed) {
    it(`refuses ${name}, naming what is wrong`, () =>
      assert.throws(
        () => fieldsOf(hex(encoded)),
        (error: unknown) =>
          error instanceof WireFormatError &&
          /^malformed protobuf message: /.test(error.message) &&
          message.test(error.message),
      ));
  }
});

describe('the 64-bit conversions', () => {
  it('reads a uint64 as its decimal string', () => {
    assert.equal(uint64(0n), '0');
    assert.equal(uint64(18446744073709551615n), '18446744073709551615');
  });
  it('reads an int64 in two’s complement: -1 is ten bytes of ones', () => {
    assert.equal(int64(18446744073709551615n), '-1');
    assert.equal(int64(9223372036854775807n), '9223372036854775807');
    assert.equal(int64(9223372036854775808n), '-9223372036854775808');
  });
});
