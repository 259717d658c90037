// The verifier on byte streams shaped like etcd snapshots (real snapshots are covered by the integration tests).
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { describe, it } from 'node:test';
import { SnapshotVerifier } from '../../../controller/backup/snapshot-verifier.js';
import { passThrough } from './pass-through.js';

function snapshotLike(content: Buffer): Buffer {
  return Buffer.concat([content, createHash('sha256').update(content).digest()]);
}

/** Feeds `data` in chunks of `size` bytes; resolves what came out and the verifier. */
async function run(data: Buffer, size: number) {
  const chunks: Buffer[] = [];
  for (let i = 0; i < data.length; i += size) chunks.push(data.subarray(i, i + size));
  const verifier = new SnapshotVerifier();
  return { out: await passThrough(chunks, verifier), verifier };
}

describe('SnapshotVerifier', () => {
  for (const chunk of [1, 7, 32, 33, 4096, 1 << 20]) {
    it(`passes a good snapshot through unchanged in ${chunk}-byte chunks`, async () => {
      const data = snapshotLike(randomBytes(100_003));
      const { out, verifier } = await run(data, chunk);
      assert.ok(out.equals(data));
      assert.equal(verifier.size, data.length);
      assert.equal(verifier.sha256, createHash('sha256').update(data).digest('hex'));
    });
  }

  it('passes a good snapshot through unchanged in chunks of mixed sizes, short ones after long ones', async () => {
    const data = snapshotLike(randomBytes(70_000));
    const sizes = [40_000, 3, 31, 1, 29_000, 33, 5];
    const chunks: Buffer[] = [];
    for (let at = 0, i = 0; at < data.length; at += sizes[i % sizes.length]!, i++)
      chunks.push(data.subarray(at, at + sizes[i % sizes.length]!));
    const verifier = new SnapshotVerifier();
    assert.ok((await passThrough(chunks, verifier)).equals(data));
    assert.equal(verifier.sha256, createHash('sha256').update(data).digest('hex'));
  });

  it('fails when one content byte is flipped, before releasing the trailer', async () => {
    const data = snapshotLike(randomBytes(50_000));
    data[25_000]! ^= 1;
    const released: Buffer[] = [];
    const verifier = new SnapshotVerifier();
    verifier.on('data', (chunk: Buffer) => released.push(chunk));
    await assert.rejects(
      pipeline(Readable.from([data]), verifier),
      /snapshot sha256 trailer [0-9a-f]{64} does not match its 50000 bytes/,
    );
    assert.equal(Buffer.concat(released).length, 50_000);
  });

  it('fails when the stream is shorter than a trailer', async () => {
    await assert.rejects(run(randomBytes(20), 5), /snapshot ended after 20 bytes, before its sha256 trailer/);
  });
});
