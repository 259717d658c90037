// A pass-through that counts bytes and computes their sha256: the stored object's size and digest.
import { createHash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';

export class ByteCounter extends Transform {
  private readonly hash = createHash('sha256');
  private digest: string | undefined;
  /**
   * Bytes that passed. (Not named `size`: lib-storage's Upload would take a `size` property of its Body for
   * the total length.)
   */
  bytes = 0;

  /** sha256 (hex) of every byte that passed; set once the stream ended. */
  get sha256(): string | undefined {
    return this.digest;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.hash.update(chunk);
    this.bytes += chunk.length;
    callback(null, chunk);
  }

  override _flush(callback: TransformCallback): void {
    this.digest = this.hash.digest('hex');
    callback();
  }
}
