// The byte counter: counts every byte; hashes them unless built with `sha256: false` (an uncompressed save takes
// the object's digest from the snapshot verifier instead of hashing the same bytes twice).
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { ByteCounter } from '../../../controller/backup/byte-counter.js';
import { passThrough } from './pass-through.js';

describe('ByteCounter', () => {
  const chunks = [randomBytes(10), randomBytes(70_000), randomBytes(1)];
  const all = Buffer.concat(chunks);

  it('GIVEN the default THEN it passes the bytes unchanged, counts them and hashes them', async () => {
    const counter = new ByteCounter();
    assert.ok((await passThrough(chunks, counter)).equals(all));
    assert.equal(counter.bytes, all.length);
    assert.equal(counter.sha256, createHash('sha256').update(all).digest('hex'));
  });

  it('GIVEN sha256: false THEN it passes and counts the bytes and reports no digest', async () => {
    const counter = new ByteCounter({ sha256: false });
    assert.ok((await passThrough(chunks, counter)).equals(all));
    assert.equal(counter.bytes, all.length);
    assert.equal(counter.sha256, undefined);
  });
});
